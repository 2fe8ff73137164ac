/**
 * A large C text's function bodies blanked for its outline's parse (src/core/context/cBodies.ts): which braces are a
 * body whose bounds are certain, and, as properties on generated C, that blanking changes nothing but the bodies'
 * characters (line breaks kept) and that a text which parses cleanly has the same outline blanked as whole. Through
 * the worker pool: a large C text is outlined blanked (its bodies' syntax errors unseen), a small one whole.
 */
import { strict as assert } from 'node:assert';
import * as path from 'node:path';
import fc from 'fast-check';
import { blankFunctionBodies, BLANK_BODIES_MIN_CHARS, functionBodies } from '../../../src/core/context/cBodies';
import { OutlinePool } from '../../../src/core/context/node/outlinePool';
import { packagedGrammars, TreeSitterParsers } from '../../../src/core/context/node/treeSitter';
import { inThreadOutlines, outlineText, parseOutline } from '../../../src/core/context/treeOutline';
import { cSource } from '../../../bench/context/generate';
import { assertSameOutline } from './sameOutline';

const REPO = path.resolve(__dirname, '../../..');

/** The texts of the bodies functionBodies finds in `text`. */
function bodies(text: string): string[] {
  return (functionBodies(text) ?? []).map(([start, end]) => text.slice(start, end));
}

/** Function definitions, and the constructs around and inside them a brace scan could take for a body's bounds. */
const C: ((n: number) => string)[] = [
  (n) => `int f${n}(int a) {\n  if (a) {\n    return a;\n  }\n  return ${n};\n}\n`,
  (n) => `static void g${n}(void)\n{\n}\n`,
  (n) => `int one${n}(void) { return ${n}; }\n`,
  (n) => `static const char *s${n}(void) {\n  return "}\\"{";\n}\n`,
  (n) => `int c${n}(void) {\n  return '}' + '{' + '\\'';\n}\n`,
  (n) => `int k${n}(void) {\n  /* } */ // }\n  return 0;\n}\n`,
  (n) => `int p${n}(int a) {\n#if A${n}\n  if (a) {\n#else\n  if (!a) {\n#endif\n    a++;\n  }\n  return a;\n}\n`,
  (n) => `int q${n}(void) {\n#define OPEN${n} {\n  return 0;\n}\n`,
  (n) => `#ifdef FLAG${n}\nint i${n}(int a) {\n#else\nint i${n}(int a, int b) {\n#endif\n  return a;\n}\n`,
  (n) => `int kr${n}(a)\n  int a;\n{\n  return a;\n}\n`,
  (n) => `struct __attribute__((packed)) {\n  int a;\n} packed${n};\n`,
  (n) => `int (*fp${n}(void))(int) {\n  return 0;\n}\n`,
  (n) => `struct t${n} {\n  int a;\n};\n`,
  (n) => `int arr${n}[] = {\n  1, 2\n};\n`,
  (n) => `typedef struct {\n  int a;\n} ty${n}_t;\n`,
  (n) => `/* doc ${n} { */\n`,
  (n) => `#define M${n}(x) \\\n  { (x); }\n`,
  (n) => `#include "h${n}.h"\n`,
  (n) => `const char *u${n}(void) {\n  return "é😀";\n}\n`,
  (n) => `int crlf${n}(void) {\r\n  return ${n};\r\n}\r\n`,
  () => `\n`,
];
/** Pieces that leave the text broken unless they pair up. */
const C_PIECES: ((n: number) => string)[] = [
  (n) => `int open${n}(void) {\n`,
  () => `}\n`,
  () => `#endif\n`,
  (n) => `#if X${n}\n`,
  () => `/*\n`,
  () => `*/\n`,
  () => `"\n`,
];

function source() {
  const fragment = fc.oneof({ weight: 29, arbitrary: fc.constantFrom(...C) }, { weight: 1, arbitrary: fc.constantFrom(...C_PIECES) });
  return fc.array(fragment, { minLength: 1, maxLength: 30 }).map((fs) => fs.map((f, n) => f(n)).join(''));
}

