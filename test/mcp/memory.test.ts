/** be-memory over the protocol: each MCP session has its own ChatMemory, fed by the call observer. */
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { MemoryRegistry } from '../../src/core/memory/node/registry';
import { workspaceKey } from '../../src/core/files/workspaceKey';
import { memoryObserver, truncateMiddle } from '../../src/mcp/memoryObserver';
import { promises as fs } from 'node:fs';
import { call, callError, httpSetup, stdioClient, tmpWorkspace, type Workspace } from './helpers';
import { memoryDeps } from '../core/memory/memoryDeps';

describe('mcp be-memory (two sessions over the HTTP host)', function () {
  this.timeout(60_000);
  let ws: Workspace;
  let registry: MemoryRegistry;

  beforeEach(async () => {
    ws = await tmpWorkspace();
    registry = await MemoryRegistry.open({ deps: memoryDeps, dir: path.join(ws.cache, 'memory'), debounceMs: 10 });
  });
  afterEach(async () => {
    await registry.dispose();
    await ws.dispose();
  });

  it("records a session's tool calls in its own window only; the other session does not see them", async () => {
    await ws.write('src/alpha.ts', 'export function alphaOnly() {\n  return 1;\n}\n');
    await ws.write('src/beta.ts', 'export const betaOnly = 2;\n');
    const setup = await httpSetup(ws, { observers: [memoryObserver(registry)] }, {}, { memory: registry });
    const a = await setup.connect();
    const b = await setup.connect();
    try {
      await call(a.client, 'be-read', { file: 'src/alpha.ts:1-3' });
      await call(b.client, 'be-read', { file: 'src/beta.ts:1' });
      await callError(a.client, 'be-read', { file: 'src/missing.ts:1-2' });
      const added = await call(a.client, 'be-memory', { action: 'add', kind: 'constraint', content: 'Never touch migrations.' });
      assert.equal(added.pinned, true);

      const wa = await call(a.client, 'be-memory', { action: 'window' });
      const wb = await call(b.client, 'be-memory', { action: 'window' });
      const textA = JSON.stringify(wa);
      const textB = JSON.stringify(wb);
      assert.match(textA, /tool_call\/medium \d+t src\/alpha\.ts:1-3: be-read/);
      assert.match(wa.recent.join("\n"), /m2 tool_result\/low \d+t src\/alpha\.ts:1-3: \{"status":"ok"/);
      assert.match(textA, /tool_result\/low error \d+t src\/missing\.ts:1-2/);
      assert.equal(wa.pinned[0].text, 'Never touch migrations.');
      assert.equal(wa.stats.messages, 5, 'two pairs and the constraint; be-memory calls are not recorded');
      assert.doesNotMatch(textA, /beta/);
      assert.match(textB, /src\/beta\.ts:1/);
      assert.doesNotMatch(textB, /alpha|migrations/);
      assert.equal(wb.stats.messages, 2);
      assert.equal(registry.sessionIds().length, 2);

      // the pair is linked and leaves together
      const memA = registry.get(registry.sessions().find((s) => s.messages === 5)!.sessionId);
      const call1 = memA.visibleMessages().find((m) => m.kind === 'tool_call')!;
      assert.equal(memA.get(call1.pairId!)!.kind, 'tool_result');
      const evicted = await call(a.client, 'be-memory', { action: 'evict', id: call1.id });
      assert.deepEqual([...evicted.evicted].sort(), [call1.id, call1.pairId].sort());
      const after = await call(a.client, 'be-memory', { action: 'window' });
      assert.match(after.fingerprints.join('\n'), /tool_result be-read src\/alpha\.ts:1-3 ok/);
      assert.match(after.summary, /be-read src\/alpha\.ts:1-3 → ok/);

      const err = await callError(a.client, 'be-memory', { action: 'pin', id: 'nope' });
      assert.match(err, /not in the window/);
    } finally {
      await a.close();
      await b.close();
      await setup.host.close();
    }
  });

  it('persists the sessions and restores them', async () => {
    const setup = await httpSetup(ws, { observers: [memoryObserver(registry)] }, {}, { memory: registry });
    const a = await setup.connect();
    try {
      await call(a.client, 'be-memory', { action: 'add', content: 'remember the flaky test', kind: 'note' });
      await call(a.client, 'be-memory', { action: 'stats' });
    } finally {
      await a.close();
      await setup.host.close();
    }
    const ids = registry.sessionIds();
    await registry.flush();
    const restored = await MemoryRegistry.open({ deps: memoryDeps, dir: registry.dir });
    assert.deepEqual(restored.sessionIds(), ids);
    assert.match(restored.get(ids[0]!).visibleMessages()[0]!.content, /flaky test/);
    await restored.dispose();
  });

  it('stdio CLI: records calls, answers be-memory window, saves in <cache>/better-edit-tools-mcp/memory/<key>, not beside --chip-dir', async () => {
    await ws.write('a.txt', 'one\ntwo\n');
    const c = await stdioClient(ws);
    try {
      await call(c.client, 'be-read', { file: 'a.txt:1-2' });
      const w = await call(c.client, 'be-memory', { action: 'window' });
      assert.match(w.recent.join('\n'), /m1 tool_call\/medium \d+t a\.txt:1-2: be-read/);
      assert.equal(w.stats.messages, 2);
    } finally {
      await c.close();
    }
    await assert.rejects(fs.access(path.join(path.dirname(ws.chipDir), 'chat-memory')), 'no chat-memory sibling of --chip-dir');
    const dir = path.join(ws.cache, 'better-edit-tools-mcp', 'memory', workspaceKey([ws.root]));
    for (let i = 0; i < 50 && !(await fs.readdir(dir).catch(() => [])).length; i++) await new Promise((r) => setTimeout(r, 100));
    const files = await fs.readdir(dir);
    assert.equal(files.length, 1);
    assert.equal((await fs.stat(path.join(dir, files[0]!))).mode & 0o777, 0o600);
  });

  it('truncates big results in the middle, saying how much was left out', () => {
    const text = 'a'.repeat(100) + 'b'.repeat(100);
    const out = truncateMiddle(text, 50);
    assert.ok(out.startsWith('a'.repeat(40)) && out.endsWith('b'.repeat(10)));
    assert.match(out, /\[150 characters omitted\]/);
    assert.equal(truncateMiddle('short', 50), 'short');
  });
});
