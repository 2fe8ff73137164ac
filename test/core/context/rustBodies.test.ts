/**
 * A large Rust text's function bodies blanked for its outline's parse (src/core/context/rustBodies.ts): which braces
 * are a body whose bounds are certain in rustfmt's layout, and, as properties on generated Rust, that blanking
 * changes nothing but the bodies' characters (line breaks kept), that any text gives sorted bodies between braces,
 * and that a text which parses cleanly has the same outline blanked as whole. Through the worker pool: a large Rust
 * file is outlined blanked and in parts (a body's syntax error unseen), a small one whole.
 */
import { strict as assert } from 'node:assert';
import * as path from 'node:path';
import fc from 'fast-check';
import { BLANK_BODIES_MIN_CHARS } from '../../../src/core/context/cBodies';
import { emptyRustFunctionBodies, rustFunctionBodies } from '../../../src/core/context/rustBodies';
import { OutlinePool } from '../../../src/core/context/node/outlinePool';
import { packagedGrammars, TreeSitterParsers } from '../../../src/core/context/node/treeSitter';
import { inThreadOutlines, outlineText, parseOutline } from '../../../src/core/context/treeOutline';
import { rustSource } from '../../../bench/context/generate';
import { assertEmptied, assertSameOutline, assertSortedBodies } from './sameOutline';

const REPO = path.resolve(__dirname, '../../..');

function bodies(text: string): string[] {
  return rustFunctionBodies(text).map(([start, end]) => text.slice(start, end));
}

type Fragment = (n: number) => string;
/** Items, and the constructs around and inside them a brace scan could take for a body's bounds. */
const ITEMS: Fragment[] = [
  (n) => `/// Doc ${n}.\npub fn f${n}(a: u32) -> u32 {\n    if a > ${n} {\n        return a;\n    }\n    ${n}\n}\n`,
  (n) => `fn s${n}() -> String {\n    let x = "}{\n}\nfn fake${n}() {\n";\n    x.to_string() + "\\"{"\n}\n`,
  (n) => `fn r${n}() -> &'static str {\n    r#"\n}\n"#\n}\n`,
  (n) => `fn ch${n}<'a>(x: &'a str) -> char {\n    let _ = b'{';\n    if x.is_empty() { '}' } else { '\\'' }\n}\n`,
  (n) => `fn c${n}() {\n    /* } /* nested } */ { */ // }\n    let x = 1;\n}\n`,
  (n) => `pub(crate) async unsafe fn long${n}<T>(\n    a: T,\n    b: [u8; 4],\n) -> Result<(), String>\nwhere\n    T: Clone,\n{\n    Ok(())\n}\n`,
  (n) => `const fn one${n}() -> u32 { ${n} }\n`,
  (n) => `extern "C" fn ext${n}(x: i32) -> i32 {\n    x\n}\n`,
  (n) => `pub struct S${n} {\n    pub a: u32,\n}\n`,
  (n) => `impl S${n} {\n    /// Method.\n    pub fn get(&self) -> u32 {\n        let c = |x: u32| {\n            x + 1\n        };\n        c(self.a)\n    }\n\n    fn sig(&self);\n}\n`,
  (n) => `pub trait T${n} {\n    fn req(&self) -> u32;\n    fn def(&self) -> u32 {\n        'outer: loop {\n            break 'outer 1;\n        }\n    }\n}\n`,
  (n) => `mod m${n} {\n    pub fn inner() {\n        fn nested() {\n        }\n        nested();\n    }\n}\n`,
  (n) => `macro_rules! mac${n} {\n    ($x:ident) => {\n        fn $x() {\n        }\n    };\n}\n`,
  (n) => `static TABLE${n}: &str = "\nfn not_a_fn() {\n}\n";\n`,
  (n) => `fn é${n}() -> &'static str {\n    "é😀{"\n}\n`,
  (n) => `fn crlf${n}() {\r\n    return;\r\n}\r\n`,
  () => `\n`,
];
/** Pieces that leave the text broken unless they pair up. */
const PIECES: Fragment[] = [(n) => `fn open${n}() {\n`, () => `}\n`, () => `/*\n`, () => `*/\n`, () => `"\n`, () => `r#"\n`, () => `"#\n`];

function source() {
  const item = fc.oneof({ weight: 29, arbitrary: fc.constantFrom(...ITEMS) }, { weight: 1, arbitrary: fc.constantFrom(...PIECES) });
  return fc.array(item, { minLength: 1, maxLength: 30 }).map((is) => 'use std::fmt;\n\n' + is.map((f, n) => f(n)).join(''));
}

