/**
 * Property: an outline joined from parts parsed apart (outlineChunks.ts) is the whole-file parse's outline, for
 * generated C, TypeScript, JavaScript, Python, Go and Rust built from declarations and from the constructs that run
 * across a cut (a struct's declarator on the next line, `else`/`while` after a block, a call or `as const` after an
 * object, `#if` blocks, comments (nested in Rust), strings, raw strings and templates holding a `}` line, decorators,
 * continued lines, a closure closed at column 0 inside a Go function). No input is
 * filtered out: where a part does not parse cleanly the join says so (undefined) and the file is parsed whole.
 */
import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { packagedGrammars, TreeSitterParsers } from '../../../src/core/context/node/treeSitter';
import { treeSitterOutline } from '../../../src/core/context/treeOutline';
import { cutPoints, cutText, joinOutlines } from '../../../src/core/context/outlineChunks';
import { cSource, goSource, rustSource } from '../../../bench/context/generate';

type Fragment = (n: number) => string;

/** Declarations, and valid texts where a construct runs across a line that is a cut's shape (`}` then a name). */
const C: Fragment[] = [
  (n) => `struct t${n} {\n  int a;\n}\nv${n};\n`,
  (n) => `struct u${n} {\n  int a;\n}\n\n/* c */\nw${n}, *p${n};\n`,
  (n) => `int arr${n}[] = {\n  1, 2\n}\n;\n`,
  (n) => `if (x${n}) {\n}\nelse {\n}\n`,
  (n) => `do {\n}\nwhile (x${n});\n`,
  (n) => `#ifdef FLAG${n}\nint i${n}(void) {\n}\n#else\nint j${n}(void) {\n}\n#endif\n`,
  (n) => `/*\n}\nint fake${n}(void) {\n}\n*/\n`,
  (n) => `extern "C" {\nint e${n}(void) {\n}\nint k${n};\n}\n`,
  (n) => `#define M${n}(x) \\\n  {\\\n}\\\nint mm${n};\n`,
  (n) => `int f${n}(int a) {\n  if (a) {\n    return a;\n  }\n  return ${n};\n}\n`,
  (n) => `static void g${n}(void)\n{\n}\n`,
  (n) => `struct s${n} {\n  int a;\n};\n`,
  (n) => `/* doc ${n} */\n`,
  (n) => `/**\n * Doc ${n}.\n */\n`,
  (n) => `// line ${n}\n`,
  (n) => `#include "h${n}.h"\n`,
  (n) => `typedef struct {\n  int a;\n} ty${n}_t;\n`,
  () => `\n`,
  () => `\n\n`,
];
/** Single pieces of the constructs above: the text stays broken unless they happen to pair up. */
const C_PIECES: Fragment[] = [
  (n) => `struct t${n} {\n  int a;\n}\n`, // its declarator or `;` may follow on the next line
  (n) => `v${n};\n`,
  (n) => `int arr${n}[] = {\n  1, 2\n}\n`,
  () => `;\n`,
  (n) => `/*\n}\nint fake${n}(void) {\n}\n`,
  () => `*/\n`,
  (n) => `#ifdef FLAG${n}\n`,
  () => `#else\n`,
  () => `#endif\n`,
  (n) => `#define M${n}(x) \\\n  {\\\n}\n`,
  (n) => `if (x${n}) {\n}\n`,
  () => `else {\n}\n`,
  () => `do {\n}\n`,
  () => `while (0);\n`,
  (n) => `extern "C" {\n  int e${n}(void);\n`,
  () => `}\n`,
  (n) => `char *s${n} = "a\n}\nint q${n};\n";\n`,
];

