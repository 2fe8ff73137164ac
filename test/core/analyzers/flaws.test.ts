import assert from 'node:assert/strict';
import { checkBalance, quickBalance } from '../../../src/core/edits/balance';
import { findFunctionRange } from '../../../src/core/edits/funcRange';
import { findTagRange } from '../../../src/core/edits/tagRange';
import { renderDiff } from '../../../src/core/edits/diff';

const balanced = { mode: 'unbalanced', status: 'all balanced' };

describe('analyzers: upstream flaws', () => {
  it('flaw: be-balance quote warnings fire on one well-formed literal', () => {
    assert.deepEqual(checkBalance('const a = "one literal";\n', 'typescript', false), balanced);
    assert.deepEqual(checkBalance("x = 'it'\n", 'python', false), balanced);
  });

  it('flaw: be-balance quote warnings fire on an apostrophe in prose or a comment', () => {
    assert.deepEqual(checkBalance("Don't panic, it's fine.\n", 'markdown', false), balanced);
    assert.deepEqual(checkBalance("It's plain text.\n", 'plaintext', false), balanced);
    assert.deepEqual(checkBalance("// don't worry\nconst x = 1;\n", 'javascript', false), balanced);
    assert.deepEqual(checkBalance("# don't worry\nx = 1\n", 'python', false), balanced);
  });

  it('flaw: be-balance does not know # comments', () => {
    assert.deepEqual(checkBalance('# a { brace in a comment\nx = (1, 2)  # and ) here\n', 'python', false), balanced);
    assert.deepEqual(checkBalance('# (\necho "$#" # }\nf() { echo hi; }\n', 'shellscript', false), balanced);
    assert.deepEqual(checkBalance('-- a ( comment\nSELECT (1);\n', 'sql', false), balanced);
  });

  it('flaw: a<b && c>d is taken for a tag', () => {
    const r = checkBalance('if (a<b && c>d) { go(); }\n', 'javascript', true);
    assert.equal(r.mode, 'verbose');
    if (r.mode === 'verbose') {
      assert.equal(r.tags, '(none)');
      assert.equal(r.unbalanced, null);
    }
  });

  it('flaw: func-range returns the whole class for a method line', () => {
    const src = ['class A {', '  m() {', '    return 1;', '  }', '  n() {', '    return 2;', '  }', '}', ''].join('\n');
    assert.deepEqual(findFunctionRange(src, 3, 'typescript'), { start: 2, end: 4, kind: 'method', name: 'm' });
    assert.deepEqual(findFunctionRange(src, 6, 'typescript'), { start: 5, end: 7, kind: 'method', name: 'n' });
  });

  it('flaw: python def has no braces', () => {
    const src = ['def f(x):', '    if x:', '        return {1: 2}', '    return 0', '', 'y = 1', ''].join('\n');
    assert.deepEqual(findFunctionRange(src, 3, 'python'), { start: 1, end: 4, kind: 'function', name: 'f' });
    assert.equal(findFunctionRange(src, 6, 'python'), undefined);
  });

  it('flaw: tag split across lines is missed', () => {
    const src = ['<section>', '  <div', '    class="a"', '  >', '    text', '  </div>', '</section>'].join('\n');
    assert.deepEqual(findTagRange(src, 5), { start: 2, end: 6, tag: 'div' });
    assert.deepEqual(findTagRange(src, 3), { start: 2, end: 6, tag: 'div' });
  });

  it('flaw: diff compares position by position', () => {
    const before = { startLine: 10, lines: ['a', 'b', 'c', 'd', 'e'] };
    const after = { startLine: 10, lines: ['a', 'b', 'NEW', 'c', 'd', 'e'] };
    const out = renderDiff(before, after, 'diff');
    const lines = out.split('\n');
    assert.equal(lines[0], '@@ -10,5 +10,6 @@');
    assert.deepEqual(lines.filter((l) => l.startsWith('+')), ['+NEW']);
    assert.deepEqual(lines.filter((l) => l.startsWith('-')), []);
  });

  it('quickBalance: English and upstream Chinese texts', () => {
    assert.equal(quickBalance('f(1);\n', 'javascript'), 'balance: OK');
    assert.equal(quickBalance('f(1);\n', 'javascript', 'zh'), '符号闭合快速检查：OK');
    assert.equal(quickBalance('f(1;\n{\n', 'javascript'), 'balance: unbalanced ({} missing 1; () missing 1)');
    assert.equal(quickBalance('f(1;\n', 'javascript', 'zh'), '符号闭合快速检查：Error (() 差 1 个)');
  });
});
