import assert from 'node:assert/strict';
import fc from 'fast-check';
import { renderDiff } from '../../../src/core/edits/diff';

describe('analyzers: renderDiff', () => {
  it('plain: numbered listings under English headers', () => {
    const out = renderDiff({ startLine: 3, lines: ['a', 'b'] }, { startLine: 3, lines: ['a', 'X', 'b'] }, 'plain');
    assert.equal(out, '--- before (lines 3-4) ---\n3\ta\n4\tb\n\n+++ after (lines 3-5) +++\n3\ta\n4\tX\n5\tb');
  });
  it('plain: upstream Chinese headers with lang zh', () => {
    const out = renderDiff({ startLine: 1, lines: ['a'] }, { startLine: 1, lines: ['b'] }, 'plain', 'zh');
    assert.equal(out, '--- 修改前（行 1-1）---\n1\ta\n\n+++ 修改后（行 1-1）+++\n1\tb');
  });
  it('diff: a deletion is one - line, a replacement is - then +', () => {
    const del = renderDiff({ startLine: 5, lines: ['a', 'b', 'c'] }, { startLine: 5, lines: ['a', 'c'] }, 'diff');
    assert.equal(del, '@@ -5,3 +5,2 @@\n a\n-b\n c');
    const rep = renderDiff({ startLine: 1, lines: ['a', 'b', 'c'] }, { startLine: 1, lines: ['a', 'B', 'c'] }, 'diff');
    assert.equal(rep, '@@ -1,3 +1,3 @@\n a\n-b\n+B\n c');
  });
  it('diff: empty sides use the line before (unified diff convention)', () => {
    assert.equal(renderDiff({ startLine: 1, lines: [] }, { startLine: 1, lines: ['x'] }, 'diff'), '@@ -0,0 +1,1 @@\n+x');
    assert.equal(renderDiff({ startLine: 4, lines: ['x'] }, { startLine: 4, lines: [] }, 'diff'), '@@ -4,1 +3,0 @@\n-x');
  });
  it('strips stray line terminators', () => {
    assert.equal(renderDiff({ startLine: 1, lines: ['a\r'] }, { startLine: 1, lines: ['a\r\n'] }, 'diff'), '@@ -1,1 +1,1 @@\n a');
  });
  it('property: the diff reconstructs both windows and keeps a longest common subsequence', () => {
    const lines = fc.array(fc.constantFrom('a', 'b', 'c', 'd', ''), { maxLength: 14 });
    fc.assert(
      fc.property(lines, lines, fc.integer({ min: 1, max: 500 }), (a, b, start) => {
        const out = renderDiff({ startLine: start, lines: a }, { startLine: start, lines: b }, 'diff').split('\n');
        const body = out.slice(1);
        assert.deepEqual(body.filter((l) => l[0] !== '+').map((l) => l.slice(1)), a);
        assert.deepEqual(body.filter((l) => l[0] !== '-').map((l) => l.slice(1)), b);
        // LCS length by dynamic programming
        const dp = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0));
        for (let i = 1; i <= a.length; i++)
          for (let j = 1; j <= b.length; j++)
            dp[i][j] = a[i - 1] === b[j - 1] ? dp[i - 1][j - 1] + 1 : Math.max(dp[i - 1][j], dp[i][j - 1]);
        assert.equal(body.filter((l) => l[0] === ' ').length, dp[a.length][b.length]);
        const m = /^@@ -(\d+),(\d+) \+(\d+),(\d+) @@$/.exec(out[0]);
        assert.ok(m, out[0]);
        assert.equal(Number(m[2]), a.length);
        assert.equal(Number(m[4]), b.length);
        assert.equal(Number(m[1]), a.length ? start : start - 1);
      }),
      { numRuns: 300 },
    );
  });
});