const TS: Fragment[] = [
  (n) => `const o${n} = {\n  a: 1,\n}\nas const;\n`,
  (n) => `const h${n} = function () {\n}\n(${n});\n`,
  (n) => `const p${n} = new Promise(() => {\n})\n.then(() => 1);\n`,
  (n) => `if (x${n}) {\n}\nelse {\n}\n`,
  (n) => `do {\n}\nwhile (x${n});\n`,
  (n) => `try {\n}\ncatch (e${n}) {\n}\n`,
  (n) => `const t${n} = \`\n}\nexport const inTemplate${n} = 1;\n\`;\n`,
  (n) => `const q${n} = {\n}\n\n// c\n[${n}].forEach(String);\n`,
  (n) => `namespace N${n} {\nexport function nf${n}() {\n}\nexport const nc${n} = 1;\n}\n`,
  (n) => `const r${n} = {\n}\ninstanceof Object;\n`,
  (n) => `let l${n} = {\n}\n/* c */\n-1;\n`,
  (n) => `export function f${n}(a: number): number {\n  return a;\n}\n`,
  (n) => `function g${n}() {\n}\n`,
  (n) => `class C${n} {\n  m${n}(): void {\n  }\n}\n`,
  (n) => `interface I${n} {\n  a: string;\n}\n`,
  (n) => `type T${n} = {\n  a: 1;\n}\n`,
  (n) => `/**\n * Doc ${n}.\n */\n`,
  (n) => `// note ${n}\n`,
  (n) => `@dec()\nclass D${n} {\n}\n`,
  (n) => `let y${n} = 1\n`,
  (n) => `export default {\n  k: ${n},\n}\n`,
  (n) => `import { a${n} } from './m${n}';\n`,
  (n) => `export const e${n} = () => {\n}\n`,
  (n) => `enum E${n} {\n  A,\n}\n`,
  (n) => `declare module 'm${n}' {\n}\n`,
  (n) => `async function a${n}() {\n}\n`,
  () => `\n`,
];
/** Single pieces of the constructs above: the text stays broken unless they happen to pair up. */
const TS_PIECES: Fragment[] = [
  (n) => `const o${n} = {\n  a: 1,\n}\n`,
  (n) => `const h${n} = function () {\n}\n`,
  (n) => `(${n});\n`,
  () => `.then(() => 1);\n`,
  () => `as const;\n`,
  (n) => `[${n}].forEach(String);\n`,
  (n) => `if (x${n}) {\n}\n`,
  () => `else {\n}\n`,
  () => `do {\n}\n`,
  () => `while (x);\n`,
  () => `try {\n}\n`,
  () => `catch (e) {\n}\n`,
  (n) => `const t${n} = \`\n}\nexport const inTemplate${n} = 1;\n`,
  () => '`;\n',
  (n) => `namespace N${n} {\n`,
  () => `}\n`,
  (n) => `type\n= ${n};\n`,
];

/** The TypeScript fragments without TypeScript's own syntax. */
const TS_ONLY = /: number|: void|: string|interface |type |namespace |enum |declare |as const|@dec/;
const JS = TS.filter((f) => !TS_ONLY.test(f(0)));
const JS_PIECES = TS_PIECES.filter((f) => !TS_ONLY.test(f(0)));

const PY: Fragment[] = [
  (n) => `@dec${n}\ndef dd${n}():\n    pass\n`,
  (n) => `x${n} = (\n    1,\n)\ndef after${n}():\n    pass\n`,
  (n) => `s${n} = """\n    text\ndef fake${n}():\n"""\n`,
  (n) => `if x${n}:\n    pass\nelse:\n    pass\n`,
  (n) => `y${n} = [\n    1,\ndef_${n},\n]\n`,
  (n) => `try:\n    pass\nexcept E${n}:\n    pass\n`,
  (n) => `class K${n}:\n    x = 1\n\n    def k${n}(self):\n        pass\n`,
  (n) => `def f${n}(a):\n    return a\n`,
  (n) => `class C${n}:\n    def m${n}(self):\n        pass\n`,
  (n) => `# comment ${n}\n`,
  (n) => `async def a${n}():\n    await x\n`,
  (n) => `def g${n}():\n    """Doc ${n}."""\n    pass\n`,
  (n) => `import m${n}\n`,
  () => `\n`,
  () => `\n\n`,
];
/** Single pieces of the constructs above: the text stays broken unless they happen to pair up. */
const PY_PIECES: Fragment[] = [
  (n) => `    # indented ${n}\n`,
  (n) => `    z${n} = 1\n`,
  (n) => `@dec${n}\n`,
  (n) => `x${n} = (\n`,
  () => `)\n`,
  (n) => `s${n} = """\ndef fake${n}():\n`,
  () => `"""\n`,
  (n) => `if x${n}:\n    pass\n`,
  () => `else:\n    pass\n`,
  (n) => `y${n} = 1 + \\\n`,
  () => `try:\n    pass\n`,
  () => `except E:\n    pass\n`,
];

