/**
 * A large Python text's function bodies emptied for its outline's parse (src/core/context/pythonBodies.ts): which
 * lines are a function's body, by logical lines (brackets, backslashes, triple-quoted strings, f-strings with code in
 * them), a docstring kept and a `pass` on the body's last line; and, as properties on generated Python, that
 * emptying keeps every line and everything outside the bodies, that any text gives sorted bodies, and that a text
 * which parses cleanly has the same outline emptied as whole.
 */
import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { BLANK_BODIES_MIN_CHARS } from '../../../src/core/context/cBodies';
import { emptyPythonFunctionBodies, pythonFunctionBodies } from '../../../src/core/context/pythonBodies';
import { packagedGrammars, TreeSitterParsers } from '../../../src/core/context/node/treeSitter';
import { outlineText } from '../../../src/core/context/treeOutline';
import { pythonSource } from '../../../bench/context/languageSources';
import { assertSameOutline, assertSortedBodies } from './sameOutline';

type Fragment = (n: number) => string;
/** Statements, and the constructs in and around functions a line scan could take for a body's bounds. */
const ITEMS: Fragment[] = [
  (n) => `def f${n}(a, b=1):\n    """Doc ${n}."""\n    if a > ${n}:\n        return a\n    return b\n`,
  (n) => `def m${n}(\n    a,\n    b,\n):\n    """Doc over\n    lines.\n    """\n    x = (a +\n         b)\n    return x\n`,
  (n) => `def s${n}():\n    s = """\ndef fake${n}():\n    pass\n"""\n    return s\n`,
  (n) => `def fs${n}(d):\n    return f"{d["k"]} {{}} {d['j']:>{n}}"\n`,
  (n) => `def b${n}():\n    x = 1 + \\\n2\n    return x\n`,
  (n) => `def c${n}():\n    # a comment\n    x = 1  # inline\n# a comment at column 0 inside\n    return x\n`,
  (n) => `async def a${n}():\n    await g()\n`,
  (n) => `def one${n}(): return ${n}\n`,
  (n) => `@decorator(${n})\ndef d${n}():\n    return ${n}\n`,
  (n) => `class K${n}(Base):\n    """Class doc."""\n\n    x = 1\n\n    def method(self):\n        def inner():\n            return 1\n        return inner()\n\n    @property\n    def p(self):\n        return self.x\n`,
  (n) => `def trail${n}():\n    return 1\n    # trailing comment\n\n# Doc for the next one\n`,
  (n) => `def only_doc${n}():\n    """Only a docstring."""\n`,
  (n) => `CONST${n} = [\n    1,\n    2,\n]\n`,
  (n) => `if flag${n}:\n    def cond():\n        return 1\n`,
  (n) => `def u${n}():\n    return "é😀"\n`,
  (n) => `def crlf${n}():\r\n    return 1\r\n`,
  () => `\n`,
];
/** Pieces that leave the text broken unless they pair up. */
const PIECES: Fragment[] = [(n) => `def open${n}():\n`, () => `"""\n`, () => `(\n`, () => `)\n`, () => `    x = 1\n`];

function source() {
  const item = fc.oneof({ weight: 29, arbitrary: fc.constantFrom(...ITEMS) }, { weight: 1, arbitrary: fc.constantFrom(...PIECES) });
  return fc.array(item, { minLength: 1, maxLength: 30 }).map((is) => 'import os\n\n' + is.map((f, n) => f(n)).join(''));
}

