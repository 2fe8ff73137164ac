/**
 * A large Java text's method bodies blanked for its outline's parse (src/core/context/javaBodies.ts): which braces
 * are a body whose bounds are certain, and, as properties on generated Java, that blanking changes nothing but the
 * bodies' characters (line breaks kept), that any text gives sorted bodies between braces, and that a text which
 * parses cleanly has the same outline blanked as whole. Through the worker pool: a large Java file is outlined
 * blanked (a body's syntax error unseen), a small one whole.
 */
import { strict as assert } from 'node:assert';
import * as path from 'node:path';
import fc from 'fast-check';
import { BLANK_BODIES_MIN_CHARS } from '../../../src/core/context/cBodies';
import { emptyJavaMethodBodies, javaMethodBodies } from '../../../src/core/context/javaBodies';
import { OutlinePool } from '../../../src/core/context/node/outlinePool';
import { packagedGrammars, TreeSitterParsers } from '../../../src/core/context/node/treeSitter';
import { inThreadOutlines, outlineText, parseOutline } from '../../../src/core/context/treeOutline';
import { javaSource } from '../../../bench/context/generate';
import { assertEmptied, assertSameOutline, assertSortedBodies } from './sameOutline';

const REPO = path.resolve(__dirname, '../../..');

function bodies(text: string): string[] {
  return javaMethodBodies(text).map(([start, end]) => text.slice(start, end));
}

type Fragment = (n: number) => string;
/** Members of a class body, and the constructs in and around them a brace scan could take for a body's bounds. */
const MEMBERS: Fragment[] = [
  (n) => `  /** Doc ${n}. */\n  public int m${n}(int a) {\n    if (a > ${n}) {\n      return a;\n    }\n    return ${n};\n  }\n`,
  (n) => `  String s${n}() {\n    return "}{" + '}' + '\\'' + "\\"{";\n  }\n`,
  (n) => `  String t${n}() {\n    return """\n      }\n      class Fake${n} { void f() {} }\n      \\"""{\n      """;\n  }\n`,
  (n) => `  void c${n}() {\n    /* } */ // }\n    int x = 1;\n  }\n`,
  (n) => `  <T extends Comparable<T>> T g${n}(T a, java.util.List<? super T> b)\n      throws java.io.IOException, IllegalStateException {\n    return a;\n  }\n`,
  (n) => `  C${n}() {\n    super();\n  }\n`,
  (n) => `  @Override\n  @SuppressWarnings({"a", "b"})\n  public String toString${n}() { return "x"; }\n`,
  (n) => `  static {\n    TABLE${n}.put("a", 1);\n  }\n`,
  (n) => `  {\n    count${n}++;\n  }\n`,
  (n) => `  int[] arr${n} = {1, 2, ${n}};\n`,
  (n) => `  Runnable r${n} = new Runnable() {\n    public void run() {\n      go();\n    }\n  };\n`,
  (n) => `  java.util.function.IntSupplier l${n} = () -> {\n    return ${n};\n  };\n`,
  (n) => `  Class<?> k${n} = Object.class;\n`,
  (n) => `  abstract void a${n}(int x);\n`,
  (n) => `  static class N${n} extends Base implements java.io.Serializable {\n    void inner${n}() {\n      new Thread(() -> { run(); }).start();\n    }\n  }\n`,
  (n) => `  interface I${n} {\n    default int d() {\n      return 1;\n    }\n    int e();\n  }\n`,
  (n) => `  enum E${n} {\n    A(1) {\n      int v() { return 1; }\n    },\n    B(2);\n    E${n}(int x) {\n      this.x = x;\n    }\n    int x;\n    int v() { return x; }\n  }\n`,
  (n) => `  record P${n}<T>(T x, int y) implements Comparable<P${n}<T>> {\n    P${n} {\n      assert y >= 0;\n    }\n    public int compareTo(P${n}<T> o) {\n      return 0;\n    }\n  }\n`,
  (n) => `  record Q${n}(int x) {\n    int twice() {\n      return 2 * x;\n    }\n  }\n`,
  (n) => `  @interface Ann${n} {\n    int[] value() default {1, 2};\n  }\n`,
  (n) => `  void record${n}(int record) {\n    record(record);\n  }\n`,
  (n) => `  void sw${n}(int k) {\n    switch (k) {\n      case 1 -> { k++; }\n      default -> {}\n    }\n  }\n`,
  (n) => `  String u${n}() {\n    return "é😀{";\n  }\n`,
  (n) => `  void crlf${n}() {\r\n    return;\r\n  }\r\n`,
  () => `\n`,
];
/** Pieces that leave the text broken unless they pair up. */
const PIECES: Fragment[] = [(n) => `  void open${n}() {\n`, () => `}\n`, () => `  }\n`, () => `/*\n`, () => `*/\n`, () => `"\n`, () => `"""\n`, () => `(\n`];