describe('core/context cBodies (a large C text parsed with its function bodies blanked)', function () {
  this.timeout(120_000);
  const parsers = new TreeSitterParsers(packagedGrammars);

  it('finds the bodies of definitions, one-line ones too, past braces in strings, characters, comments and directives', () => {
    const text = [
      'int f(int a) {\n  if (a) { return "}"; }\n  return \'{\'; /* } */\n}\n',
      'static void g(void)\n{\n#define X {\n}\n',
      'int one(void) { return 1; }\n',
      'int lib(void) // a comment\n{\n}\n',
    ].join('');
    assert.deepEqual(bodies(text), ['\n  if (a) { return "}"; }\n  return \'{\'; /* } */\n', '\n#define X {\n', ' return 1; ', '\n']);
  });

  it('leaves what is not certainly a body: structs, initialisers, K&R, attributes, unbalanced #if branches, #if across the body', () => {
    assert.deepEqual(bodies('struct s {\n  int a;\n};\nint a[] = {\n  1\n};\ntypedef struct { int a; } t;\n'), []);
    assert.deepEqual(bodies('int kr(a)\n  int a;\n{\n  return a;\n}\n'), []);
    assert.deepEqual(bodies('struct __attribute__((packed)) {\n  int a;\n} p;\n'), []);
    assert.deepEqual(bodies('int (*fp(void))(int) {\n  return 0;\n}\n'), []);
    // a `{` in each branch: the `}` at the line's start closes the block, and the next function is found again
    assert.deepEqual(bodies('int p(int a) {\n#if A\n  if (a) {\n#else\n  if (!a) {\n#endif\n  }\n}\nint next(void) {\n  return 1;\n}\n'), ['\n  return 1;\n']);
    assert.deepEqual(bodies('#ifdef F\nint i(int a) {\n#else\nint i(int a, int b) {\n#endif\n  return a;\n}\n'), []);
    // a parameter list opened in each branch: the `}` at a line's start ends that too
    assert.deepEqual(bodies('#ifdef F\nint i(int a,\n#else\nint i(int b,\n#endif\n  int c) {\n  return c;\n}\nint next(void) {\n  return 1;\n}\n'), ['\n  return 1;\n']);
    // an #if opened before the body and closed in it (or the other way round) stays whole
    assert.deepEqual(bodies('#if A\nint f(void) {\n  return 1;\n#endif\n}\n'), []);
    assert.deepEqual(bodies('int f(void) {\n#if A\n  return 1;\n}\n#endif\n'), []);
    // a body closed by an indented `}` on a later line is not certain (inside `extern "C" {` it is not at the top)
    assert.deepEqual(bodies('int f(void) {\n  return 1;\n  }\n'), []);
    assert.deepEqual(bodies('extern "C" {\nint e(void) {\n}\n}\n'), []);
  });

  it('an unclosed comment leaves the text whole; an unclosed quote ends with its line, and a body holding one stays', () => {
    assert.equal(blankFunctionBodies('int f(void) {\n  return 1;\n}\n/* open'), undefined);
    assert.equal(blankFunctionBodies('int f(void) {\n  return "open;\n}\n'), undefined);
    assert.equal(blankFunctionBodies('struct s { int a; };\n'), undefined, 'no body: nothing to blank');
    // prose in a skipped group: the rest of the file is still scanned
    assert.deepEqual(bodies("#if 0\nthis doesn't build {\n#endif\nint f(void) {\n  return 1;\n}\n"), ['\n  return 1;\n']);
    assert.deepEqual(bodies("int f(void) {\n  return 'x;\n}\nint g(void) {\n  return 2;\n}\n"), ['\n  return 2;\n']);
  });

  it('property: blanking turns only body characters into spaces, every line break and every other character kept', () => {
    fc.assert(
      fc.property(source(), (text) => {
        const blanked = blankFunctionBodies(text);
        if (blanked === undefined) return;
        assert.equal(blanked.length, text.length);
        const inside = new Uint8Array(text.length);
        for (const [start, end] of functionBodies(text)!) inside.fill(1, start, end);
        for (let i = 0; i < text.length; i++) {
          if (inside[i] && text[i] !== '\n' && text[i] !== '\r') assert.equal(blanked[i], ' ', `at ${i}`);
          else assert.equal(blanked[i], text[i], `at ${i}`);
        }
      }),
      { numRuns: 500 },
    );
  });

  it('property: any text at all (C-ish characters, any code unit) gives sorted, disjoint bodies inside it, or none', () => {
    const unit = fc.oneof(
      { weight: 2, arbitrary: fc.constantFrom('int f(void) {\n  g();\n}\n', 'int h(int a) { return a; }\n') },
      { weight: 12, arbitrary: fc.constantFrom('int f(', 'g(void', ') {', ')', '\n}\n', '{', '}', '(', ' ', '\n', ';') },
      { weight: 2, arbitrary: fc.constantFrom('"', "'", '/', '*', '#', '#if', '#endif', '\\', '\r') },
      { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 2 }) },
    );
    let withBodies = 0;
    fc.assert(
      fc.property(fc.array(unit, { maxLength: 80 }).map((u) => u.join('')), (text) => {
        const found = functionBodies(text);
        const blanked = blankFunctionBodies(text);
        if (found === undefined || found.length === 0) return assert.equal(blanked, undefined);
        withBodies++;
        let end = 0;
        for (const [a, b] of found) {
          assert.ok(a >= end && a <= b && b <= text.length && text[a - 1] === '{' && text[b] === '}', `${a}-${b}`);
          end = b;
        }
        assert.equal(blanked!.length, text.length);
      }),
      { numRuns: 2000 },
    );
    assert.ok(withBodies > 200, `${withBodies} of 2000 texts had a body`);
  });

  it('property: a text that parses cleanly has the same outline (symbols, ranges, signatures, imports) blanked as whole', async () => {
    const { transformed, compared } = await assertSameOutline(parsers, 'c', source(), blankFunctionBodies, 300);
    assert.ok(transformed > 200 && compared > 100, `${transformed} blanked, ${compared} compared`);
  });

  it('outlineText blanks C from BLANK_BODIES_MIN_CHARS on, and nothing else', () => {
    const big = cSource(BLANK_BODIES_MIN_CHARS + 10_000);
    assert.notEqual(outlineText(big, 'c'), big);
    assert.equal(outlineText(big, 'c'), blankFunctionBodies(big));
    assert.equal(outlineText(big, 'python'), big);
    const small = cSource(BLANK_BODIES_MIN_CHARS - 10_000);
    assert.equal(outlineText(small, 'c'), small);
  });

  it('through the pool, a large C file is outlined blanked (the whole parse\'s symbols; a body\'s syntax error unseen), a small one whole', async () => {
    const pool = new OutlinePool({ grammarsDir: REPO, size: 1, parallel: 2, partChars: 256 * 1024 });
    try {
      const big = cSource(1_000_000);
      const raw = await parseOutline(big, 'c', parsers);
      const rawOutline = raw?.outline;
      raw?.free();
      assert.equal(rawOutline?.errorRanges.length, 0);
      assert.deepEqual(await pool.outline(big, 'c'), rawOutline);
      // an edit in a body that keeps every line's length: the same blanked text, the outline the worker kept
      const flipped = big.replace(/if \(a->id < b->id\) return -1;/g, 'if (a->id > b->id) return -1;');
      assert.notEqual(flipped, big);
      assert.equal(outlineText(flipped, 'c'), outlineText(big, 'c'));
      assert.deepEqual(await pool.outline(flipped, 'c'), rawOutline);
      // a syntax error inside a body: the whole parse reports it, the blanked one (both parts, or the whole) does not
      const broken = big.replace('  return strcmp(a->name, b->name);', '  return strcmp(a->name, b->name;');
      assert.notEqual(broken, big);
      const rawBroken = await parseOutline(broken, 'c', parsers);
      assert.ok(rawBroken!.outline!.errorRanges.length > 0);
      rawBroken!.free();
      const pooled = await pool.outline(broken, 'c');
      assert.deepEqual(pooled!.errorRanges, []);
      assert.deepEqual(pooled!.symbols, rawOutline!.symbols);
      // below the size, the error is seen, in the pool and in-thread alike
      const small = 'int f(void) {\n  return g(1;\n}\nint h(void) {\n  return 2;\n}\n';
      const here = await inThreadOutlines(parsers).outline(small, 'c');
      assert.ok(here!.errorRanges.length > 0);
      assert.deepEqual(await pool.outline(small, 'c'), here);
    } finally {
      await pool.close();
    }
  });
});
