/**
 * be-apply when a file's commit fails after its rename (the folder's sync, the read-back): that file is new on disk
 * although its commit failed, so it is put back with the others; one that another writer replaced meanwhile is left
 * alone and named in the refusal, never overwritten nor removed.
 */
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { ApplyJournal } from '../../../src/core/edits/apply/node/journal';
import { BatchEditor } from '../../../src/core/edits/apply/service';
import { ViewedCodeRegistry } from '../../../src/core/edits/viewedCode';
import { isToolError, ToolError } from '../../../src/core/errors';
import type { FileStore, StagedWrite } from '../../../src/core/files/fileStore';
import { NodeFileStore } from '../../../src/core/files/nodeFileStore';
import { Sandbox } from '../../../src/core/files/sandbox';
import { HistoryStore } from '../../../src/core/history/node/store';

/**
 * The disk store, except that the commit of `failAt` fails once the inner commit returned (its rename done):
 * `then` runs first (another writer, say), then the error, as a failed read-back would throw it.
 */
function failingAfterRename(inner: NodeFileStore, failAt: string, then: (abs: string) => Promise<void> = async () => undefined): FileStore {
  return {
    read: (p, o) => inner.read(p, o),
    stat: (p) => inner.stat(p),
    write: (p, b, o) => inner.write(p, b, o),
    writeParts: (p, parts, o) => inner.writeParts(p, parts, o),
    remove: (p) => inner.remove(p),
    lock: (p, fn) => inner.lock(p, fn),
    lockAll: (ps, fn) => inner.lockAll(ps, fn),
    stage: async (p, parts, o) => {
      const s = await inner.stage(p, parts, o);
      const wrapped: StagedWrite = {
        target: s.target,
        tempPath: s.tempPath,
        before: s.before,
        get after() {
          return s.after;
        },
        commit: async (c) => {
          const stat = await s.commit(c);
          if (p !== failAt) return stat;
          await then(p);
          throw new ToolError('io', `${p} was written, but reading it back failed (injected after the rename)`);
        },
        syncFolder: () => s.syncFolder!(),
        discard: () => s.discard(),
        revert: () => s.revert(),
      };
      return wrapped;
    },
  };
}

describe('core/edits/apply: a commit that fails after its rename', () => {
  let base: string;
  let root: string;
  let disk: NodeFileStore;
  let sandbox: Sandbox;
  let journal: ApplyJournal;
  let history: HistoryStore;

  beforeEach(async () => {
    base = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'bet-putback-')));
    root = path.join(base, 'ws');
    await fs.mkdir(root);
    disk = new NodeFileStore({ lockDir: path.join(base, 'locks') });
    sandbox = new Sandbox([root]);
    journal = new ApplyJournal(path.join(base, 'journal'));
    history = await HistoryStore.open({ dir: path.join(base, 'history'), files: disk, sandbox });
    for (const n of ['a', 'b', 'c']) await fs.writeFile(path.join(root, `${n}.txt`), `${n}1\n${n}2\n`);
  });
  afterEach(() => fs.rm(base, { recursive: true, force: true }));

  const editor = (files: FileStore) => new BatchEditor({ files, sandbox, journal, viewed: new ViewedCodeRegistry(), history, maxFileBytes: 1 << 20, maxAnalyzeBytes: 1 << 20 });
  const read = (n: string) => fs.readFile(path.join(root, n), 'utf8').catch(() => undefined);
  const leftovers = async () => [...(await fs.readdir(root)).filter((n) => n.endsWith('.tmp')), ...(await fs.readdir(journal.dir).catch(() => []))];
  const batch = [
    { file: 'a.txt:1', content: 'A1\n' },
    { file: 'b.txt:1', content: 'B1\n' },
    { file: 'c.txt:2', content: 'C2\n' },
  ];

  it('puts the failed file back with the others: every file old, no temp, no journal, no history step', async () => {
    const err = await editor(failingAfterRename(disk, path.join(root, 'b.txt')))
      .apply({ edits: batch })
      .then(() => undefined, (e: unknown) => e);
    assert.ok(isToolError(err), `refused (${String(err)})`);
    assert.match(err.message, /nothing was changed/);
    assert.deepEqual([await read('a.txt'), await read('b.txt'), await read('c.txt')], ['a1\na2\n', 'b1\nb2\n', 'c1\nc2\n']);
    assert.deepEqual(await leftovers(), []);
    assert.equal((await history.status()).snapshots.length, 0);
  });

  it('removes a file the batch created whose commit failed after its rename', async () => {
    const err = await editor(failingAfterRename(disk, path.join(root, 'new.txt')))
      .apply({ edits: [{ file: 'a.txt:1', content: 'A1\n' }, { file: 'new.txt', content: 'fresh\n' }] })
      .then(() => undefined, (e: unknown) => e);
    assert.ok(isToolError(err) && /nothing was changed/.test(err.message), String(err));
    assert.equal(await read('new.txt'), undefined);
    assert.equal(await read('a.txt'), 'a1\na2\n');
    assert.deepEqual(await leftovers(), []);
  });

  it('leaves a file another writer replaced after the rename, names it, and puts back every other one', async () => {
    const other = async (abs: string) => {
      await fs.writeFile(`${abs}.other`, 'theirs\n');
      await fs.rename(`${abs}.other`, abs);
    };
    const b = path.join(root, 'b.txt');
    const err = await editor(failingAfterRename(disk, b, other))
      .apply({ edits: batch })
      .then(() => undefined, (e: unknown) => e);
    assert.ok(isToolError(err), String(err));
    assert.doesNotMatch(err.message, /nothing was changed/);
    assert.match(err.message, /b\.txt could not be put back/);
    assert.deepEqual(err.details?.not_put_back, [b]);
    assert.deepEqual([await read('a.txt'), await read('b.txt'), await read('c.txt')], ['a1\na2\n', 'theirs\n', 'c1\nc2\n']);
    // the journal stays for the next start, which finds the others old and leaves b as the other writer made it
    const r = await journal.recover({ files: disk, sandbox, isAlive: async () => false });
    assert.deepEqual(r.skipped, [b]);
    assert.equal(await read('b.txt'), 'theirs\n');
    assert.deepEqual(await leftovers(), []);
  });

  it('never removes a created file another writer replaced after the rename', async () => {
    const fresh = path.join(root, 'new.txt');
    const other = async (abs: string) => {
      await fs.writeFile(`${abs}.other`, 'theirs\n');
      await fs.rename(`${abs}.other`, abs);
    };
    const err = await editor(failingAfterRename(disk, fresh, other))
      .apply({ edits: [{ file: 'a.txt:1', content: 'A1\n' }, { file: 'new.txt', content: 'fresh\n' }] })
      .then(() => undefined, (e: unknown) => e);
    assert.ok(isToolError(err) && /new\.txt could not be put back/.test(err.message), String(err));
    assert.equal(await read('new.txt'), 'theirs\n');
    assert.equal(await read('a.txt'), 'a1\na2\n');
  });
});
