/**
 * The chip store under noise and hostile directories: removed text has its own quota, state files that are not
 * regular files (FIFO, directory) or are huge are skipped without being opened, a `.lock` that is not a lock file
 * does not block saves.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { ChipStore, MAX_CHIP_FILE_BYTES } from '../../../src/core/chips/node/store';
import { MAX_ERROR_CHARS } from '../../../src/core/chips/bound';
import { ToolError } from '../../../src/core/errors';
import { cpuMsAsync } from '../../cpuTime';
import { FakeClock, removeTempDirs, tempDir } from './helpers';

const posix = process.platform !== 'win32';

describe('ChipStore safety', () => {
  let dir: string;
  let warnings: string[];
  const open = (extra: Partial<Parameters<typeof ChipStore.open>[0]> = {}) =>
    ChipStore.open({ dir, clock: new FakeClock(), log: (m) => warnings.push(m), ...extra });

  beforeEach(async () => {
    dir = path.join(await tempDir(), 'chips');
    await fs.mkdir(dir, { recursive: true });
    warnings = [];
  });
  afterEach(removeTempDirs);

  describe('separate quotas', () => {
    it('no number of failed-call chips evicts removed text, and removed text evicts only removed text', async () => {
      const store = await open({ capacity: 3, deletedCapacity: 2 });
      const deleted = (await store.saveContent('be-delete', 'precious deleted text\n', { file: '/w/a.ts', range: { start: 1, end: 1 } })).chip;
      const failedIds: string[] = [];
      for (let i = 0; i < 40; i++) {
        const r = await store.saveFailedCall('be-replace', { file: `/w/a.ts:${i}`, content: `attempt number ${i} with enough bytes` }, 'out of range');
        failedIds.push(r!.chip.id);
        assert.ok(!r!.evicted.includes(deleted.id), `failed call ${i} evicted the deleted-text chip`);
      }
      let ids = (await store.list()).map((c) => c.id);
      assert.ok(ids.includes(deleted.id), 'removed text survives 40 failed calls');
      assert.deepEqual(ids.filter((id) => id !== deleted.id), failedIds.slice(-3), 'failed calls keep their own 3 newest');
      // removed text has a quota of 2: the third removal evicts the oldest removal, not a failed call
      const d2 = (await store.saveContent('be-delete', 'second')).chip;
      const d3 = await store.saveContent('be-delete', 'third');
      assert.deepEqual(d3.evicted, [deleted.id]);
      ids = (await store.list()).map((c) => c.id);
      assert.deepEqual(ids.filter((id) => failedIds.includes(id)), failedIds.slice(-3));
      assert.ok(ids.includes(d2.id) && ids.includes(d3.chip.id));
    });

    it('upstream-shaped chips of removed text (no seq, `_content`) count against the removed-text quota', async () => {
      await fs.writeFile(path.join(dir, 'chip-aaaaaa.json'), JSON.stringify({ id: 'aaaaaa', tool: 'be-delete', args: { _content: 'old upstream text' }, created_at: 1 }));
      const store = await open({ capacity: 1 });
      for (let i = 0; i < 5; i++) await store.saveFailedCall('be-write', { file: 'x', content: `content long enough to be kept ${i}` }, 'e');
      assert.ok((await store.list()).some((c) => c.id === 'aaaaaa'));
    });
  });

  describe('bounded metadata and work', () => {
    it('a failed call keeps at most a bounded err_msg', async () => {
      const store = await open();
      const r = await store.saveFailedCall('be-read', { file: 'a'.repeat(100) }, `error: ${'p'.repeat(1_000_000)}`);
      assert.ok(r!.chip.err_msg!.length <= MAX_ERROR_CHARS, `err_msg is ${r!.chip.err_msg!.length} chars`);
      assert.match(r!.chip.err_msg!, /more chars\)|chars omitted/);
    });

    it('loads an upstream-shaped chip of one 20 MB line without a preview: bounded preview work, fast', async () => {
      const text = 'x'.repeat(20 * 1024 * 1024);
      await fs.writeFile(path.join(dir, 'chip-bbbbbb.json'), `{"id":"bbbbbb","tool":"be-delete","args":{"_content":"${text}"},"created_at":5}`);
      const { ms, value: chip } = await cpuMsAsync(async () => (await (await open()).list())[0]);
      assert.equal(chip!.id, 'bbbbbb');
      assert.equal(chip!.preview, `${'x'.repeat(79)}…`);
      assert.equal(chip!.size, text.length);
      assert.ok(ms < 3000, `took ${ms.toFixed(0)} ms of CPU`);
    });

    it('skips a chip file over the size limit without reading it, with a warning, and leaves it in place', async () => {
      const huge = path.join(dir, 'chip-cccccc.json');
      await fs.writeFile(huge, '{');
      await fs.truncate(huge, MAX_CHIP_FILE_BYTES + 1); // sparse: no disk use
      const store = await open();
      const { chip } = await store.saveContent('be-delete', 'fine');
      assert.deepEqual((await store.list()).map((c) => c.id), [chip.id]);
      assert.ok(warnings.some((w) => w.includes('chip-cccccc.json') && /over the \d+-byte limit/.test(w)), warnings.join('\n'));
      await assert.rejects(store.get('cccccc'), (e: unknown) => e instanceof ToolError && /over the \d+-byte limit/.test(e.message));
      await fs.access(huge);
    });
  });

  describe('files that are not regular files', function () {
    before(function () {
      if (!posix) this.skip();
    });

    it('a FIFO named like a chip, as the counter and as the lock: open, list, save and get never block', async () => {
      execFileSync('mkfifo', [path.join(dir, 'chip-dddddd.json'), path.join(dir, '.seq')]);
      const started = Date.now();
      const store = await open({ lockTimeoutMs: 2000 });
      const { chip } = await store.saveContent('be-delete', 'after the fifo');
      assert.deepEqual((await store.list()).map((c) => c.id), [chip.id]);
      assert.ok(warnings.some((w) => w.includes('chip-dddddd.json') && /FIFO/.test(w)), warnings.join('\n'));
      await assert.rejects(store.get('dddddd'), /FIFO/);
      execFileSync('mkfifo', [path.join(dir, '.lock')]);
      await store.saveContent('be-delete', 'with a fifo lock');
      assert.ok(warnings.some((w) => /removed a FIFO .* at the lock path/.test(w)), warnings.join('\n'));
      assert.ok(Date.now() - started < 3000, `took ${Date.now() - started} ms`);
    });

    it('a .lock that is an empty directory is removed with a warning; a full one fails at once, saying what to do', async () => {
      const store = await open({ lockTimeoutMs: 5000 });
      await fs.mkdir(path.join(dir, '.lock'));
      let started = Date.now();
      await store.saveContent('be-delete', 'saved despite the directory');
      assert.ok(Date.now() - started < 1000, `took ${Date.now() - started} ms`);
      assert.ok(warnings.some((w) => /removed a directory .* at the lock path/.test(w)), warnings.join('\n'));
      await fs.mkdir(path.join(dir, '.lock'));
      await fs.writeFile(path.join(dir, '.lock', 'someone.txt'), 'theirs');
      started = Date.now();
      await assert.rejects(
        store.saveContent('be-delete', 'x'),
        (e: unknown) => e instanceof ToolError && /is a directory, not a lock file/.test(e.message) && /Move it away/.test(e.message),
      );
      assert.ok(Date.now() - started < 1000, `failed after ${Date.now() - started} ms, not at once`);
      assert.equal(await fs.readFile(path.join(dir, '.lock', 'someone.txt'), 'utf8'), 'theirs', 'their file is untouched');
    });

    it('a symbolic link named like a chip is not followed', async () => {
      const outside = path.join(path.dirname(dir), 'outside.json');
      await fs.writeFile(outside, JSON.stringify({ id: 'eeeeee', tool: 'be-delete', args: { _content: 'not mine' }, created_at: 1 }));
      await fs.symlink(outside, path.join(dir, 'chip-eeeeee.json'));
      const store = await open();
      assert.deepEqual(await store.list(), []);
      assert.ok(warnings.some((w) => w.includes('chip-eeeeee.json') && /symbolic link/.test(w)), warnings.join('\n'));
    });
  });
});
