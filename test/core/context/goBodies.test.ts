/**
 * A large Go text's function bodies blanked for its outline's parse (src/core/context/goBodies.ts): which braces are
 * a body whose bounds are certain in gofmt's layout, and, as properties on generated Go, that blanking changes
 * nothing but the bodies' characters (line breaks kept), that any text gives sorted bodies between braces, and that a
 * text which parses cleanly has the same outline blanked as whole. Through the worker pool: a large Go file is
 * outlined blanked (a body's syntax error unseen), a small one whole.
 */
import { strict as assert } from 'node:assert';
import * as path from 'node:path';
import fc from 'fast-check';
import { BLANK_BODIES_MIN_CHARS } from '../../../src/core/context/cBodies';
import { emptyGoFunctionBodies, goFunctionBodies } from '../../../src/core/context/goBodies';
import { OutlinePool } from '../../../src/core/context/node/outlinePool';
import { packagedGrammars, TreeSitterParsers } from '../../../src/core/context/node/treeSitter';
import { inThreadOutlines, outlineText, parseOutline } from '../../../src/core/context/treeOutline';
import { goSource } from '../../../bench/context/generate';
import { assertEmptied, assertSameOutline, assertSortedBodies } from './sameOutline';

const REPO = path.resolve(__dirname, '../../..');

function bodies(text: string): string[] {
  return goFunctionBodies(text).map(([start, end]) => text.slice(start, end));
}

type Fragment = (n: number) => string;
/** Functions, and the constructs around and inside them a brace scan could take for a body's bounds. */
const GO: Fragment[] = [
  (n) => `func f${n}(a int) int {\n\tif a > ${n} {\n\t\treturn a\n\t}\n\treturn ${n}\n}\n`,
  (n) => `// M${n} is documented.\nfunc (t *T) M${n}() string {\n\treturn "}{"\n}\n`,
  (n) => `func r${n}() rune {\n\treturn '{' + '}' + '\\''\n}\n`,
  (n) => `func raw${n}() string {\n\treturn \`\n}\nfunc fake${n}() {\n\`\n}\n`,
  (n) => `func c${n}() {\n\t/* } */ // }\n\tx := 1\n\t_ = x\n}\n`,
  (n) => `func long${n}(\n\ta int,\n\tb string,\n) (int, error) {\n\treturn a, nil\n}\n`,
  (n) => `func G${n}[T any](x T) T {\n\treturn x\n}\n`,
  (n) => `func one${n}() int { return ${n} }\n`,
  (n) => `func s${n}() struct{ a int } {\n\treturn struct{ a int }{}\n}\n`,
  (n) => `func i${n}() interface{} {\n\treturn nil\n}\n`,
  (n) => `func cl${n}() {\n\tg := func() {\n}\n\tg()\n}\n`,
  (n) => `func asm${n}() int\n`,
  (n) => `type T${n} struct {\n\tA int\n}\n`,
  (n) => `var v${n} = map[string]int{\n\t"a": 1,\n}\n`,
  (n) => `func é${n}() string {\n\treturn "é😀"\n}\n`,
  (n) => `func crlf${n}() {\r\n\treturn\r\n}\r\n`,
  () => `\n`,
];
/** Pieces that leave the text broken unless they pair up. */
const GO_PIECES: Fragment[] = [(n) => `func open${n}() {\n`, () => `}\n`, () => '`\n', () => `/*\n`, () => `*/\n`, () => `"\n`];

function source() {
  const fragment = fc.oneof({ weight: 29, arbitrary: fc.constantFrom(...GO) }, { weight: 1, arbitrary: fc.constantFrom(...GO_PIECES) });
  return fc.array(fragment, { minLength: 1, maxLength: 30 }).map((fs) => 'package p\n\n' + fs.map((f, n) => f(n)).join(''));
}

