/** The CLI saves its code cache again after a session's first calls (src/cli/cacheRefresh.ts), at idle moments only. */
import assert from 'node:assert/strict';
import { cacheRefresher } from '../../src/cli/cacheRefresh';

describe('cli cache refresh: after the first calls, at idle moments', () => {
  const result = (tool: string) => ({ sessionId: 's', callId: tool, tool, args: {}, result: { content: [] }, isError: false, durationMs: 1 });
  const tick = () => new Promise((r) => setImmediate(r));

  it('refreshes after the first call and the first call of another tool, each once the server is idle; no more', async () => {
    let idle!: () => void;
    let refreshes = 0;
    const o = cacheRefresher(() => new Promise<void>((resolve) => (idle = resolve)), () => (refreshes++, true));
    o.onToolResult(result('be-read'));
    o.onToolResult(result('be-read'));
    o.onToolResult(result('be-replace'));
    await tick();
    assert.equal(refreshes, 0, 'not while a call may follow');
    idle();
    await tick();
    assert.equal(refreshes, 1);
    idle();
    await tick();
    assert.equal(refreshes, 2);
    o.onToolResult(result('be-insert'));
    await tick();
    idle();
    await tick();
    assert.equal(refreshes, 2, 'two per session at most');
  });
});
