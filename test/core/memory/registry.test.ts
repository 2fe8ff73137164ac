import assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { execFileSync } from 'node:child_process';
import { MAX_SESSION_FILE_BYTES, MemoryRegistry, sessionFileName, type SessionChange } from '../../../src/core/memory/node/registry';
import { memoryDeps } from './memoryDeps';

describe('core/memory/MemoryRegistry', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'be-memory-'));
  });
  afterEach(async () => {
    await fs.rm(dir, { recursive: true, force: true });
  });

  it('keeps one memory per session, with per-session events and a session list', async () => {
    const reg = await MemoryRegistry.open({ deps: memoryDeps, dir, debounceMs: 10_000 });
    const seen: SessionChange[] = [];
    const created: string[][] = [];
    reg.onDidChange((e) => seen.push(e));
    reg.onDidChangeSessions((ids) => created.push(ids));
    reg.get('a').add({ kind: 'user_query', content: 'fix the parser' });
    reg.get('b').add({ kind: 'note', content: 'b only' });
    reg.get('a').add({ kind: 'note', content: 'second in a' });
    assert.equal(reg.get('a').size, 2);
    assert.equal(reg.get('b').size, 1);
    assert.deepEqual(seen.map((e) => e.sessionId), ['a', 'b', 'a']);
    assert.deepEqual(created, [['a'], ['a', 'b']]);
    assert.deepEqual(reg.sessions().map((s) => s.sessionId).sort(), ['a', 'b']);
    await reg.dispose();
  });

  it('persists debounced, atomically, 0600, and restores on open', async () => {
    const reg = await MemoryRegistry.open({ deps: memoryDeps, dir, debounceMs: 20 });
    const memory = reg.get('session/1?');
    memory.add({ kind: 'note', content: 'never use an ORM', group: 'goal' });
    memory.add({ kind: 'tool_call', id: 'c1', tool: 'be-read', content: 'be-read a.ts:1-5' });
    memory.add({ kind: 'tool_result', id: 'r1', pairId: 'c1', content: 'const a = 1;' });
    const file = path.join(dir, sessionFileName('session/1?'));
    await assert.rejects(fs.stat(file), 'not written before the debounce delay');
    await new Promise((r) => setTimeout(r, 80));
    await reg.flush();
    const st = await fs.stat(file);
    assert.equal(st.mode & 0o777, 0o600);
    assert.deepEqual((await fs.readdir(dir)).filter((n) => n.startsWith('.tmp-')), [], 'no temp files left');
    const expected = memory.toJSON();
    await reg.dispose();

    const again = await MemoryRegistry.open({ deps: memoryDeps, dir });
    assert.deepEqual(again.sessionIds(), ['session/1?']);
    assert.deepEqual(again.get('session/1?').toJSON(), expected);
    assert.equal(again.get('session/1?').get('r1')!.pairId, 'c1');
    await again.dispose();
  });

  it('skips corrupt files, keeps the newest maxSessions, deletes sessions', async () => {
    let t = 0;
    const clock = { now: () => ++t * 1000 };
    const reg = await MemoryRegistry.open({ deps: memoryDeps, dir, debounceMs: 1, clock });
    for (const id of ['old', 'mid', 'new']) {
      reg.get(id).add({ kind: 'note', content: id });
      await reg.flush();
    }
    await reg.dispose();
    await fs.writeFile(path.join(dir, sessionFileName('broken')), '{ not json');
    const errors: unknown[] = [];
    const again = await MemoryRegistry.open({ deps: memoryDeps, dir, maxSessions: 2, onError: (e) => errors.push(e), clock });
    assert.equal(errors.length, 1);
    assert.deepEqual(again.sessions().map((s) => s.sessionId), ['new', 'mid']);
    await assert.rejects(fs.stat(path.join(dir, sessionFileName('old'))), 'the oldest session file is pruned');
    const kept = again.sessionIds()[0]!;
    await again.delete(kept);
    assert.equal(again.has(kept), false);
    await assert.rejects(fs.stat(path.join(dir, sessionFileName(kept))));
    await again.dispose();
  });
  it('skips a FIFO, a directory and an oversized file among the saved sessions without opening them, with a warning', async function () {
    if (process.platform === 'win32') this.skip();
    const good = await MemoryRegistry.open({ deps: memoryDeps, dir, debounceMs: 5 });
    good.get('kept').add({ kind: 'note', content: 'survives' });
    await good.dispose();
    execFileSync('mkfifo', [path.join(dir, sessionFileName('fifo'))]);
    await fs.mkdir(path.join(dir, sessionFileName('folder')));
    await fs.writeFile(path.join(dir, sessionFileName('huge')), '{');
    await fs.truncate(path.join(dir, sessionFileName('huge')), MAX_SESSION_FILE_BYTES + 1);
    const errors: string[] = [];
    const started = Date.now();
    const reg = await MemoryRegistry.open({ deps: memoryDeps, dir, onError: (e) => errors.push(String(e)) });
    assert.ok(Date.now() - started < 2000, `open took ${Date.now() - started} ms`);
    assert.deepEqual(reg.sessionIds(), ['kept']);
    assert.ok(errors.some((e) => /FIFO/.test(e)), errors.join('\n'));
    assert.ok(errors.some((e) => /a directory, not a regular file/.test(e)), errors.join('\n'));
    assert.ok(errors.some((e) => /over the \d+-byte limit/.test(e)), errors.join('\n'));
    await reg.dispose();
  });
  describe('openLater: saved sessions restored when the host asks', () => {
    /** Saved sessions `ids`, oldest first (each saved by its own registry, one clock tick apart). */
    async function saveSessions(ids: readonly string[]): Promise<void> {
      let t = 0;
      for (const id of ids) {
        const reg = await MemoryRegistry.open({ deps: memoryDeps, dir, debounceMs: 1, clock: { now: () => ++t * 1000 } });
        reg.get(id).add({ kind: 'note', content: `saved in ${id}` });
        await reg.dispose();
      }
    }

    it('returns before reading anything, and restores on restoreSaved as open does', async () => {
      await saveSessions(['old', 'mid', 'new']);
      const reg = MemoryRegistry.openLater({ deps: memoryDeps, dir, maxSessions: 2 });
      assert.deepEqual(reg.sessionIds(), [], 'nothing read yet');
      let restored = false;
      void reg.restored.then(() => (restored = true));
      await new Promise((r) => setTimeout(r, 20));
      assert.equal(restored, false, 'restored waits for restoreSaved');
      const changes: string[][] = [];
      reg.onDidChangeSessions((ids) => changes.push(ids));
      await Promise.all([reg.restoreSaved(), reg.restoreSaved()]);
      assert.equal(restored, true);
      assert.deepEqual(reg.sessions().map((s) => s.sessionId), ['new', 'mid']);
      assert.deepEqual(changes.at(-1)?.sort(), ['mid', 'new'], 'the restored sessions are announced');
      await assert.rejects(fs.stat(path.join(dir, sessionFileName('old'))), 'the cap applies as on open');
      await reg.dispose();
    });

    it('keeps a session made before the restore: its live memory wins, its file is neither attached nor pruned', async () => {
      await saveSessions(['live', 'other']);
      const reg = MemoryRegistry.openLater({ deps: memoryDeps, dir, maxSessions: 1, debounceMs: 10_000 });
      reg.get('live').add({ kind: 'note', content: 'made in this process' });
      await reg.restoreSaved();
      assert.deepEqual(reg.get('live').visibleMessages().map((m) => m.content), ['made in this process']);
      assert.deepEqual(reg.sessionIds().sort(), ['live', 'other'], 'the live session is not counted against maxSessions');
      await fs.stat(path.join(dir, sessionFileName('live')));
      await reg.dispose();
    });

    it('does not bring back a session deleted before or while the saved ones are read', async () => {
      await saveSessions(['before', 'while', 'kept']);
      const reg = MemoryRegistry.openLater({ deps: memoryDeps, dir });
      await reg.delete('before');
      await assert.rejects(fs.stat(path.join(dir, sessionFileName('before'))), 'its file goes at once');
      const restoring = reg.restoreSaved();
      const deleting = reg.delete('while');
      await Promise.all([restoring, deleting]);
      assert.deepEqual(reg.sessionIds(), ['kept']);
      await assert.rejects(fs.stat(path.join(dir, sessionFileName('while'))));
      await reg.dispose();
      const again = await MemoryRegistry.open({ deps: memoryDeps, dir });
      assert.deepEqual(again.sessionIds(), ['kept'], 'neither comes back on the next start');
      await again.dispose();
    });

    it('leaves restored pending when dispose cuts the restore short (nothing acts on a partial list)', async () => {
      await saveSessions(['a', 'b']);
      const reg = MemoryRegistry.openLater({ deps: memoryDeps, dir });
      let restored = false;
      void reg.restored.then(() => (restored = true));
      const restoring = reg.restoreSaved();
      await reg.dispose();
      await restoring;
      await new Promise((r) => setTimeout(r, 20));
      assert.equal(restored, false);
      await reg.restoreSaved(); // a disposed registry reads nothing
      assert.equal(restored, false);
    });
  });
});
