import assert from 'node:assert/strict';
import fc from 'fast-check';
import { checkBalance } from '../../../src/core/edits/balance';
import { cpuMs } from '../../cpuTime';

/** A generated program: its text and the offsets of its structural (code-level) brackets. */
interface Program {
  text: string;
  brackets: number[];
}

type Piece = { kind: 'text'; text: string } | { kind: 'group'; open: string; close: string; body: Piece[] };

const PAIRS: Array<[string, string]> = [['(', ')'], ['[', ']'], ['{', '}']];
const noisy = (chars: string) => fc.array(fc.constantFrom(...chars.split('')), { maxLength: 8 }).map((a) => a.join(''));

/** Atoms that hide brackets from the scanner, per language. */
const jsAtoms = fc.oneof(
  fc.constantFrom('a', 'b1', ' ', '\n', ';', ',', '+'),
  noisy("{}[]() a'").map((s) => ` "${s}" `),
  noisy('{}[]() a"').map((s) => ` '${s}' `),
  noisy('{}[]() a\'"').map((s) => ` // ${s}\n`),
  noisy('{}[]() a\'"\n').map((s) => ` /* ${s} */ `),
  fc.tuple(noisy('{}[]() a\'"\n'), noisy("a '")).map(([s, t]) => ` \`${s}\${ x + "${t}" }${s}\` `),
);
const pyAtoms = fc.oneof(
  fc.constantFrom('a', 'b1', ' ', '\n', ',', '+'),
  noisy("{}[]() a'").map((s) => ` "${s}" `),
  noisy('{}[]() a"').map((s) => ` '${s}' `),
  noisy('{}[]() a\'"').map((s) => ` # ${s}\n`),
  noisy("{}[]() a'\n").map((s) => ` """${s}""" `),
  noisy("[]() a'").map((s) => ` f"${s}" `),
);

function pieces(atoms: fc.Arbitrary<string>): fc.Arbitrary<Piece[]> {
  const { list } = fc.letrec<{ list: Piece[]; piece: Piece }>((tie) => ({
    list: fc.array(tie('piece'), { maxLength: 5 }),
    piece: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      atoms.map((text): Piece => ({ kind: 'text', text })),
      fc.tuple(fc.constantFrom(...PAIRS), tie('list')).map(([[open, close], body]): Piece => ({ kind: 'group', open, close, body: body as Piece[] })),
    ),
  }));
  return list;
}

function render(list: Piece[]): Program {
  let text = '';
  const brackets: number[] = [];
  const walk = (ps: Piece[]) => {
    for (const p of ps) {
      if (p.kind === 'text') text += p.text;
      else {
        brackets.push(text.length);
        text += p.open;
        walk(p.body);
        brackets.push(text.length);
        text += p.close;
      }
    }
  };
  walk(list);
  return { text: text + '\n', brackets };
}

const pairOf = (ch: string) => PAIRS.find((p) => p.includes(ch))!.join('');

function checkProperty(atoms: fc.Arbitrary<string>, languageId: string) {
  const program = pieces(atoms).map(render);
  fc.assert(
    fc.property(program, (p) => {
      assert.deepEqual(checkBalance(p.text, languageId, false), { mode: 'unbalanced', status: 'all balanced' }, p.text);
    }),
    { numRuns: 300 },
  );
  fc.assert(
    fc.property(
      program.filter((p) => p.brackets.length > 0),
      fc.nat(),
      (p, k) => {
        const at = p.brackets[k % p.brackets.length];
        const removed = p.text[at];
        const text = p.text.slice(0, at) + p.text.slice(at + 1);
        const r = checkBalance(text, languageId, false);
        assert.ok('unbalanced' in r && r.unbalanced, `removing ${removed} at ${at} was not noticed in ${JSON.stringify(text)}`);
        assert.equal(r.quote_warnings, null);
        assert.equal(r.unbalanced.length, 1, `${JSON.stringify(text)}: ${JSON.stringify(r.unbalanced)}`);
        assert.equal(pairOf(r.unbalanced[0].symbol), pairOf(removed));
      },
    ),
    { numRuns: 500 },
  );
}

describe('analyzers: balance properties', () => {
  it('JS programs with strings, comments and template literals: balanced, and one removed bracket is reported once', () => {
    checkProperty(jsAtoms, 'javascript');
  });
  it('Python programs with # comments and triple-quoted strings: the same', () => {
    checkProperty(pyAtoms, 'python');
  });
});

describe('analyzers: speed', () => {
  it('scans a 5 MB generated JS file in under 1 s', function () {
    this.timeout(30000);
    const chunk = [
      "// comment with { and 'quote",
      'export function foo(a, b) {',
      '  const s = "str { ) ";',
      '  const t = `tmpl ${a + { x: 1 }.x} ${`nested ${b}`}`;',
      '  const r = /[{(]+\\//g;',
      '  if (a < b && b > a) { return [a, b].map((x) => x * 2 / 3); }',
      '  /* block',
      '     comment ( */',
      '  return { a, b };',
      '}',
      '',
    ].join('\n');
    const text = chunk.repeat(Math.ceil(5_000_000 / chunk.length));
    checkBalance(chunk.repeat(200), 'javascript', false); // warm up the JIT
    let best = Infinity;
    for (let k = 0; k < 3; k++) {
      // CPU time: a parallel test worker or a busy machine cannot add to it
      const { ms, value } = cpuMs(() => checkBalance(text, 'javascript', false));
      best = Math.min(best, ms);
      assert.deepEqual(value, { mode: 'unbalanced', status: 'all balanced' });
    }
    assert.ok(best < 1000, `best of 3: ${best.toFixed(0)} ms of CPU for ${(text.length / 1e6).toFixed(1)} MB`);
  });
});

describe('analyzers: pathological inputs stay linear', () => {
  const cases: Array<[string, string, string]> = [
    ['deep nesting then wrong closers', '[' + '{'.repeat(50_000) + ')'.repeat(50_000), 'javascript'],
    ['alternating mismatches', '({'.repeat(25_000) + ')'.repeat(25_000) + '}'.repeat(25_000), 'javascript'],
    ['JSX-looking comparisons that never close', '= <a b\n'.repeat(25_000), 'javascript'],
    ['unterminated tags with quotes', '<a "x\n'.repeat(25_000), 'html'],
    ['raw-text elements', '<title>x</title>\n'.repeat(25_000), 'html'],
    ['slashes that are not regexes', '(/ a\n'.repeat(50_000), 'javascript'],
  ];
  for (const [name, text, lang] of cases) {
    it(name, function () {
      this.timeout(30000);
      const { ms } = cpuMs(() => checkBalance(text, lang, false));
      assert.ok(ms < 5000, `${ms.toFixed(0)} ms of CPU`);
    });
  }
});