describe('core/context pythonBodies (a large Python text parsed with its function bodies emptied)', function () {
  this.timeout(120_000);
  const parsers = new TreeSitterParsers(packagedGrammars);

  it('empties a body to its line breaks and a `pass` on its last line, keeping the docstring', () => {
    assert.equal(emptyPythonFunctionBodies('def f(a):\n    """Doc."""\n    x = a\n    return x\n'), 'def f(a):\n    """Doc."""\n\n    pass\n');
    assert.equal(emptyPythonFunctionBodies('def f(a):\n    x = (a,\n         1)\n'), 'def f(a):\n\n    pass\n', 'the last logical line over two lines');
    assert.equal(emptyPythonFunctionBodies('def f():\n    """Only."""\n'), undefined, 'a docstring alone');
    assert.equal(emptyPythonFunctionBodies('def f():\n    return 1\n    # after\n# next\ndef g():\n    return 2\n'), 'def f():\n    pass\n    # after\n# next\ndef g():\n    pass\n');
    assert.equal(emptyPythonFunctionBodies('def f():\r\n    x = 1\r\n    return x\r\n'), 'def f():\r\n\r\n    pass\r\n');
  });

  it('reads logical lines past strings, f-strings with code, brackets and backslashes; nested functions go with their body', () => {
    const text = 'class K:\n    def m(self):\n        s = """\n    def fake():\n"""\n        def inner():\n            return f"{s["}"]}"\n        return (1 +\n2)\n\n    def n(self):\n        return 1\n';
    assert.deepEqual(
      pythonFunctionBodies(text).map((b) => text.slice(b.from, b.to)),
      ['\n        s = """\n    def fake():\n"""\n        def inner():\n            return f"{s["}"]}"\n        return (1 +\n2)', '\n        return 1'],
    );
    assert.equal(emptyPythonFunctionBodies('def g():\n    x = 1\n    return f"{\'"\'}"\n'), 'def g():\n\n    pass\n', 'a quote inside an f-string\'s code');
    assert.equal(emptyPythonFunctionBodies('def one(): return 1\n'), undefined, 'a one-line function');
    assert.deepEqual(pythonFunctionBodies('def f():\n    s = """never closed\n'), [], 'a string that never closes');
    // a bracket left open in a body: the rest of the file would be one logical line; the reading stops there
    const broken = 'def a():\n    return 1\n\ndef b():\n    return g(x\n\ndef c():\n    return 3\n';
    assert.deepEqual(pythonFunctionBodies(broken).map((b) => broken.slice(b.from, b.to)), ['\n    return 1']);
  });

  it('property: emptying keeps every line and everything outside the bodies; a body becomes line breaks and one pass', () => {
    fc.assert(
      fc.property(source(), (text) => {
        const emptied = emptyPythonFunctionBodies(text);
        if (emptied === undefined) return;
        assert.equal(emptied.split('\n').length, text.split('\n').length);
        let expected = '';
        let from = 0;
        for (const body of pythonFunctionBodies(text)) {
          expected += text.slice(from, body.from) + text.slice(body.from, body.to).replace(/\r(?!\n)|[^\r\n]/g, '') + body.indent + 'pass';
          assert.match(body.indent, /^[ \t]+$/);
          from = body.to;
        }
        assert.equal(emptied, expected + text.slice(from));
      }),
      { numRuns: 500 },
    );
  });

  it('property: any text at all (Python-ish characters, any code unit) gives sorted, disjoint bodies after a `:`, or none', () => {
    const unit = fc.oneof(
      { weight: 3, arbitrary: fc.constantFrom('def f():\n    g()\n', '    def m(self):\n        x = 1\n') },
      { weight: 12, arbitrary: fc.constantFrom('def ', 'def f(', '):', ':', '(', ')', '[', ']', '{', '}', ' ', '\n', '    ', 'pass', '=') },
      { weight: 2, arbitrary: fc.constantFrom('"', "'", '"""', "'''", 'f"{', 'rb"', '#', '\\', '\\\n', '\r') },
      { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 2 }) },
    );
    assertSortedBodies(fc.array(unit, { maxLength: 80 }).map((u) => u.join('')), (t) => pythonFunctionBodies(t).map((x) => [x.from, x.to] as const), emptyPythonFunctionBodies, (text, a) => text[a] === '\n');
  });

  it('property: a text that parses cleanly has the same outline (symbols, ranges, signatures, docstrings, imports) emptied as whole', async () => {
    const { transformed, compared } = await assertSameOutline(parsers, 'python', source(), emptyPythonFunctionBodies, 300);
    assert.ok(transformed > 200 && compared > 100, `${transformed} emptied, ${compared} compared`);
  });

  it('outlineText empties Python from BLANK_BODIES_MIN_CHARS on', () => {
    const big = pythonSource(BLANK_BODIES_MIN_CHARS + 10_000);
    assert.equal(outlineText(big, 'python'), emptyPythonFunctionBodies(big));
    assert.notEqual(outlineText(big, 'python'), big);
    const small = pythonSource(BLANK_BODIES_MIN_CHARS - 10_000);
    assert.equal(outlineText(small, 'python'), small);
  });
});