function source() {
  const member = fc.oneof({ weight: 29, arbitrary: fc.constantFrom(...MEMBERS) }, { weight: 1, arbitrary: fc.constantFrom(...PIECES) });
  return fc
    .array(member, { minLength: 1, maxLength: 30 })
    .map((ms) => 'package p;\n\nimport java.util.Map;\n\npublic class A {\n' + ms.map((m, n) => m(n)).join('') + '}\n');
}

describe('core/context javaBodies (a large Java text parsed with its method bodies blanked)', function () {
  this.timeout(120_000);
  const parsers = new TreeSitterParsers(packagedGrammars);

  it('finds the bodies of methods, constructors and initializers past braces in strings, characters, text blocks and comments', () => {
    const text = [
      'class A {\n',
      '  int f(int a) throws E, b.F<G> {\n    if (a) { return "}"; }\n    return \'{\'; // }\n  }\n',
      '  A() {\n    super();\n  }\n',
      '  static {\n    x = """\n  }\n""";\n  }\n',
      '  {\n    y++;\n  }\n',
      '  class B {\n    void g() { h(); }\n  }\n',
      '  enum E {\n    X(1) {\n      int v() { return 1; }\n    };\n    E(int k) {\n      this.k = k;\n    }\n  }\n',
      '}\n',
    ].join('');
    assert.deepEqual(bodies(text), [
      '\n    if (a) { return "}"; }\n    return \'{\'; // }\n  ',
      '\n    super();\n  ',
      '\n    x = """\n  }\n""";\n  ',
      '\n    y++;\n  ',
      ' h(); ',
      '\n      int v() { return 1; }\n    ',
      '\n      this.k = k;\n    ',
    ]);
  });

  it('leaves what is no body: field initializers, arrays, anonymous classes, lambdas, annotation defaults, compact constructors', () => {
    assert.deepEqual(bodies('class A {\n  int[] a = {1};\n  Runnable r = new Runnable() {\n    public void run() {}\n  };\n}\n'), []);
    assert.deepEqual(bodies('class A {\n  Supplier<X> s = () -> {\n    return x;\n  };\n}\n'), []);
    assert.deepEqual(bodies('@interface A {\n  int[] v() default {1};\n}\n'), []);
    assert.deepEqual(bodies('record R(int x) {\n  R {\n    check(x);\n  }\n}\n'), []);
    // a record's body is a type's: its methods are read, not the body as a whole
    assert.deepEqual(bodies('record R(int x) {\n  int y() {\n    return x;\n  }\n}\n'), ['\n    return x;\n  ']);
    assert.deepEqual(bodies('class A {\n  Class<?> c = Object.class;\n  void m() {\n    go();\n  }\n}\n'), ['\n    go();\n  ']);
    assert.equal(emptyJavaMethodBodies('interface I {\n  void m();\n}\n'), undefined, 'nothing to blank');
  });

  it('stops where the bounds are not certain, keeping what it found before', () => {
    // a `}` at column 0 inside a body: the braces did not balance
    assert.deepEqual(bodies('class A {\n  void a() {\n    go();\n  }\n  void m() {\n    if (x) {\n}\n}\n'), ['\n    go();\n  ']);
    assert.deepEqual(bodies('class A {\n  void a() {\n    go();\n  }\n  void m() {\n    s = "\n  }\n}\n'), ['\n    go();\n  '], 'a string left open');
    assert.deepEqual(bodies('class A {\n  void a() {\n    go();\n  }\n  void m() {\n    /* never closed\n  }\n}\n'), ['\n    go();\n  ']);
    assert.deepEqual(bodies('class A {\n  void a() {\n    go();\n  }\n}\n}\nclass B {\n  void b() {\n    go();\n  }\n}\n'), ['\n    go();\n  '], 'a `}` too many');
    assert.deepEqual(bodies('{\n  x();\n}\nclass A {\n  void a() {\n    go();\n  }\n}\n'), [], 'a block outside any type');
  });

  it('property: emptying takes out only body characters, every line break in them and every other character kept', () => {
    fc.assert(
      fc.property(source(), (text) => {
        const emptied = emptyJavaMethodBodies(text);
        if (emptied !== undefined) assertEmptied(text, emptied, javaMethodBodies(text));
      }),
      { numRuns: 500 },
    );
  });

  it('property: any text at all (Java-ish characters, any code unit) gives sorted, disjoint bodies between braces, or none', () => {
    const unit = fc.oneof(
      { weight: 6, arbitrary: fc.constantFrom('class A {\n', '  void f() {\n    g();\n  }\n', '  A(int a) throws E {\n    x();\n  }\n', '  static {\n  }\n') },
      { weight: 12, arbitrary: fc.constantFrom('void f(', 'class ', 'record R', ') {', ')', '\n}\n', '{', '}', '(', ';', '=', '.', ' ', '\n', 'static ') },
      { weight: 2, arbitrary: fc.constantFrom('"', "'", '"""', '/', '*', '//', '/*', '*/', '\\', '\r') },
      { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 2 }) },
    );
    assertSortedBodies(fc.array(unit, { maxLength: 80 }).map((u) => 'class A {\n' + u.join('')), javaMethodBodies, emptyJavaMethodBodies, (text, a, b) => text[a - 1] === '{' && text[b] === '}');
  });

  it('property: a text that parses cleanly has the same outline (symbols, ranges, signatures, imports) blanked as whole', async () => {
    const { transformed, compared } = await assertSameOutline(parsers, 'java', source(), emptyJavaMethodBodies, 300);
    assert.ok(transformed > 200 && compared > 100, `${transformed} blanked, ${compared} compared`);
  });

  it('outlineText blanks Java from BLANK_BODIES_MIN_CHARS on, and nothing else', () => {
    const big = javaSource(BLANK_BODIES_MIN_CHARS + 10_000);
    assert.notEqual(outlineText(big, 'java'), big);
    assert.equal(outlineText(big, 'java'), emptyJavaMethodBodies(big));
    assert.equal(outlineText(big, 'ruby'), big);
    const small = javaSource(BLANK_BODIES_MIN_CHARS - 10_000);
    assert.equal(outlineText(small, 'java'), small);
  });

  it("through the pool, a large Java file is outlined blanked (the whole parse's outline; a body's syntax error unseen), a small one whole", async () => {
    const pool = new OutlinePool({ grammarsDir: REPO, size: 1, parallel: 2, partChars: 256 * 1024 });
    try {
      const big = javaSource(1_000_000);
      const raw = await parseOutline(big, 'java', parsers);
      const rawOutline = raw?.outline;
      raw?.free();
      assert.equal(rawOutline?.errorRanges.length, 0);
      assert.ok(rawOutline!.symbols[0]!.children!.length > 1000);
      assert.deepEqual(await pool.outline(big, 'java'), rawOutline);
      const broken = big.replace('        return prefix + "-" + id;\n', '        return prefix + "-" + id\n');
      assert.notEqual(broken, big);
      const rawBroken = await parseOutline(broken, 'java', parsers);
      assert.ok(rawBroken!.outline!.errorRanges.length > 0);
      rawBroken!.free();
      const pooled = await pool.outline(broken, 'java');
      assert.deepEqual(pooled!.errorRanges, []);
      assert.deepEqual(pooled!.symbols, rawOutline!.symbols);
      const small = 'class A {\n  void f() {\n    g(1;\n  }\n}\n';
      const here = await inThreadOutlines(parsers).outline(small, 'java');
      assert.ok(here!.errorRanges.length > 0);
      assert.deepEqual(await pool.outline(small, 'java'), here);
    } finally {
      await pool.close();
    }
  });
});
