/**
 * A large C# text's method bodies blanked for its outline's parse (src/core/context/csharpBodies.ts over
 * memberBodies.ts): which braces are a body whose bounds are certain, past C#'s verbatim, interpolated and raw
 * strings and its directives, and, as properties on generated C#, that blanking changes nothing but the bodies'
 * characters (line breaks kept), that any text gives sorted bodies between braces, and that a text which parses
 * cleanly has the same outline blanked as whole. Through the worker pool: a large C# file is outlined blanked (a
 * body's syntax error unseen), a small one whole.
 */
import { strict as assert } from 'node:assert';
import * as path from 'node:path';
import fc from 'fast-check';
import { BLANK_BODIES_MIN_CHARS } from '../../../src/core/context/cBodies';
import { emptyCsharpMethodBodies, csharpMethodBodies } from '../../../src/core/context/csharpBodies';
import { OutlinePool } from '../../../src/core/context/node/outlinePool';
import { packagedGrammars, TreeSitterParsers } from '../../../src/core/context/node/treeSitter';
import { inThreadOutlines, outlineText, parseOutline } from '../../../src/core/context/treeOutline';
import { csharpSource } from '../../../bench/context/languageSources';
import { assertEmptied, assertSameOutline, assertSortedBodies } from './sameOutline';

const REPO = path.resolve(__dirname, '../../..');

function bodies(text: string): string[] {
  return csharpMethodBodies(text).map(([start, end]) => text.slice(start, end));
}

type Fragment = (n: number) => string;
/** Members of a class, and the constructs in and around them a brace scan could take for a body's bounds. */
const MEMBERS: Fragment[] = [
  (n) => `        /// <summary>Doc ${n}.</summary>\n        public int M${n}(int a)\n        {\n            if (a > ${n})\n            {\n                return a;\n            }\n            return ${n};\n        }\n`,
  (n) => `        string S${n}() { return "}{" + '}' + '\\'' + "\\"{"; }\n`,
  (n) => `        string V${n}()\n        {\n            return @"\n}\nclass Fake${n} { void F() {} }\n"" {";\n        }\n`,
  (n) => `        string I${n}(int x)\n        {\n            return $"{{ {x} }} {(x > 0 ? "}" : "{")} {x:N2}";\n        }\n`,
  (n) => `        string R${n}()\n        {\n            return """\n                } "" {\n                """;\n        }\n`,
  (n) => `        string RI${n}(int x)\n        {\n            return $$"""{ {{x}} }""" + $@"{x}\n}}";\n        }\n`,
  (n) => `        void C${n}()\n        {\n            /* } */ // }\n            var x = 1;\n        }\n`,
  (n) => `        T G${n}<T>(T a, System.Collections.Generic.List<T> b) where T : class, new()\n        {\n            return a;\n        }\n`,
  (n) => `        public C(int x${n}) : base(x${n})\n        {\n            Init();\n        }\n`,
  (n) => `        [Obsolete("x")]\n        public override string ToString${n}() => "x{";\n`,
  (n) => `        public int P${n} { get; set; } = ${n};\n`,
  (n) => `        public int Q${n}\n        {\n            get { return q; }\n            set { q = value; }\n        }\n`,
  (n) => `        private readonly int[] arr${n} = { 1, 2, ${n} };\n`,
  (n) => `        private readonly Func<int> f${n} = () =>\n        {\n            return ${n};\n        };\n`,
  (n) => `        public static A operator +(A a${n}, A b) { return a${n}; }\n`,
  (n) => `        public abstract void Abs${n}(int x);\n`,
  (n) => `        void Pre${n}()\n        {\n#if DEBUG\n            Log("}");\n#else\n            Log("{");\n#endif\n        }\n`,
  (n) => `        #region R${n}\n        void InRegion${n}() { }\n        #endregion\n`,
  (n) => `        class N${n} : Base\n        {\n            void Inner${n}()\n            {\n                new Thread(() => { Run(); }).Start();\n            }\n        }\n`,
  (n) => `        interface II${n}\n        {\n            int D() { return 1; }\n            int E();\n        }\n`,
  (n) => `        enum E${n} { A = 1, B }\n`,
  (n) => `        record P${n}(int X, int Y)\n        {\n            public int Sum() { return X + Y; }\n        }\n`,
  (n) => `        record struct RS${n}(int X);\n`,
  (n) => `        struct St${n}\n        {\n            public int Get() { return 1; }\n        }\n`,
  (n) => `        public delegate void D${n}(int x);\n`,
  (n) => `        void @class${n}(int @class)\n        {\n            Use(@class);\n        }\n`,
  (n) => `        string U${n}() { return "é😀{"; }\n`,
  (n) => `        void Crlf${n}()\r\n        {\r\n            return;\r\n        }\r\n`,
  () => `\n`,
];
/** Pieces that leave the text broken unless they pair up. */
const PIECES: Fragment[] = [(n) => `        void Open${n}()\n        {\n`, () => `}\n`, () => `        }\n`, () => `/*\n`, () => `*/\n`, () => `@"\n`, () => `"""\n`, () => `#if X\n`, () => `#endif\n`];

