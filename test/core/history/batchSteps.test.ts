/**
 * A be-apply batch is one history step whatever its file count: the queue's limit counts steps, so a batch over
 * more files than the limit keeps all its snapshots, and `be-trx rollback` step 1 undoes the whole batch.
 * Real files in a temp dir, the real BatchEditor, HistoryStore and EditService.
 */
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { ApplyJournal } from '../../../src/core/edits/apply/node/journal';
import { BatchEditor } from '../../../src/core/edits/apply/service';
import { ViewedCodeRegistry } from '../../../src/core/edits/viewedCode';
import { EditService } from '../../../src/core/edits/service';
import { NodeFileStore } from '../../../src/core/files/nodeFileStore';
import { Sandbox } from '../../../src/core/files/sandbox';
import { DEFAULT_MAX_SNAPSHOTS, HistoryStore } from '../../../src/core/history/node/store';

async function contents(root: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const name of (await fs.readdir(root)).sort()) out[name] = await fs.readFile(path.join(root, name), 'utf8');
  return out;
}

describe('core/history: a batch is one step, whatever its file count', () => {
  let base: string;
  let root: string;
  let historyDir: string;
  let history: HistoryStore;
  let edits: EditService;
  let apply: BatchEditor;

  beforeEach(async () => {
    base = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'bet-steps-')));
    root = path.join(base, 'ws');
    historyDir = path.join(base, 'history');
    await fs.mkdir(root);
    const files = new NodeFileStore({ lockDir: path.join(base, 'locks') });
    const sandbox = new Sandbox([root]);
    history = await HistoryStore.open({ dir: historyDir, files, sandbox });
    const viewed = new ViewedCodeRegistry();
    edits = new EditService({ files, sandbox, history, viewed });
    apply = new BatchEditor({ files, sandbox, journal: new ApplyJournal(path.join(base, 'journal')), viewed, history, maxFileBytes: 1 << 26, maxAnalyzeBytes: 1 << 21 });
  });
  afterEach(() => fs.rm(base, { recursive: true, force: true }));

  const names = (n: number) => Array.from({ length: n }, (_, i) => `f${String(i).padStart(2, '0')}.txt`);

  for (const count of [DEFAULT_MAX_SNAPSHOTS + 1, 45]) {
    it(`be-apply over ${count} files after a single edit: rollback step 1 undoes the whole batch, step 2 the edit before it`, async () => {
      for (const n of names(count)) await fs.writeFile(path.join(root, n), `${n} line 1\n${n} line 2\n`);
      await fs.writeFile(path.join(root, 'solo.txt'), 'solo\n');
      await edits.replace({ file: 'solo.txt:1', content: 'SOLO\n' });
      const beforeBatch = await contents(root);
      const r = await apply.apply({ edits: names(count).map((n) => ({ file: `${n}:2`, content: `${n} changed\n` })) });
      assert.equal(r.files, count);
      assert.equal(r.queue_full, undefined, 'two steps fit in a queue of 30 steps: nothing evicted');
      const status = await history.status();
      assert.equal(status.queue.used, 2, 'the queue counts steps: the single edit and the batch');
      assert.equal(status.snapshots.length, count + 1, 'every snapshot of the batch is kept');

      const rb = await history.rollback(1, false);
      assert.equal(rb.status, 'ok', rb.errors?.join('; '));
      assert.equal(rb.rolled_back, count);
      assert.deepEqual(await contents(root), beforeBatch, 'step 1 undid every file of the batch, and only the batch');
      await history.rollback(1, false);
      assert.equal(await fs.readFile(path.join(root, 'solo.txt'), 'utf8'), 'solo\n', 'step 2 (now 1) undid the edit before the batch');
    });
  }

  it('a batch over 31 files after 30 single edits: the oldest single edit is evicted, never a snapshot of the batch', async () => {
    for (const n of names(31)) await fs.writeFile(path.join(root, n), `${n}\n`);
    await fs.writeFile(path.join(root, 'solo.txt'), '0\n');
    for (let i = 1; i <= DEFAULT_MAX_SNAPSHOTS; i++) await edits.replace({ file: 'solo.txt:1', content: `${i}\n` });
    const beforeBatch = await contents(root);
    const r = await apply.apply({ edits: names(31).map((n) => ({ file: `${n}:1`, content: `${n} changed\n` })) });
    assert.match(r.queue_full ?? '', /maximum capacity \(30\)/, 'the oldest step made room, and the reply says so');
    const status = await history.status();
    assert.equal(status.queue.used, DEFAULT_MAX_SNAPSHOTS);
    assert.equal(status.snapshots.filter((s) => s.tool === 'be-apply').length, 31);
    const rb = await history.rollback(1, false);
    assert.equal(rb.rolled_back, 31);
    assert.deepEqual(await contents(root), beforeBatch);
    // the 29 single edits still recorded undo down to "1" (the edit to "1" itself was evicted)
    const rest = await history.rollback(DEFAULT_MAX_SNAPSHOTS, false);
    assert.equal(rest.rolled_back, DEFAULT_MAX_SNAPSHOTS - 1);
    assert.equal(await fs.readFile(path.join(root, 'solo.txt'), 'utf8'), '1\n');
  });

  it('recordGroup keeps a batch together while other edits are recorded at the same moment', async () => {
    const input = (file: string, group?: string) => ({
      tool: group ? 'be-apply' : 'be-replace', file: path.join(root, file), summary: file, created: false, offset: 0,
      removed: Buffer.from('a'), insertedLength: 1, afterHash: '0'.repeat(64), afterSize: 1, ...(group ? { group } : {}),
    });
    const batch = names(40).map((n) => input(n, 'g1'));
    await Promise.all([history.recordGroup(batch), ...names(5).map((_, i) => history.record(input(`solo${i}.txt`)))]);
    const status = await history.status();
    assert.equal(status.queue.used, 6, 'the batch is one step beside the five single edits');
    const tools = status.snapshots.map((s) => s.tool).join(' ');
    assert.match(tools, /^(be-replace )*(be-apply ){39}be-apply( be-replace)*$/, 'no single edit landed inside the batch');
  });

  it('the oldest step a batch: evicted whole, its one file gone with all its parts, the later steps kept', async () => {
    const input = (file: string, group?: string) => ({
      tool: group ? 'be-apply' : 'be-replace', file: path.join(root, file), summary: file, created: false, offset: 0,
      removed: Buffer.from('a'), insertedLength: 1, afterHash: '0'.repeat(64), afterSize: 1, ...(group ? { group } : {}),
    });
    await history.recordGroup(names(40).map((n) => input(n, 'g1')));
    const batchFiles = (await fs.readdir(historyDir)).filter((n) => n.startsWith('snap-'));
    assert.equal(batchFiles.length, 1, 'one file for the batch');
    let full: string | undefined;
    for (let i = 0; i < DEFAULT_MAX_SNAPSHOTS; i++) full = (await history.record(input(`solo${i}.txt`))).queue_full ?? full;
    assert.match(full ?? '', /maximum capacity/);
    const status = await history.status();
    assert.equal(status.queue.used, DEFAULT_MAX_SNAPSHOTS);
    assert.equal(status.snapshots.filter((s) => s.tool === 'be-apply').length, 0, 'no part of the batch is left');
    assert.ok(!(await fs.readdir(historyDir)).includes(batchFiles[0]!), "the batch's file is gone");
  });

  it('a new store over the same directory (a restart) still sees the batch as one step', async () => {
    for (const n of names(33)) await fs.writeFile(path.join(root, n), `${n}\n`);
    const before = await contents(root);
    await apply.apply({ edits: names(33).map((n) => ({ file: `${n}:1`, content: 'x\n' })) });
    const files = new NodeFileStore({ lockDir: path.join(base, 'locks') });
    const again = await HistoryStore.open({ dir: historyDir, files, sandbox: new Sandbox([root]) });
    assert.equal((await again.status()).queue.used, 1);
    assert.equal((await again.rollback(1, false)).rolled_back, 33);
    assert.deepEqual(await contents(root), before);
  });
});
