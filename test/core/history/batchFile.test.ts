/**
 * A be-apply batch's snapshots are one file (v 3): one write per batch, not one per file. Read back by another
 * store on the same folder (another server process), undone whole; the per-file records of earlier versions are
 * still read; a part that leaves the queue alone (a review revert) leaves the others undoable.
 */
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { ApplyJournal } from '../../../src/core/edits/apply/node/journal';
import { BatchEditor } from '../../../src/core/edits/apply/service';
import { ViewedCodeRegistry } from '../../../src/core/edits/viewedCode';
import { NodeFileStore } from '../../../src/core/files/nodeFileStore';
import { Sandbox } from '../../../src/core/files/sandbox';
import { HistoryStore } from '../../../src/core/history/node/store';
import type { GroupSnapshotFile } from '../../../src/core/history/snapshotFile';

describe('core/history: a batch is one snapshot file', () => {
  let base: string;
  let root: string;
  let historyDir: string;
  let files: NodeFileStore;
  let sandbox: Sandbox;
  let history: HistoryStore;
  let apply: BatchEditor;
  const names = ['a.txt', 'b.txt', 'big.txt', 'c.txt'];
  const big = 'x'.repeat(100 * 1024) + '\n'; // over the inline limit: its removed bytes go to a .bin
  const before: Record<string, string> = { 'a.txt': 'a1\na2\n', 'b.txt': 'b1\nb2\n', 'big.txt': `${big}tail\n`, 'c.txt': 'c1\nc2\n' };

  beforeEach(async () => {
    base = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'bet-batchfile-')));
    root = path.join(base, 'ws');
    historyDir = path.join(base, 'history');
    await fs.mkdir(root);
    for (const n of names) await fs.writeFile(path.join(root, n), before[n]!);
    files = new NodeFileStore({ lockDir: path.join(base, 'locks') });
    sandbox = new Sandbox([root]);
    history = await HistoryStore.open({ dir: historyDir, files, sandbox });
    apply = new BatchEditor({ files, sandbox, journal: new ApplyJournal(path.join(base, 'journal')), viewed: new ViewedCodeRegistry(), history, maxFileBytes: 1 << 26, maxAnalyzeBytes: 1 << 21 });
    const r = await apply.apply({ edits: names.map((n) => ({ file: `${n}:1`, content: `${n} new\n` })) });
    assert.equal(r.files, names.length);
  });
  afterEach(() => fs.rm(base, { recursive: true, force: true }));

  const jsons = async () => (await fs.readdir(historyDir)).filter((n) => /^snap-.*\.json$/.test(n)).sort();
  const contents = async () => Object.fromEntries(await Promise.all(names.map(async (n) => [n, await fs.readFile(path.join(root, n), 'utf8')] as const)));
  const another = () => HistoryStore.open({ dir: historyDir, files, sandbox });

  it('one JSON for the batch (and the large part\'s .bin); another store reads all its parts and undoes them as one step', async () => {
    const [name, ...more] = await jsons();
    assert.deepEqual(more, [], 'one snapshot file for the whole batch');
    const raw = JSON.parse(await fs.readFile(path.join(historyDir, name!), 'utf8')) as GroupSnapshotFile;
    assert.equal(raw.v, 3);
    assert.deepEqual(raw.parts.map((p) => path.basename(p.file)).sort(), names);
    assert.equal((await fs.readdir(historyDir)).filter((n) => n.endsWith('.bin')).length, 1);
    const other = await another();
    const status = await other.status();
    assert.equal(status.queue.used, 1);
    assert.equal(status.snapshots.length, names.length);
    const rb = await other.rollback(1, false);
    assert.equal(rb.rolled_back, names.length, rb.errors?.join('; '));
    assert.deepEqual(await contents(), before);
    assert.deepEqual(await jsons(), [], 'undone: the batch file is gone');
    assert.equal((await fs.readdir(historyDir)).filter((n) => n.endsWith('.bin')).length, 0);
  });

  it('the per-file batch records of earlier versions (v 2, one file per part) are still read and undone as one step', async () => {
    const [name] = await jsons();
    const raw = JSON.parse(await fs.readFile(path.join(historyDir, name!), 'utf8')) as GroupSnapshotFile;
    for (const part of raw.parts) await fs.writeFile(path.join(historyDir, `snap-${String(part.seq).padStart(12, '0')}-${part.id}.json`), JSON.stringify(part));
    if (!raw.parts.some((p) => name === `snap-${String(p.seq).padStart(12, '0')}-${p.id}.json`)) await fs.unlink(path.join(historyDir, name!));
    assert.equal((await jsons()).length, names.length);
    const old = await another();
    const status = await old.status();
    assert.equal(status.queue.used, 1, 'the parts share their group: one step');
    assert.equal(status.snapshots.length, names.length);
    const rb = await old.rollback(1, false);
    assert.equal(rb.rolled_back, names.length, rb.errors?.join('; '));
    assert.deepEqual(await contents(), before);
  });

  it('a part reverted alone: the rest stay undoable, in a file another store reads', async () => {
    const parts = (await history.status()).snapshots;
    const first = parts.find((s) => s.file.endsWith('a.txt'))!;
    const second = parts.find((s) => s.file.endsWith('b.txt'))!;
    for (const part of [second, first]) {
      const r = (await history.review({ action: 'revert', id: part.id })) as { status: string };
      assert.equal(r.status, 'ok');
    }
    assert.equal(await fs.readFile(path.join(root, 'a.txt'), 'utf8'), before['a.txt']);
    assert.equal(await fs.readFile(path.join(root, 'b.txt'), 'utf8'), before['b.txt']);
    const other = await another();
    const left = (await other.status()).snapshots.filter((s) => s.tool === 'be-apply');
    assert.deepEqual(left.map((s) => path.basename(s.file)).sort(), ['big.txt', 'c.txt'], 'the parts not reverted, read from the rewritten file');
    // the two reverts are steps of their own, newest first: undo them, then the rest of the batch
    const rb = await other.rollback(3, false);
    assert.equal(rb.rolled_back, 4, rb.errors?.join('; '));
    assert.deepEqual(await contents(), Object.fromEntries(names.map((n) => [n, n === 'a.txt' || n === 'b.txt' ? `${n} new\n${before[n]!.split('\n')[1]}\n` : before[n]!])));
  });

  it('a crash between the rewrite and the rename: the parts not reverted stay undoable under the old name', async () => {
    const [name] = await jsons();
    const raw = JSON.parse(await fs.readFile(path.join(historyDir, name!), 'utf8')) as GroupSnapshotFile;
    const [first, second] = raw.parts;
    // the name the rest would move to is taken by a folder: the rename fails where a crash would have stopped it
    const next = `snap-${String(second!.seq).padStart(12, '0')}-${second!.id}.json`;
    await fs.mkdir(path.join(historyDir, next));
    assert.equal(((await history.review({ action: 'revert', id: first!.id })) as { status: string }).status, 'ok');
    assert.ok((await jsons()).includes(name!), 'the rewritten batch keeps its old name');
    const left = (await (await another()).status()).snapshots.filter((s) => s.tool === 'be-apply');
    assert.deepEqual(left.map((s) => s.id).sort(), raw.parts.slice(1).map((p) => p.id).sort(), 'each part not reverted, once');
    // the revert is a step of its own: undo it and the rest of the batch
    const rb = await (await another()).rollback(2, false);
    assert.equal(rb.rolled_back, names.length, rb.errors?.join('; '));
    const now = await contents();
    assert.deepEqual(names.filter((n) => now[n] !== (n === 'a.txt' ? 'a.txt new\na2\n' : before[n])), [], 'files not as before the batch (a.txt: as after it)');
  });

  it('two stores revert two parts of one batch at once: neither brings back the part the other took out', async () => {
    const other = await another(); // read the batch before either revert
    const parts = (await history.status()).snapshots;
    const idOf = (name: string) => parts.find((s) => s.file.endsWith(name))!.id;
    assert.equal(((await history.review({ action: 'revert', id: idOf('b.txt') })) as { status: string }).status, 'ok');
    assert.equal(((await other.review({ action: 'revert', id: idOf('c.txt') })) as { status: string }).status, 'ok');
    const third = await another();
    const left = (await third.status()).snapshots.filter((s) => s.tool === 'be-apply');
    assert.deepEqual(left.map((s) => path.basename(s.file)).sort(), ['a.txt', 'big.txt']);
  });
});