describe('core/context goBodies (a large Go text parsed with its function bodies blanked)', function () {
  this.timeout(120_000);
  const parsers = new TreeSitterParsers(packagedGrammars);

  it('finds the bodies of functions and methods past braces in strings, runes, raw strings and comments; heads over lines', () => {
    const text = [
      'func f(a int) int {\n\tif a {\n\t\treturn "}"\n\t}\n\treturn \'{\' // }\n}\n',
      'func (t *T) M() string {\n\treturn `\n}\n`\n}\n',
      'func long(\n\ta int,\n) error {\n\treturn nil\n}\n',
      'func G[T any](x T) T {\n\treturn x\n}\n',
    ].join('');
    assert.deepEqual(bodies(text), ['\n\tif a {\n\t\treturn "}"\n\t}\n\treturn \'{\' // }\n', '\n\treturn `\n}\n`\n', '\n\treturn nil\n', '\n\treturn x\n']);
  });

  it('leaves what is not certainly a body: a brace in the head, one-line bodies, no body, a brace open at the `}` line', () => {
    assert.deepEqual(bodies('func s() struct{ a int } {\n\treturn struct{ a int }{}\n}\n'), []);
    assert.deepEqual(bodies('func i() interface{} {\n\treturn nil\n}\n'), []);
    assert.deepEqual(bodies('func one() int { return 1 }\n'), []);
    // a function without a body: the struct after it is never taken for one
    assert.deepEqual(bodies('func asm() int\ntype T struct {\n\tA int\n}\n'), []);
    // a closure closed at column 0: the `}` line comes with a brace open, so the function stays whole
    assert.deepEqual(bodies('func cl() {\n\tg := func() {\n}\n\tg()\n}\nfunc next() {\n\treturn\n}\n'), ['\n\treturn\n']);
    assert.deepEqual(bodies('func open() {\n\treturn `\n}\n'), [], 'a raw string that never closes');
    assert.deepEqual(bodies('func open() {\n\treturn\n'), [], 'never closed');
    assert.deepEqual(bodies('  func indented() {\n\treturn\n}\n'), []);
    assert.equal(emptyGoFunctionBodies('type T struct {\n\tA int\n}\n'), undefined, 'nothing to blank');
  });

  it('property: emptying takes out only body characters, every line break in them and every other character kept', () => {
    fc.assert(
      fc.property(source(), (text) => {
        const emptied = emptyGoFunctionBodies(text);
        if (emptied !== undefined) assertEmptied(text, emptied, goFunctionBodies(text));
      }),
      { numRuns: 500 },
    );
  });

  it('property: any text at all (Go-ish characters, any code unit) gives sorted, disjoint bodies between braces, or none', () => {
    const unit = fc.oneof(
      { weight: 2, arbitrary: fc.constantFrom('func f() {\n\tg()\n}\n', 'func (t T) m(a int) {\n\treturn\n}\n') },
      { weight: 12, arbitrary: fc.constantFrom('func f(', 'func ', ') {', ')', '\n}\n', '{', '}', '(', '[', ']', ' ', '\n', '\t') },
      { weight: 2, arbitrary: fc.constantFrom('"', "'", '`', '/', '*', '//', '/*', '*/', '\\', '\r') },
      { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 2 }) },
    );
    assertSortedBodies(fc.array(unit, { maxLength: 80 }).map((u) => u.join('')), goFunctionBodies, emptyGoFunctionBodies, (text, a, b) => text[a - 1] === '{' && text[b] === '}' && text[b - 1] === '\n');
  });

  it('property: a text that parses cleanly has the same outline (symbols, ranges, signatures, imports) blanked as whole', async () => {
    const { transformed, compared } = await assertSameOutline(parsers, 'go', source(), emptyGoFunctionBodies, 300);
    assert.ok(transformed > 200 && compared > 100, `${transformed} blanked, ${compared} compared`);
  });

  it('outlineText blanks Go from BLANK_BODIES_MIN_CHARS on, and nothing else', () => {
    const big = goSource(BLANK_BODIES_MIN_CHARS + 10_000);
    assert.notEqual(outlineText(big, 'go'), big);
    assert.equal(outlineText(big, 'go'), emptyGoFunctionBodies(big));
    assert.equal(outlineText(big, 'rust'), big);
    const small = goSource(BLANK_BODIES_MIN_CHARS - 10_000);
    assert.equal(outlineText(small, 'go'), small);
  });

  it('through the pool, a large Go file is outlined blanked (the whole parse\'s outline; a body\'s syntax error unseen), a small one whole', async () => {
    const pool = new OutlinePool({ grammarsDir: REPO, size: 1, parallel: 2, partChars: 256 * 1024 });
    try {
      const big = goSource(1_000_000);
      const raw = await parseOutline(big, 'go', parsers);
      const rawOutline = raw?.outline;
      raw?.free();
      assert.equal(rawOutline?.errorRanges.length, 0);
      assert.deepEqual(await pool.outline(big, 'go'), rawOutline);
      const broken = big.replace('\t\treturn fmt.Sprintf("%s-%d", prefix, it.ID)\n', '\t\treturn fmt.Sprintf("%s-%d", prefix, it.ID\n');
      assert.notEqual(broken, big);
      const rawBroken = await parseOutline(broken, 'go', parsers);
      assert.ok(rawBroken!.outline!.errorRanges.length > 0);
      rawBroken!.free();
      const pooled = await pool.outline(broken, 'go');
      assert.deepEqual(pooled!.errorRanges, []);
      assert.deepEqual(pooled!.symbols, rawOutline!.symbols);
      const small = 'package p\n\nfunc f() {\n\treturn g(1\n}\n';
      const here = await inThreadOutlines(parsers).outline(small, 'go');
      assert.ok(here!.errorRanges.length > 0);
      assert.deepEqual(await pool.outline(small, 'go'), here);
    } finally {
      await pool.close();
    }
  });
});
