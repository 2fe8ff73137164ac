/**
 * A large C++ text's function bodies emptied for its outline's parse (src/core/context/cppBodies.ts over
 * layoutBodies.ts): which braces are a body whose bounds are certain in clang-format's layout, in namespaces and
 * classes, past raw strings, characters, digit separators, comments and directives, and, as properties on generated
 * C++, that emptying takes out nothing but the bodies' characters (line breaks kept), that any text gives
 * sorted bodies between braces, and that a text which parses cleanly has the same outline emptied as whole.
 */
import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { BLANK_BODIES_MIN_CHARS } from '../../../src/core/context/cBodies';
import { emptyCppFunctionBodies, cppFunctionBodies } from '../../../src/core/context/cppBodies';
import { packagedGrammars, TreeSitterParsers } from '../../../src/core/context/node/treeSitter';
import { outlineText } from '../../../src/core/context/treeOutline';
import { cppSource } from '../../../bench/context/languageSources';
import { assertEmptied, assertSameOutline, assertSortedBodies } from './sameOutline';

function bodies(text: string): string[] {
  return cppFunctionBodies(text).map(([start, end]) => text.slice(start, end));
}

type Fragment = (n: number) => string;
/** Declarations, and the constructs in and around them a brace scan could take for a body's bounds. */
const ITEMS: Fragment[] = [
  (n) => `// Doc ${n}.\nint f${n}(int a) {\n  if (a > ${n}) {\n    return a;\n  }\n  return ${n};\n}\n`,
  (n) => `std::string s${n}() {\n  return "}{" + std::string(1, '}') + '\\'' + "\\"{";\n}\n`,
  (n) => `const char* raw${n}() {\n  return R"x(\n}\nint fake${n}() {\n)x";\n}\n`,
  (n) => `long sep${n}() {\n  return 1'000'000 + 0x1'0;\n}\n`,
  (n) => `void c${n}() {\n  /* } */ // }\n  int x = 1;\n}\n`,
  (n) => `namespace ns${n} {\n\nstatic std::vector<int> g(const std::map<int, int>& m,\n                          int k) {\n  return {};\n}\n\n}  // namespace ns${n}\n`,
  (n) => `class K${n} : public Base {\n public:\n  K${n}() : x_(1) {\n    init();\n  }\n  ~K${n}() override {\n    done();\n  }\n  int get() const noexcept {\n    return x_;\n  }\n  int sig(int a);\n\n private:\n  int x_;\n};\n`,
  (n) => `int K${n}::sig(int a) {\n  return a;\n}\n`,
  (n) => `template <typename T>\nT id${n}(T x) {\n  return x;\n}\n`,
  (n) => `void pre${n}() {\n#if DEBUG\n  log("}");\n#else\n  log("{");\n#endif\n}\n`,
  (n) => `#define M${n}(x) \\\n  int x() {     \\\n    return 1;   \\\n  }\n`,
  (n) => `auto l${n} = [](int x) {\n  return x;\n};\n`,
  (n) => `int one${n}() { return ${n}; }\n`,
  (n) => `extern "C" {\nint ext${n}(int x);\n}\n`,
  (n) => `struct S${n} {\n  int a;\n};\n`,
  (n) => `enum class E${n} { A, B };\n`,
  (n) => `void crlf${n}() {\r\n  return;\r\n}\r\n`,
  () => `\n`,
];
/** Pieces that leave the text broken unless they pair up. */
const PIECES: Fragment[] = [(n) => `void open${n}() {\n`, () => `}\n`, () => `/*\n`, () => `*/\n`, () => `"\n`, () => `#if X\n`, () => `#endif\n`];

function source() {
  const item = fc.oneof({ weight: 29, arbitrary: fc.constantFrom(...ITEMS) }, { weight: 1, arbitrary: fc.constantFrom(...PIECES) });
  return fc.array(item, { minLength: 1, maxLength: 30 }).map((is) => '#include <map>\n#include <string>\n\n' + is.map((f, n) => f(n)).join(''));
}

