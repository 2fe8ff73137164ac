/**
 * A large JavaScript, TypeScript or Python text's data literals parsed without their tails
 * (src/core/context/dataLiterals.ts): which literals are certainly data, and, as properties on generated code, that
 * only the tails go (every line break kept, every other character outside them kept) and that a text which parses
 * cleanly has the same outline compacted as whole, in all five languages. Through the worker pool: a large data file
 * gives the whole parse's outline, an edit in a tail leaves it, a syntax error in a tail goes unseen, and one outside
 * the tails gets the whole text's parse.
 */
import { strict as assert } from 'node:assert';
import * as path from 'node:path';
import fc from 'fast-check';
import { COMPACT_LITERALS_MIN_CHARS, compactDataLiterals, dataLiteralTails, KEPT_CHARS, MIN_LITERAL_CHARS } from '../../../src/core/context/dataLiterals';
import { OutlinePool } from '../../../src/core/context/node/outlinePool';
import { packagedGrammars, TreeSitterParsers } from '../../../src/core/context/node/treeSitter';
import { outlineInputs, outlineText, parseOutline, treeSitterOutline } from '../../../src/core/context/treeOutline';
import { assertSameOutline } from './sameOutline';

const REPO = path.resolve(__dirname, '../../..');
const LANGUAGES = ['typescript', 'javascript', 'typescriptreact', 'javascriptreact'] as const;

/** The tails dataLiteralTails finds in `text` (any size), as text. */
function tails(text: string, languageId = 'typescript'): string[] {
  return dataLiteralTails(text, languageId, 0).map(([from, to]) => text.slice(from, to));
}

/** A long enough first element, so that a tail begins after it. */
const HEAD = `"${'h'.repeat(KEPT_CHARS)}"`;

/** JSON-like values, with the characters a bracket scan could take for more than they are. */
const VALUE: string[] = ['1', '-2.5e3', '0x1F', 'true', 'null', 'undefined', 'NaN', '"a]b"', "'c}d'", '"e\\"]"', "'f\\'['", '"é😀"', '[]', '{}', '[1, [2, {"k": 3}]]', '{ "id": 7, name: "x", nested: { a: [1, 2,], }, }', '...rest', 'other.value'];
/** What makes a literal not certainly data. */
const NOT_DATA: string[] = ['f(1)', '() => 1', '`t`', '`a${x}b`', '/re]/', '// c\n', '/* c */', 'a * b', 'x ? 1 : 2', '<T>x', 'class A { m }', 'function g() {}', '{ m() {} }', '{ get x() { return 1; } }', 'new Date()', 'ünïcode', '\\u0041'];

const literal = (values: string[], pretty: boolean) => (pretty ? `[\n  ${HEAD},\n${values.map((v) => `  ${v},\n`).join('')}]` : `[${HEAD}, ${values.join(', ')}]`);
const record = (values: string[]) => `{\n  "head": ${HEAD},\n${values.map((v, i) => (v === '...rest' ? `  ${v},\n` : `  "k${i}": ${v},\n`)).join('')}}`;

function dataDeclaration(ts: boolean) {
  return fc.tuple(fc.array(fc.constantFrom(...VALUE), { minLength: 1, maxLength: 12 }), fc.boolean(), fc.constantFrom('const', 'let', 'var', 'export const'), fc.boolean(), fc.boolean()).map(
    ([values, pretty, kw, typed, asRecord]) => (n: number) => `${kw} d${n}${typed && ts ? ': Item[]' : ''} = ${asRecord ? record(values) : literal(values, pretty)};\n`,
  );
}

function notDataDeclaration() {
  return fc.tuple(fc.array(fc.constantFrom(...VALUE), { maxLength: 4 }), fc.constantFrom(...NOT_DATA)).map(([values, odd]) => (n: number) => `const nd${n} = ${literal([...values, odd], true)};\n`);
}