const GO: Fragment[] = [
  (n) => `func f${n}(a int) int {\n\tif a > ${n} {\n\t\treturn a\n\t}\n\treturn ${n}\n}\n`,
  (n) => `func (t *T${n}) M${n}() string {\n\treturn "}"\n}\n`,
  (n) => `type T${n} struct {\n\tA int\n}\n`,
  (n) => `type I${n} interface {\n\tM() int\n}\n`,
  (n) => `var v${n} = T{\n\tA: 1,\n}\n`,
  (n) => `var (\n\tw${n} = 1\n)\n`,
  (n) => `const c${n} = ${n}\n`,
  (n) => `// F${n} is documented.\n`,
  (n) => `/* block ${n} */\n`,
  (n) => `var raw${n} = \`\n}\nfunc fake${n}() {\n}\n\`\n`,
  (n) => `/*\n}\nfunc inComment${n}() {\n}\n*/\n`,
  (n) => `func w${n}() {\n\tg := func() {\n}\nvar _ = g\n}\n`,
  () => `\n`,
];
/** Single pieces of the constructs above: the text stays broken unless they happen to pair up. */
const GO_PIECES: Fragment[] = [(n) => `func open${n}() {\n`, () => `}\n`, (n) => `var raw${n} = \`\n`, () => '`\n', () => `/*\n`, () => `*/\n`];

const RUST: Fragment[] = [
  (n) => `fn f${n}(a: u32) -> u32 {\n    if a > ${n} {\n        return a;\n    }\n    ${n}\n}\n`,
  (n) => `pub struct S${n} {\n    a: u32,\n}\n`,
  (n) => `#[derive(Debug)]\npub enum E${n} {\n    A,\n}\n`,
  (n) => `impl S${n} {\n    pub fn m(&self) -> u32 {\n        ${n}\n    }\n}\n`,
  (n) => `trait T${n} {\n    fn t(&self);\n}\n`,
  (n) => `mod m${n} {\n    pub fn inner() {}\n}\n`,
  (n) => `use std::x${n};\n`,
  (n) => `const C${n}: u32 = {\n    1\n};\n`,
  (n) => `static A${n}: [u32; 2] = [\n    1, 2,\n];\n`,
  (n) => `/// Doc ${n}.\n`,
  (n) => `// note ${n}\n`,
  (n) => `const RAW${n}: &str = r#"\n}\nfn fake${n}() {\n}\n"#;\n`,
  (n) => `/* outer /* inner */\n}\nfn nested${n}() {\n}\n*/\n`,
  (n) => `fn h${n}(x: bool) {\n    if x {\n}\nelse {\n}\n}\n`,
  (n) => `macro_rules! mac${n} {\n    () => {\n}\n;\n}\n`,
  () => `\n`,
];
/** Single pieces of the constructs above: the text stays broken unless they happen to pair up. */
const RUST_PIECES: Fragment[] = [(n) => `fn open${n}() {\n`, () => `}\n`, (n) => `const RAW${n}: &str = r#"\n`, () => `"#;\n`, () => `/*\n`, () => `*/\n`];

