/**
 * The built CLI reads its saved chat-memory sessions and its chips at its first quiet moment, not before the first
 * call (a read needs neither): the same end state as a restore at the start — the newest 50 saved sessions kept,
 * older files deleted, the recall archives of kept sessions kept and an abandoned one deleted, this session's memory
 * recorded — and a bad chip file warned about without any chip call.
 */
import assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { MemoryRegistry, sessionFileName } from '../../src/core/memory/node/registry';
import { recallFileName } from '../../src/core/memory/node/recallStore';
import { memoryDeps } from '../core/memory/memoryDeps';
import { stdioClient, tmpWorkspace, type Workspace } from '../mcp/helpers';
import { until } from '../until';

const SAVED = 52;
const MAX_SESSIONS = 50;

describe('cli: saved sessions and chips read at the first quiet moment', function () {
  this.timeout(60000);
  let ws: Workspace;
  let memoryDir: string;
  before(async () => {
    ws = await tmpWorkspace();
    memoryDir = path.join(ws.cache, 'memory-under-test');
    // SAVED sessions, s0 the oldest: each saved by its own registry one clock tick after the last
    let t = Date.now() - 1_000_000;
    const reg = await MemoryRegistry.open({ deps: memoryDeps, dir: memoryDir, debounceMs: 1, maxSessions: 1000, clock: { now: () => (t += 1000) } });
    for (let i = 0; i < SAVED; i++) reg.get(`s${i}`).add({ kind: 'note', content: `saved session ${i}` });
    await reg.dispose();
    await fs.mkdir(path.join(memoryDir, 'recall'), { recursive: true });
    await fs.writeFile(path.join(memoryDir, 'recall', recallFileName(`s${SAVED - 1}`)), '');
    await fs.writeFile(path.join(memoryDir, 'recall', recallFileName('abandoned')), '');
    await ws.write('a.ts', 'export const a = 1;\n');
    await fs.mkdir(ws.chipDir, { recursive: true });
    await fs.writeFile(path.join(ws.chipDir, 'chip-abcdef.json'), '{ not json');
  });
  after(async () => ws.dispose());

  it('answers the first call, then keeps the newest 50 saved sessions and their archives, as a restore at the start did', async () => {
    const names = async () => (await fs.readdir(memoryDir)).filter((n) => n.endsWith('.memory.json'));
    assert.equal((await names()).length, SAVED);
    const c = await stdioClient(ws, ['--memory-dir', memoryDir]);
    try {
      const r = (await c.client.callTool({ name: 'be-read', arguments: { file: 'a.ts' } })) as CallToolResult;
      assert.ok(!r.isError, JSON.stringify(r.content));
      const oldest = [0, 1].map((i) => sessionFileName(`s${i}`));
      await until(async () => !(await names()).some((n) => oldest.includes(n)), 'the two oldest saved sessions to be pruned', 15_000);
      const kept = await names();
      for (let i = 2; i < SAVED; i++) assert.ok(kept.includes(sessionFileName(`s${i}`)), `s${i} kept`);
      // this session's own file, once its record is saved (debounced), beside the 50 saved ones
      await until(async () => (await names()).length === MAX_SESSIONS + 1, "this session's memory to be saved", 15_000);
      await until(async () => !(await fs.readdir(path.join(memoryDir, 'recall'))).includes(recallFileName('abandoned')), 'the abandoned recall archive to be deleted', 15_000);
      assert.ok((await fs.readdir(path.join(memoryDir, 'recall'))).includes(recallFileName(`s${SAVED - 1}`)), "a kept session's archive stays");
      // the chips were read too, though no call touched them
      await until(async () => /chip-abcdef\.json: invalid JSON/.test(c.stderr()), 'the bad chip file to be warned about', 15_000);
    } finally {
      await c.close();
    }
  });
});