/** Code around the literals: declarations that are symbols, and places where a declaration's line is not code. */
const CODE: ((n: number) => string)[] = [
  (n) => `export function f${n}(a) {\n  const inner = [${HEAD}, 1, 2];\n  return a + inner.length;\n}\n`,
  (n) => `export class C${n} {\n  m() {\n    return ${n};\n  }\n}\n`,
  (n) => `/** Doc ${n}. */\nexport const doc${n} = [\n  ${HEAD},\n  1,\n];\n`,
  (n) => `const tpl${n} = \`\nconst x = [\n  ${HEAD},\n  2, 3,\n]\n\`;\n`,
  (n) => `/*\nconst y${n} = [\n  ${HEAD},\n  4,\n]\n*/\n`,
  (n) => `const s${n} = "line\\\nconst z = [${HEAD}, 5, 6]";\n`,
  (n) => `  const indented${n} = [${HEAD}, 7, 8];\n`,
  (n) => `const fn${n} = (a) => [${HEAD}, a];\n`,
  (n) => `import { x${n} } from './m${n}';\n`,
  (n) => `const crlf${n} = [\r\n  ${HEAD},\r\n  9,\r\n];\r\n`,
  (n) => `const el${n} = <div>\nconst x = [\n  ${HEAD},\n  "a",\n]\n</div>;\n`,
  () => `\n`,
];
/** TypeScript only: types around and before the literals. */
const TS_CODE: ((n: number) => string)[] = [
  (n) => `export function t${n}(a: number): number[] {\n  return [a];\n}\n`,
  (n) => `export interface I${n} {\n  a: number;\n}\n`,
  (n) => `type T${n} = { a: number }[];\nconst typed${n}: T${n} = [\n  { a: 1 }, { a: 2 }, { a: 3 }, { a: 4 }, { a: 5 }, { a: 6 }, { a: 7 }, { a: 8 }, { a: 9 }, { a: 10 },\n  { a: 11 },\n];\n`,
];
/** Pieces that leave the text broken unless they pair up. */
const PIECES: ((n: number) => string)[] = [(n) => `const open${n} = [\n  ${HEAD},\n`, () => `]\n`, () => '`\n', () => `/*\n`, () => `*/\n`, () => `"\n`];

/** Generated code for `languageId`: TypeScript's types only where it has them, JSX in the react languages. */
function source(languageId = 'typescript') {
  const ts = languageId.startsWith('typescript');
  const code = [...CODE.filter((c) => languageId.endsWith('react') || !c(0).includes('<div>')), ...(ts ? TS_CODE : [])];
  const fragment = fc.oneof(
    { weight: 20, arbitrary: dataDeclaration(ts) },
    { weight: 8, arbitrary: notDataDeclaration() },
    { weight: 20, arbitrary: fc.constantFrom(...code) },
    { weight: 1, arbitrary: fc.constantFrom(...PIECES) },
  );
  return fc.array(fragment, { minLength: 1, maxLength: 20 }).map((fs) => fs.map((f, n) => f(n)).join(''));
}

/** Python: JSON-like values, with byte and raw strings; what is not data; code around the tables. */
const PY_VALUE: string[] = ['1', '-2.5e3', '0x1F', 'True', 'None', '"a]b"', "'c}d'", '"e\\"]"', 'b"\\xff"', 'r"\\d+"', '"é😀"', '[]', '{}', '[1, [2, {"k": 3}]]', '{"id": 7, "name": "x", "nested": {"a": [1, 2,],},}', 'other.value', 'x if y else z'];
const PY_NOT_DATA: string[] = ['f(1)', 'lambda: 1', 'f"{x}"', "rf'{y}'", '# c\n', 'a * b', '"""doc\nstring"""', '(1, 2)', 'ünïcode', 'x \\\n'];

function pythonSource() {
  const table = fc
    .tuple(fc.array(fc.constantFrom(...PY_VALUE), { minLength: 1, maxLength: 12 }), fc.boolean(), fc.boolean())
    .map(([values, pretty, typed]) => (n: number) => `D${n}${typed ? ': list[object]' : ''} = ${pretty ? `[\n    ${HEAD},\n${values.map((v) => `    ${v},\n`).join('')}]` : `[${HEAD}, ${values.join(', ')}]`}\n`);
  const notData = fc.tuple(fc.array(fc.constantFrom(...PY_VALUE), { maxLength: 4 }), fc.constantFrom(...PY_NOT_DATA)).map(([values, odd]) => (n: number) => `ND${n} = [\n    ${HEAD},\n${[...values, odd].map((v) => `    ${v},\n`).join('')}]\n`);
  const code: ((n: number) => string)[] = [
    (n) => `def f${n}(a):\n    """Doc ${n}."""\n    inner = [${HEAD}, 1, 2]\n    return a\n`,
    (n) => `class C${n}:\n    def m(self):\n        return ${n}\n`,
    (n) => `@decorator\ndef g${n}():\n    pass\n`,
    (n) => `from m${n} import x${n}\n`,
    (n) => `if FLAG:\n    INDENTED${n} = [\n        ${HEAD},\n        1,\n    ]\n`,
    (n) => `S${n} = """\nD = [\n    ${HEAD},\n    1,\n]\n"""\n`,
    (n) => `T${n} = 1 + \\\n    2\n`,
    () => `\n`,
  ];
  const pieces: ((n: number) => string)[] = [(n) => `OPEN${n} = [\n    ${HEAD},\n`, () => `]\n`, () => `"""\n`, () => `(\n`];
  const fragment = fc.oneof({ weight: 20, arbitrary: table }, { weight: 8, arbitrary: notData }, { weight: 20, arbitrary: fc.constantFrom(...code) }, { weight: 1, arbitrary: fc.constantFrom(...pieces) });
  return fc.array(fragment, { minLength: 1, maxLength: 20 }).map((fs) => fs.map((f, n) => f(n)).join(''));
}