describe('core/context cppBodies (a large C++ text parsed with its function bodies emptied)', function () {
  this.timeout(120_000);
  const parsers = new TreeSitterParsers(packagedGrammars);

  it('finds bodies in namespaces and classes past raw strings, characters, digit separators, comments and directives', () => {
    const text = [
      'namespace n {\n\nint f(int a) {\n  return a > 1\'000 ? \'}\' : \'{\'; // }\n}\n\n}  // namespace n\n',
      'class K {\n  K() : x_(1) {\n    s = R"d(\n  }\n)d";\n  }\n};\n',
      'void p() {\n#ifdef X\n  a({);\n#else\n  a(});\n#endif\n}\n',
    ].join('');
    assert.deepEqual(bodies(text), [
      "\n  return a > 1'000 ? '}' : '{'; // }\n",
      '\n    s = R"d(\n  }\n)d";\n  ',
      '\n#ifdef X\n  a({);\n#else\n  a(});\n#endif\n',
    ]);
  });

  it('leaves what is not certainly a body: statements, lambdas, one-line bodies, braced initializers, #if left open, macros', () => {
    assert.deepEqual(bodies('void f() {\n  if (a) {\n    go();\n  }\n  for (;;) {\n    go();\n  }\n}\n').length, 1);
    assert.deepEqual(bodies('if (a) {\n  go();\n}\nwhile (x) {\n  go();\n}\n'), []);
    assert.deepEqual(bodies('auto l = [](int x) {\n  return x;\n};\nint one() { return 1; }\n'), []);
    assert.deepEqual(bodies('K::K(int b)\n    : a_(1), b_{b} {\n  init();\n}\n'), []);
    assert.deepEqual(bodies('void m() {\n#if X\n  go();\n}\n#endif\n'), [], 'an #if left open at the `}` line');
    assert.deepEqual(bodies('#if Y\nvoid m() {\n#endif\n  go();\n#if X\n}\n#endif\n'), [], 'an #endif of an #if before the body');
    assert.deepEqual(bodies('#define F() \\\nint g() {\n}\n'), [], 'a head inside a macro');
    assert.deepEqual(bodies('template <typename T> T id(T x) {\n  return x;\n}\n'), []);
    assert.equal(emptyCppFunctionBodies('struct S {\n  int a;\n};\n'), undefined, 'nothing to blank');
  });

  it('property: emptying takes out only body characters, every line break in them and every other character kept', () => {
    fc.assert(
      fc.property(source(), (text) => {
        const emptied = emptyCppFunctionBodies(text);
        if (emptied !== undefined) assertEmptied(text, emptied, cppFunctionBodies(text));
      }),
      { numRuns: 500 },
    );
  });

  it('property: any text at all (C++-ish characters, any code unit) gives sorted, disjoint bodies between braces, or none', () => {
    const unit = fc.oneof(
      { weight: 3, arbitrary: fc.constantFrom('int f() {\n  g();\n}\n', '  void K::m(int a) const {\n    x();\n  }\n') },
      { weight: 12, arbitrary: fc.constantFrom('void f(', 'if (', ') {', ')', '\n}\n', '{', '}', '(', '[', ']', ';', ':', ' ', '\n', '  ') },
      { weight: 2, arbitrary: fc.constantFrom('"', "'", 'R"x(', ')x"', '1\'', '/', '*', '//', '/*', '*/', '\\', '\r', '\n#if X\n', '\n#endif\n', '\n#define A \\\n') },
      { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 2 }) },
    );
    assertSortedBodies(fc.array(unit, { maxLength: 80 }).map((u) => u.join('')), cppFunctionBodies, emptyCppFunctionBodies, (text, a, b) => text[a - 1] === '{' && text[b] === '}');
  });

  it('property: a text that parses cleanly has the same outline (symbols, ranges, signatures, imports) emptied as whole', async () => {
    const { transformed, compared } = await assertSameOutline(parsers, 'cpp', source(), emptyCppFunctionBodies, 300);
    assert.ok(transformed > 200 && compared > 100, `${transformed} blanked, ${compared} compared`);
  });

  it('outlineText empties C++ from BLANK_BODIES_MIN_CHARS on', () => {
    const big = cppSource(BLANK_BODIES_MIN_CHARS + 10_000);
    assert.equal(outlineText(big, 'cpp'), emptyCppFunctionBodies(big));
    assert.notEqual(outlineText(big, 'cpp'), big);
    const small = cppSource(BLANK_BODIES_MIN_CHARS - 10_000);
    assert.equal(outlineText(small, 'cpp'), small);
  });
});
