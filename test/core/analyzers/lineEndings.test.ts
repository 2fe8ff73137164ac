import assert from 'node:assert/strict';
import { checkBalance } from '../../../src/core/edits/balance';
import { findFunctionRange } from '../../../src/core/edits/funcRange';
import { findTagRange } from '../../../src/core/edits/tagRange';

/** Samples whose analysis must not depend on LF vs CRLF line endings. */
const SAMPLES: Array<[string, string]> = [
  ['typescript', 'export class A {\n  @Dec()\n  m(a) {\n    const s = `x ${a} {`;\n    return (a) => {\n      return "}";\n    };\n  }\n}\nconst b = "open\nf(1;\n'],
  ['python', '@d\ndef f(x,\n      y):\n    s = """\n  {\n"""\n    return x  # )\n\nclass C:\n    def m(self):\n        pass\nz = (1\n'],
  ['c', '#define M(a) \\\n  { a\nint main(void)\n{\n  return 0;\n}\n'],
  ['shellscript', 'f() {\n  cat <<EOF\n( body\nEOF\n}\ncase $x in\n a) echo ;;\nesac\n'],
  ['markdown', '# T\n\n```js\nconst x = { a: "(" };\n```\n\n(open\n'],
  ['html', '<div\n  class="a">\n  <!-- <p>\n  -->\n  <span>x</span>\n</div>\n<p>\n'],
  ['javascriptreact', 'const A = () => (\n  <div\n    a="1">\n    Don\'t\n  </div>\n);\n'],
];

describe('analyzers: CRLF line endings give the same results as LF', () => {
  for (const [lang, lf] of SAMPLES) {
    it(lang, () => {
      const crlf = lf.replace(/\n/g, '\r\n');
      assert.deepEqual(checkBalance(crlf, lang, true), checkBalance(lf, lang, true));
      const lines = lf.split('\n').length;
      for (let line = 1; line <= lines; line++) {
        assert.deepEqual(findFunctionRange(crlf, line, lang), findFunctionRange(lf, line, lang), `function range at line ${line}`);
        assert.deepEqual(findTagRange(crlf, line, lang), findTagRange(lf, line, lang), `tag range at line ${line}`);
      }
    });
  }
  it('the samples are not trivially balanced (the comparison can fail)', () => {
    const problems = SAMPLES.filter(([lang, text]) => 'unbalanced' in checkBalance(text, lang, false)).map(([lang]) => lang);
    assert.deepEqual(problems, ['typescript', 'python', 'markdown']);
  });
});