/** `text` with [from, to) ranges replaced by their line breaks: what compaction must give. */
function expectedCompaction(text: string, ranges: [number, number][]): string {
  let out = '';
  let at = 0;
  for (const [from, to] of ranges) {
    out += text.slice(at, from) + text.slice(from, to).replace(/[^\n]/g, '');
    at = to;
  }
  return out + text.slice(at);
}

describe('core/context dataLiterals (a large JavaScript, TypeScript or Python text parsed without its data literals\' tails)', function () {
  this.timeout(180_000);
  const parsers = new TreeSitterParsers(packagedGrammars);

  it('takes the tail of a data literal after its first comma past KEPT_CHARS, past brackets and quotes in strings', () => {
    const text = `export const data: Item[] = [\n  ${HEAD},\n  "]", '}',\n  { "a": [1, 2], b: "\\"" },\n];\nexport function get(i: number) {\n  return data[i];\n}\n`;
    assert.deepEqual(tails(text), [`\n  "]", '}',\n  { "a": [1, 2], b: "\\"" },\n`]);
    assert.equal(compactDataLiterals(text, 'typescript', 0), `export const data: Item[] = [\n  ${HEAD},\n\n\n];\nexport function get(i: number) {\n  return data[i];\n}\n`);
    // an object, on one line; the first comma comes only once KEPT_CHARS non-blank characters are behind
    assert.deepEqual(tails(`let o = { a: 1, b: 2, c: ${HEAD}, d: 3, e: 4 };\n`), [' d: 3, e: 4 ']);
    assert.deepEqual(tails(`var short = [1, 2, 3];\n`), [], 'nothing past KEPT_CHARS');
    // a trailing comma right before the bracket leaves nothing to take out, even with no minimum; a line break does
    assert.deepEqual(tails(`const x = [${HEAD},]\nconst y = {${HEAD},\n}\n`), ['\n']);
  });

  it('leaves what is not certainly data, and declarations whose line is not a declaration\'s start', () => {
    for (const odd of NOT_DATA) assert.deepEqual(tails(`const x = [${HEAD}, 1, ${odd}, 2];\n`), [], odd);
    assert.deepEqual(tails(`  const indented = [${HEAD}, 1, 2];\n`), []);
    assert.deepEqual(tails(`const s = "a\\\nconst z = [${HEAD}, 1, 2]";\n`), [], 'a line continued by a backslash');
    assert.deepEqual(tails(`const x = [${HEAD}, 1, "open\n, 2];\n`), [], 'a string that does not close on its line');
    assert.deepEqual(tails(`const x = [${HEAD}, 1, 2};\n`), [], 'brackets that do not pair');
    assert.deepEqual(tails(`const x = [${HEAD}, 1, 2\n`), [], 'never closed');
    assert.deepEqual(tails(`const f: () => number[] = [${HEAD}, 1, 2];\n`), [], 'an arrow type');
    // the declaration after a literal left whole is still found
    assert.deepEqual(tails(`const x = [f(1)];\nconst y = [${HEAD}, 1];\n`), [' 1']);
  });

  it('Python: a table assigned to a name (its type too) loses its tail; f-strings, comments, continued and indented lines do not', () => {
    const text = `"""Doc."""\nDATA: list[dict] = [\n    ${HEAD},\n    {"a": b"\\xff", "b": r"\\d+", "c": None},\n    True,\n]\n\ndef get(i):\n    return DATA[i]\n`;
    assert.deepEqual(tails(text, 'python'), ['\n    {"a": b"\\xff", "b": r"\\d+", "c": None},\n    True,\n']);
    for (const odd of PY_NOT_DATA) assert.deepEqual(tails(`D = [${HEAD}, 1, ${odd}, 2]\n`, 'python'), [], odd);
    assert.deepEqual(tails(`if X:\n    D = [${HEAD}, 1, 2]\n`, 'python'), []);
    assert.deepEqual(tails(`T = 1 + \\\nD = [${HEAD}, 1, 2]\n`, 'python'), [], 'a line continued by a backslash');
    assert.deepEqual(tails(`D == [${HEAD}, 1, 2]\nE += [${HEAD}, 1, 2]\n`, 'python'), [], 'no assignment');
    // the JavaScript declaration is no Python assignment, and the other way round
    assert.deepEqual(tails(`const D = [${HEAD}, 1, 2]\n`, 'python'), []);
    assert.deepEqual(tails(`D = [${HEAD}, 1, 2]\n`, 'typescript'), []);
    assert.deepEqual(tails(`D = [${HEAD}, 1, 2]\n`, 'c'), [], 'a language with no dialect');
  });

  it('a literal shorter than MIN_LITERAL_CHARS keeps its tail by default', () => {
    const small = `const d = [${HEAD}, ${'1, '.repeat(100)}2];\n`;
    assert.equal(compactDataLiterals(small, 'typescript'), undefined);
    const large = `const d = [${HEAD}, ${'1, '.repeat(MIN_LITERAL_CHARS / 3 + 1)}2];\n`;
    assert.equal(compactDataLiterals(large, 'typescript'), `const d = [${HEAD},];\n`);
  });

  it('property: compaction takes out only the tails\' characters, every line break and every other character kept', () => {
    const unit = fc.oneof(
      { weight: 3, arbitrary: source() },
      { weight: 6, arbitrary: fc.constantFrom('const x = [', 'let o = {', HEAD, ',', ']', '}', '[', '{', '"', "'", '\\', '`', '/', '\n', '\r', ' ', ':', '1', 'a') },
      { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 2 }) },
    );
    let withTails = 0;
    fc.assert(
      fc.property(fc.array(unit, { maxLength: 40 }).map((u) => u.join('')), (text) => {
        const languageId = text.length % 2 ? 'python' : 'typescript';
        const found = dataLiteralTails(text, languageId, 0);
        const compacted = compactDataLiterals(text, languageId, 0);
        if (!found.length) return assert.equal(compacted, undefined);
        withTails++;
        let end = 0;
        for (const [from, to] of found) {
          assert.ok(from >= end && from < to && to < text.length && text[from - 1] === ',' && (text[to] === ']' || text[to] === '}'), `${from}-${to}`);
          end = to;
        }
        assert.equal(compacted, expectedCompaction(text, found));
        assert.equal(compacted!.split('\n').length, text.split('\n').length);
      }),
      { numRuns: 1000 },
    );
    assert.ok(withTails > 200, `${withTails} of 1000 texts had a tail`);
  });

  it('property: a text that parses cleanly has the same outline (symbols, ranges, signatures, imports) compacted as whole', async () => {
    for (const languageId of LANGUAGES) {
      const counts = await assertSameOutline(parsers, languageId, source(languageId), (text) => compactDataLiterals(text, languageId, 0), 150);
      assert.ok(counts.transformed > 100 && counts.compared > 50, `${languageId}: ${JSON.stringify(counts)}`);
    }
    const py = await assertSameOutline(parsers, 'python', pythonSource(), (text) => compactDataLiterals(text, 'python', 0), 200);
    assert.ok(py.transformed > 100 && py.compared > 50, `python: ${JSON.stringify(py)}`);
  });

  it('outlineText compacts JavaScript, TypeScript and Python from COMPACT_LITERALS_MIN_CHARS on, and nothing else', () => {
    const rows = (n: number) => Array.from({ length: n }, (_, i) => `  { "id": ${i}, "name": "item ${i}" },\n`).join('');
    const big = `export const data = [\n${rows(COMPACT_LITERALS_MIN_CHARS / 30)}];\n`;
    assert.ok(big.length >= COMPACT_LITERALS_MIN_CHARS);
    for (const languageId of LANGUAGES) assert.equal(outlineText(big, languageId), compactDataLiterals(big, languageId), languageId);
    assert.ok(outlineText(big, 'typescript').length < big.length / 10);
    assert.equal(outlineInputs(big, 'typescript').whole, big, 'the whole text, for a compacted parse with errors');
    assert.equal(outlineInputs(big, 'c').whole, undefined);
    assert.equal(outlineText(big, 'c'), big);
    const bigPy = big.replace('export const data = [', 'DATA = [');
    assert.equal(outlineText(bigPy, 'python'), compactDataLiterals(bigPy, 'python'));
    assert.ok(outlineText(bigPy, 'python').length < bigPy.length / 10);
    assert.equal(outlineText(big, 'json'), big);
    const small = `export const data = [\n${rows(COMPACT_LITERALS_MIN_CHARS / 60)}];\n`;
    assert.equal(outlineText(small, 'typescript'), small);
  });

  it('through the pool, a large data file gives the whole parse\'s outline; an edit in a tail leaves it; a tail\'s syntax error goes unseen', async () => {
    const pool = new OutlinePool({ grammarsDir: REPO, size: 1, parallel: 2, partChars: 256 * 1024 });
    try {
      const rows = Array.from({ length: 30_000 }, (_, i) => `  { "id": ${i}, "name": "item ${i}", "tags": ["a", "b"] },\n`).join('');
      const big = `/** Items. */\nexport interface Item {\n  id: number;\n}\n\nexport const items: Item[] = [\n${rows}];\n\nexport function get(i: number): Item {\n  return items[i]!;\n}\n`;
      const whole = await parseOutline(big, 'typescript', parsers);
      const wholeOutline = whole?.outline;
      whole?.free();
      assert.equal(wholeOutline?.errorRanges.length, 0);
      assert.deepEqual(wholeOutline?.symbols.map((s) => [s.name, s.start, s.end]), [['Item', 2, 4], ['items', 6, 30_007], ['get', 9 + 30_000, 11 + 30_000]]);
      assert.deepEqual(await pool.outline(big, 'typescript'), wholeOutline);
      const edited = big.replace('"item 20000"', '"item 2000x", "extra": true');
      assert.equal(outlineText(edited, 'typescript'), outlineText(big, 'typescript'));
      assert.deepEqual(await pool.outline(edited, 'typescript'), wholeOutline);
      const broken = big.replace('"id": 20000, "name"', '"id": 20000 "name"');
      const brokenWhole = await parseOutline(broken, 'typescript', parsers);
      assert.ok(brokenWhole!.outline!.errorRanges.length > 0);
      brokenWhole!.free();
      const pooled = await pool.outline(broken, 'typescript');
      assert.deepEqual(pooled!.errorRanges, []);
      assert.deepEqual(pooled!.symbols, wholeOutline!.symbols);
      // an error outside the tails: the compacted parse has errors, so the outline is the whole text's own parse
      // (here error recovery finds `d2` in the compacted text, where the whole text's finds no symbol)
      const plain = Array.from({ length: 8_000 }, (_, i) => `  { "id": ${i}, "name": "item ${i}" },\n`).join('');
      const elsewhere = `(\n"\nexport const d2 = [\n  ${HEAD},\n${plain}];\n`;
      const elsewhereWhole = await parseOutline(elsewhere, 'typescript', parsers);
      const elsewhereOutline = elsewhereWhole?.outline;
      elsewhereWhole?.free();
      assert.ok(elsewhereOutline!.errorRanges.length > 0);
      const compactedParse = await parseOutline(outlineText(elsewhere, 'typescript'), 'typescript', parsers);
      assert.notDeepEqual(compactedParse?.outline?.symbols, elsewhereOutline!.symbols, 'a case where recovery differs');
      compactedParse?.free();
      assert.deepEqual(outlineInputs(elsewhere, 'typescript').whole, elsewhere);
      assert.deepEqual(await pool.outline(elsewhere, 'typescript'), elsewhereOutline);
      assert.deepEqual(await treeSitterOutline(elsewhere, 'typescript', parsers), elsewhereOutline);
      // a Python module's table, the same way
      const py = `"""Items."""\n\nITEMS: list[dict] = [\n${rows.replaceAll('  {', '    {')}]\n\n\ndef get(i):\n    """Item i."""\n    return ITEMS[i]\n`;
      assert.ok(outlineText(py, 'python').length < py.length / 10);
      const pyWhole = await parseOutline(py, 'python', parsers);
      const pyOutline = pyWhole?.outline;
      pyWhole?.free();
      assert.deepEqual(pyOutline?.symbols.map((s) => [s.name, s.start, s.end]), [['ITEMS', 3, 30_004], ['get', 30_007, 30_009]]);
      assert.deepEqual(await pool.outline(py, 'python'), pyOutline);
    } finally {
      await pool.close();
    }
  });
});