describe('core/context rustBodies (a large Rust text parsed with its function bodies blanked)', function () {
  this.timeout(120_000);
  const parsers = new TreeSitterParsers(packagedGrammars);

  it('finds the bodies of functions and methods past braces in strings, raw strings, characters, lifetimes and nested comments', () => {
    const text = [
      'fn f(a: u32) -> u32 {\n    if a { return "}".len(); }\n    \'{\' as u32 // }\n}\n',
      'impl S {\n    pub fn m<\'a>(&\'a self) -> &\'a str {\n        r#"say "}"\n    }\n"#\n    }\n}\n',
      'fn w<T>(x: T)\nwhere\n    T: Clone,\n{\n    /* /* } */ } */\n}\n',
    ].join('');
    assert.deepEqual(bodies(text), [
      '\n    if a { return "}".len(); }\n    \'{\' as u32 // }\n',
      '\n        r#"say "}"\n    }\n"#\n    ',
      '\n    /* /* } */ } */\n',
    ]);
  });

  it('leaves what is not certainly a body: one-line bodies, no body, a brace open at the `}` line, heads inside strings', () => {
    assert.deepEqual(bodies('const fn one() -> u32 { 1 }\n'), []);
    // a function without a body: the struct after it is never taken for one
    assert.deepEqual(bodies('trait T {\n    fn sig(&self);\n}\nstruct S {\n    a: u32,\n}\n'), []);
    // a closure closed at the function's indent: the `}` line comes with a brace open, so the function stays whole
    assert.deepEqual(bodies('fn cl() {\n    let g = || {\n}\n    ;\n    g()\n}\nfn next() {\n    ()\n}\n'), ['\n    ()\n']);
    assert.deepEqual(bodies('static S: &str = "\nfn fake() {\n}\n";\n'), [], 'a head inside a string');
    assert.deepEqual(bodies('/*\nfn fake() {\n}\n*/\n'), [], 'a head inside a comment');
    assert.deepEqual(bodies('fn open() {\n    let s = r#"\n}\n'), [], 'a raw string that never closes');
    assert.deepEqual(bodies('fn open() {\n    ()\n'), [], 'never closed');
    assert.equal(emptyRustFunctionBodies('struct S {\n    a: u32,\n}\n'), undefined, 'nothing to blank');
  });

  it('property: emptying takes out only body characters, every line break in them and every other character kept', () => {
    fc.assert(
      fc.property(source(), (text) => {
        const emptied = emptyRustFunctionBodies(text);
        if (emptied !== undefined) assertEmptied(text, emptied, rustFunctionBodies(text));
      }),
      { numRuns: 500 },
    );
  });

  it('property: any text at all (Rust-ish characters, any code unit) gives sorted, disjoint bodies between braces, or none', () => {
    const unit = fc.oneof(
      { weight: 3, arbitrary: fc.constantFrom('fn f() {\n    g();\n}\n', '    pub fn m(&self) {\n        x\n    }\n') },
      { weight: 12, arbitrary: fc.constantFrom('fn f(', 'pub fn ', ') {', ')', '\n}\n', '{', '}', '(', '[', ']', ';', ' ', '\n', '    ') },
      { weight: 2, arbitrary: fc.constantFrom('"', "'", 'r#"', '"#', 'b', '/', '*', '//', '/*', '*/', '\\', '\r') },
      { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 2 }) },
    );
    assertSortedBodies(fc.array(unit, { maxLength: 80 }).map((u) => u.join('')), rustFunctionBodies, emptyRustFunctionBodies, (text, a, b) => text[a - 1] === '{' && text[b] === '}');
  });

  it('property: a text that parses cleanly has the same outline (symbols, ranges, signatures, imports) blanked as whole', async () => {
    const { transformed, compared } = await assertSameOutline(parsers, 'rust', source(), emptyRustFunctionBodies, 300);
    assert.ok(transformed > 200 && compared > 100, `${transformed} blanked, ${compared} compared`);
  });

  it('outlineText blanks Rust from BLANK_BODIES_MIN_CHARS on', () => {
    const big = rustSource(BLANK_BODIES_MIN_CHARS + 10_000);
    assert.notEqual(outlineText(big, 'rust'), big);
    assert.equal(outlineText(big, 'rust'), emptyRustFunctionBodies(big));
    const small = rustSource(BLANK_BODIES_MIN_CHARS - 10_000);
    assert.equal(outlineText(small, 'rust'), small);
  });

  it("through the pool, a large Rust file is outlined blanked and in parts (the whole parse's outline; a body's syntax error unseen), a small one whole", async () => {
    const pool = new OutlinePool({ grammarsDir: REPO, size: 1, parallel: 2, partChars: 256 * 1024 });
    try {
      const big = rustSource(1_000_000);
      const raw = await parseOutline(big, 'rust', parsers);
      const rawOutline = raw?.outline;
      raw?.free();
      assert.equal(rawOutline?.errorRanges.length, 0);
      assert.deepEqual(await pool.outline(big, 'rust'), rawOutline);
      const broken = big.replace('            return format!("{}-{}", prefix, self.id);\n', '            return format!("{}-{}", prefix, self.id;\n');
      assert.notEqual(broken, big);
      const rawBroken = await parseOutline(broken, 'rust', parsers);
      assert.ok(rawBroken!.outline!.errorRanges.length > 0);
      rawBroken!.free();
      const pooled = await pool.outline(broken, 'rust');
      assert.deepEqual(pooled!.errorRanges, []);
      assert.deepEqual(pooled!.symbols, rawOutline!.symbols);
      const small = 'fn f() {\n    g(1;\n}\n';
      const here = await inThreadOutlines(parsers).outline(small, 'rust');
      assert.ok(here!.errorRanges.length > 0);
      assert.deepEqual(await pool.outline(small, 'rust'), here);
    } finally {
      await pool.close();
    }
  });
});