const parsers = new TreeSitterParsers(packagedGrammars);

/** Mostly whole fragments, and one in forty a single piece. */
function source(fragments: Fragment[], pieces: Fragment[]) {
  const fragment = fc.oneof({ weight: 39, arbitrary: fc.constantFrom(...fragments) }, { weight: 1, arbitrary: fc.constantFrom(...pieces) });
  return fc.array(fragment, { minLength: 1, maxLength: 40 }).map((fs) => fs.map((f, n) => f(n)).join(''));
}

async function check(languageId: string, fragments: Fragment[], pieces: Fragment[], runs: number): Promise<void> {
  let joined = 0;
  let cut = 0;
  await fc.assert(
    fc.asyncProperty(source(fragments, pieces), fc.integer({ min: 2, max: 4 }), async (text, n) => {
      const whole = await treeSitterOutline(text, languageId, parsers);
      const cuts = cutPoints(text, languageId, n);
      if (!cuts.length) return;
      cut++;
      const parts = cutText(text, cuts);
      assert.equal(parts.map((p) => p.text).join(''), text);
      const outlines = await Promise.all(parts.map(async (p) => ({ outline: await treeSitterOutline(p.text, languageId, parsers), lineOffset: p.lineOffset })));
      const together = joinOutlines(outlines);
      if (!together) return; // a part did not parse cleanly: the file is parsed whole
      joined++;
      assert.deepEqual(together, whole);
    }),
    { numRuns: runs },
  );
  if (process.env.CHUNKS_LOG) console.log(languageId, { runs, cut, joined });
  // the property held where it matters: many texts were cut, and many cuts joined
  assert.ok(cut > runs / 4, `${languageId}: ${cut} of ${runs} texts cut`);
  assert.ok(joined > runs / 10, `${languageId}: ${joined} of ${runs} texts joined`);
}

describe('core/context outlineChunks (a large file parsed in parts) — property', function () {
  this.timeout(120_000);
  it('C: the joined outline is the whole-file outline', () => check('c', C, C_PIECES, 400));
  it('TypeScript: the joined outline is the whole-file outline', () => check('typescript', TS, TS_PIECES, 400));
  it('JavaScript: the joined outline is the whole-file outline', () => check('javascript', JS, JS_PIECES, 200));
  it('Python: the joined outline is the whole-file outline', () => check('python', PY, PY_PIECES, 400));
  it('Go: the joined outline is the whole-file outline', () => check('go', GO, GO_PIECES, 300));
  it('Rust: the joined outline is the whole-file outline', () => check('rust', RUST, RUST_PIECES, 300));

  it('generated 4 MB C, Go and Rust files are cut near their halves', () => {
    for (const [languageId, text] of [['c', cSource(4_000_000)], ['go', goSource(4_000_000)], ['rust', rustSource(4_000_000)]] as const) {
      const cuts = cutPoints(text, languageId, 2);
      assert.equal(cuts.length, 1, languageId);
      assert.ok(Math.abs(cuts[0]! - text.length / 2) < 10_000, `${languageId}: cut at ${cuts[0]}`);
    }
  });

  it('a Go and a Rust file of 1 MB parsed in two parts give the whole parse\'s outline', async () => {
    for (const [languageId, text] of [['go', goSource(1_000_000)], ['rust', rustSource(1_000_000)]] as const) {
      const parts = cutText(text, cutPoints(text, languageId, 2));
      assert.equal(parts.length, 2, languageId);
      const outlines = await Promise.all(parts.map(async (p) => ({ outline: await treeSitterOutline(p.text, languageId, parsers), lineOffset: p.lineOffset })));
      const whole = await treeSitterOutline(text, languageId, parsers);
      assert.ok(whole!.symbols.length > 1000, languageId);
      assert.deepEqual(joinOutlines(outlines), whole, languageId);
    }
  });
});