function source() {
  const member = fc.oneof({ weight: 29, arbitrary: fc.constantFrom(...MEMBERS) }, { weight: 1, arbitrary: fc.constantFrom(...PIECES) });
  return fc
    .array(member, { minLength: 1, maxLength: 30 })
    .map((ms) => 'using System;\n\nnamespace P\n{\n    public class C\n    {\n' + ms.map((m, n) => m(n)).join('') + '    }\n}\n');
}

describe('core/context csharpBodies (a large C# text parsed with its method bodies blanked)', function () {
  this.timeout(120_000);
  const parsers = new TreeSitterParsers(packagedGrammars);

  it('finds method and constructor bodies past verbatim, interpolated and raw strings, characters, comments and directives', () => {
    const text = [
      'namespace N\n{\n    class A\n    {\n',
      '        int F(int a)\n        {\n            return $"{(a > 0 ? "}" : "{")}" + @"\n}" + \'{\'; // }\n        }\n',
      '        A() : base(1)\n        {\n            x = """\n    }\n""";\n        }\n',
      '        T G<T>() where T : class, new()\n        {\n#if DEBUG\n            Log();\n#endif\n        }\n',
      '    }\n}\n',
    ].join('');
    assert.deepEqual(bodies(text), [
      '\n            return $"{(a > 0 ? "}" : "{")}" + @"\n}" + \'{\'; // }\n        ',
      '\n            x = """\n    }\n""";\n        ',
      '\n#if DEBUG\n            Log();\n#endif\n        ',
    ]);
    // a quote doubled in a verbatim string, before a line break
    assert.deepEqual(bodies('class A\n{\n    void V() { s = @"a ""\n}" + $@"b ""\n}}"; }\n}\n'), [' s = @"a ""\n}" + $@"b ""\n}}"; ']);
    // a file-scoped namespace, a record's and a struct's bodies are read for their members
    assert.deepEqual(bodies('namespace N;\n\nrecord R(int X)\n{\n    int Y() { return X; }\n}\nstruct S\n{\n    void M() { go(); }\n}\n'), [' return X; ', ' go(); ']);
  });

  it('leaves what is no body: properties, field initializers, lambdas, expression bodies, a `where T : class` clause is no type', () => {
    assert.deepEqual(bodies('class A\n{\n    int P { get { return p; } set { p = value; } }\n    int[] a = { 1 };\n    Func<int> f = () => { return 1; };\n}\n'), []);
    assert.deepEqual(bodies('class A\n{\n    string S() => $"{x}";\n    void M() { go(); }\n}\n'), [' go(); ']);
    // with `class` taken for a type, the method's body would be read as members and left whole
    assert.deepEqual(bodies('class A\n{\n    void M<T>() where T : class\n    {\n        if (x) { go(); }\n    }\n}\n'), ['\n        if (x) { go(); }\n    ']);
    assert.deepEqual(bodies('class A\n{\n    void @class() { go(); }\n}\n'), [' go(); ']);
    assert.equal(emptyCsharpMethodBodies('interface I\n{\n    void M();\n}\n'), undefined, 'nothing to blank');
  });

  it('stops where the bounds are not certain, keeping what it found before', () => {
    const first = 'class A\n{\n    void A1() { go(); }\n';
    assert.deepEqual(bodies(first + '    void M()\n    {\n#if X\n        if (a) {\n#else\n        if (b) {\n#endif\n        }\n    }\n}\n'), [' go(); '], 'an #if left open');
    assert.deepEqual(bodies(first + '    void M()\n    {\n#endif\n    }\n}\n'), [' go(); '], 'an #endif of an #if before the body');
    assert.deepEqual(bodies(first + '    void M()\n    {\n#endif\n        go();\n#if X\n    }\n}\n'), [' go(); '], 'an #endif before, an #if after');
    assert.deepEqual(bodies(first + '    void M()\n    {\n        s = @"never closed\n    }\n}\n'), [' go(); ']);
    assert.deepEqual(bodies(first + '    void M()\n    {\n        s = $"{never";\n    }\n}\n'), [' go(); ']);
    assert.deepEqual(bodies(first + '    void M()\n    {\n        if (x) {\n}\n}\n'), [' go(); '], 'a `}` at column 0');
  });

  it('property: emptying takes out only body characters, every line break in them and every other character kept', () => {
    fc.assert(
      fc.property(source(), (text) => {
        const emptied = emptyCsharpMethodBodies(text);
        if (emptied !== undefined) assertEmptied(text, emptied, csharpMethodBodies(text));
      }),
      { numRuns: 500 },
    );
  });

  it('property: any text at all (C#-ish characters, any code unit) gives sorted, disjoint bodies between braces, or none', () => {
    const unit = fc.oneof(
      { weight: 6, arbitrary: fc.constantFrom('class A\n{\n', '    void F()\n    {\n        G();\n    }\n', '    A(int a) : base(a)\n    {\n        X();\n    }\n') },
      { weight: 12, arbitrary: fc.constantFrom('void F(', 'class ', 'where T : ', ') {', ')', '\n}\n', '{', '}', '(', ';', '=', '=>', '.', '<', '>', ' ', '\n') },
      { weight: 2, arbitrary: fc.constantFrom('"', "'", '@"', '$"', '$@"', '"""', '$$"""', '/', '*', '//', '/*', '*/', '\\', '\r', '\n#if X\n', '\n#endif\n', '@') },
      { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 2 }) },
    );
    assertSortedBodies(fc.array(unit, { maxLength: 80 }).map((u) => 'class A\n{\n' + u.join('')), csharpMethodBodies, emptyCsharpMethodBodies, (text, a, b) => text[a - 1] === '{' && text[b] === '}');
  });

  it('property: a text that parses cleanly has the same outline (symbols, ranges, signatures, imports) blanked as whole', async () => {
    const { transformed, compared } = await assertSameOutline(parsers, 'csharp', source(), emptyCsharpMethodBodies, 300);
    assert.ok(transformed > 200 && compared > 100, `${transformed} blanked, ${compared} compared`);
  });

  it('outlineText blanks C# from BLANK_BODIES_MIN_CHARS on', () => {
    const big = csharpSource(BLANK_BODIES_MIN_CHARS + 10_000);
    assert.notEqual(outlineText(big, 'csharp'), big);
    assert.equal(outlineText(big, 'csharp'), emptyCsharpMethodBodies(big));
    const small = csharpSource(BLANK_BODIES_MIN_CHARS - 10_000);
    assert.equal(outlineText(small, 'csharp'), small);
  });

  it("through the pool, a large C# file is outlined blanked (the whole parse's outline; a body's syntax error unseen), a small one whole", async () => {
    const pool = new OutlinePool({ grammarsDir: REPO, size: 1, parallel: 2, partChars: 256 * 1024 });
    try {
      const big = csharpSource(1_000_000);
      const raw = await parseOutline(big, 'csharp', parsers);
      const rawOutline = raw?.outline;
      raw?.free();
      assert.equal(rawOutline?.errorRanges.length, 0);
      assert.deepEqual(await pool.outline(big, 'csharp'), rawOutline);
      const broken = big.replace('                return $"{prefix}-{id}";\n', '                return $"{prefix}-{id}"\n');
      assert.notEqual(broken, big);
      const rawBroken = await parseOutline(broken, 'csharp', parsers);
      assert.ok(rawBroken!.outline!.errorRanges.length > 0);
      rawBroken!.free();
      const pooled = await pool.outline(broken, 'csharp');
      assert.deepEqual(pooled!.errorRanges, []);
      assert.deepEqual(pooled!.symbols, rawOutline!.symbols);
      const small = 'class A\n{\n    void F()\n    {\n        G(1;\n    }\n}\n';
      const here = await inThreadOutlines(parsers).outline(small, 'csharp');
      assert.ok(here!.errorRanges.length > 0);
      assert.deepEqual(await pool.outline(small, 'csharp'), here);
    } finally {
      await pool.close();
    }
  });
});
