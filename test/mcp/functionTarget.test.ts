/**
 * be-read `target {kind: "function"}` matches the name literally: regex-shaped and very long names answer at once
 * with "function not found" (they once hung the server or failed with "Invalid regular expression").
 */
import assert from 'node:assert/strict';
import { callError, call, memoryClient, tmpWorkspace, type Connected, type Workspace } from './helpers';

describe('mcp be-read function target (names are literal)', function () {
  this.timeout(60_000);
  let ws: Workspace;
  let c: Connected;

  before(async () => {
    ws = await tmpWorkspace();
    // four lines: enough for `((\w+)+)+Q` as a pattern to backtrack for over a minute
    await ws.write('a.js', 'const aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa = 1;\nconst twice = (n) => n * 2;\nconst $get = (u) => u;\nfunction run() { return twice(2); }\n');
    c = await memoryClient(ws);
  });
  after(async () => {
    await c.close();
    await ws.dispose();
  });

  for (const name of ['((\\w+)+)+Q', '[a-z]+', '(a|aa)+$', 'x'.repeat(100 * 1024), '('.repeat(100 * 1024)]) {
    it(`${JSON.stringify(name.slice(0, 12))}${name.length > 12 ? ` (${name.length} chars)` : ''} answers "not found" at once`, async () => {
      const t = performance.now();
      const text = await callError(c.client, 'be-read', { file: ws.file('a.js'), target: { kind: 'function', value: name } });
      const ms = performance.now() - t;
      assert.match(text, /function not found in .*a\.js: /);
      assert.doesNotMatch(text, /regular expression|unexpectedly/i);
      assert.ok(text.length < 1000, `the error repeats at most a bounded part of the name (${text.length} chars)`);
      assert.ok(ms < 2000, `answered in ${ms.toFixed(0)} ms`);
    });
  }

  it('literal names with `$` and arrow functions are still found', async () => {
    assert.equal((await call(c.client, 'be-read', { file: ws.file('a.js'), target: { kind: 'function', value: '$get' } })).start, 3);
    assert.equal((await call(c.client, 'be-read', { file: ws.file('a.js'), target: { kind: 'function', value: 'twice' } })).start, 2);
    assert.equal((await call(c.client, 'be-read', { file: ws.file('a.js'), target: { kind: 'function', value: 'run' } })).start, 4);
  });
});
