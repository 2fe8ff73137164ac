import assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { MemoryRegistry } from '../../../src/core/memory/node/registry';
import { recallFileName, RecallStore } from '../../../src/core/memory/node/recallStore';
import { memoryDeps } from './memoryDeps';

describe('core/memory/RecallStore', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'be-recall-'));
  });
  afterEach(async () => fs.rm(dir, { recursive: true, force: true }));

  it('keeps every message the window slides out, by id, per session', async () => {
    const reg = await MemoryRegistry.open({ deps: memoryDeps, memoryOptions: { maxTokens: 300, reserveRatio: 0, recentKeep: 1 } });
    const store = new RecallStore({ dir: path.join(dir, 'recall') });
    await store.attach(reg);
    const a = reg.get('a');
    const texts = Array.from({ length: 30 }, (_, i) => `message ${i}: ${'alpha beta gamma '.repeat(10)}`);
    for (const t of texts) a.add({ kind: 'note', content: t });
    reg.get('b').add({ kind: 'note', content: 'only in b' });
    const evicted = a.fingerprints().map((f) => f.id);
    assert.ok(evicted.length > 10, 'the window slid');
    await store.flush();
    for (const id of evicted) {
      const r = await store.recall('a', id);
      assert.equal(r?.content, texts[Number(id.slice(1)) - 1], id);
      assert.equal(await store.recall('b', id), undefined, 'sessions do not mix');
    }
    // a restored session keeps its archive; sessions the registry dropped lose theirs
    await reg.delete('b');
    await new Promise((r) => setTimeout(r, 20));
    const names = await fs.readdir(path.join(dir, 'recall'));
    assert.deepEqual(names, [recallFileName('a')]);
    store.dispose();
  });

  it("keeps each evicted call's link to its result: the trail knows every edit's outcome", async () => {
    const reg = await MemoryRegistry.open({ deps: memoryDeps, memoryOptions: { maxTokens: 200, reserveRatio: 0, recentKeep: 0 } });
    const store = new RecallStore({ dir });
    await store.attach(reg);
    const m = reg.get('s');
    const calls: string[] = [];
    for (let i = 0; i < 12; i++) {
      const c = m.add({ kind: 'tool_call', tool: 'be-insert', content: `be-insert {"file":"f${i}.ts:1"}`, references: [{ path: `f${i}.ts` }] });
      m.add({ kind: 'tool_result', tool: 'be-insert', status: i % 3 ? 'ok' : 'error', content: `${'r'.repeat(300)}`, pairId: c.id });
      calls.push(c.id);
    }
    const trail = await store.trail('s');
    assert.ok(trail.length >= 8);
    for (const t of trail) {
      const i = calls.indexOf(t.id);
      assert.equal(t.status, i % 3 ? 'ok' : 'error', t.id);
      assert.equal(t.references[0]!.path, `f${i}.ts`);
      assert.equal((await store.recall('s', t.resultId!))?.pairId, t.id);
    }
  });

  it('stays within its per-session cap, dropping the oldest first', async () => {
    const reg = await MemoryRegistry.open({ deps: memoryDeps, memoryOptions: { maxTokens: 200, reserveRatio: 0, recentKeep: 0 } });
    const store = new RecallStore({ dir, maxSessionBytes: 20_000 });
    await store.attach(reg);
    const m = reg.get('s');
    for (let i = 0; i < 200; i++) {
      m.add({ kind: 'note', content: `n${i} ${'x'.repeat(400)}` });
      if (i % 20 === 0) await store.flush();
    }
    await store.flush();
    const size = (await fs.stat(path.join(dir, recallFileName('s')))).size;
    assert.ok(size <= 20_000, `${size} bytes`);
    const ids = m.fingerprints().map((f) => f.id);
    assert.equal(await store.recall('s', ids[0]!), undefined, 'the oldest was dropped');
    assert.ok(await store.recall('s', ids.at(-1)!), 'the newest is kept');
    assert.equal((await fs.stat(path.join(dir, recallFileName('s')))).mode & 0o777, 0o600);
  });

  it('refuses to append to something that is not a regular file (a FIFO would block)', async () => {
    const reg = await MemoryRegistry.open({ deps: memoryDeps, memoryOptions: { maxTokens: 200, reserveRatio: 0, recentKeep: 0 } });
    const errors: unknown[] = [];
    const store = new RecallStore({ dir, onError: (e) => errors.push(e) });
    await store.attach(reg);
    await fs.mkdir(path.join(dir, recallFileName('s')));
    const m = reg.get('s');
    for (let i = 0; i < 10; i++) m.add({ kind: 'note', content: `n${i} ${'y'.repeat(300)}` });
    await store.flush();
    assert.ok(errors.some((e) => /not a regular file/.test(String(e))), String(errors[0]));
  });
  it('with a registry restored later, prunes only after its restore: a saved session keeps its archive', async () => {
    const memDir = path.join(dir, 'memory');
    const recallDir = path.join(dir, 'recall');
    const saved = await MemoryRegistry.open({ deps: memoryDeps, dir: memDir, debounceMs: 1 });
    saved.get('saved').add({ kind: 'note', content: 'from an earlier process' });
    await saved.dispose();
    await fs.mkdir(recallDir);
    await fs.writeFile(path.join(recallDir, recallFileName('saved')), '');
    await fs.writeFile(path.join(recallDir, recallFileName('abandoned')), '');
    const reg = MemoryRegistry.openLater({ deps: memoryDeps, dir: memDir, debounceMs: 10_000, memoryOptions: { maxTokens: 300, reserveRatio: 0, recentKeep: 1 } });
    const store = new RecallStore({ dir: recallDir });
    const attached = store.attach(reg);
    // this process's session, made (and sliding) before the saved ones are read: archived from the start
    const live = reg.get('live');
    for (let i = 0; i < 30; i++) live.add({ kind: 'note', content: `message ${i}: ${'alpha beta gamma '.repeat(10)}` });
    await new Promise((r) => setTimeout(r, 30));
    assert.deepEqual((await fs.readdir(recallDir)).sort(), [recallFileName('abandoned'), recallFileName('live'), recallFileName('saved')].sort(), 'nothing pruned before the restore');
    await reg.restoreSaved();
    await attached;
    await new Promise((r) => setTimeout(r, 30));
    assert.deepEqual((await fs.readdir(recallDir)).sort(), [recallFileName('live'), recallFileName('saved')].sort(), 'after it, only the archive no session holds goes');
    const evicted = live.fingerprints().map((f) => f.id);
    assert.ok(evicted.length > 10);
    assert.match((await store.recall('live', evicted[0]!))?.content ?? '', /^message 0:/);
    store.dispose();
    await reg.dispose();
  });
});
