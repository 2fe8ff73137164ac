/**
 * Where a write's rename is made (fsCalls.ts): a batch's renames through the thread pool, where the kernel overlaps
 * the release of the files they replace; a single write's at once on the event loop, on a local file system.
 */
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import * as os from 'node:os';
import * as path from 'node:path';
import { ApplyJournal } from '../../../src/core/edits/apply/node/journal';
import { BatchEditor } from '../../../src/core/edits/apply/service';
import { ViewedCodeRegistry } from '../../../src/core/edits/viewedCode';
import { callsForFolder, directCalls } from '../../../src/core/files/fsCalls';
import { NodeFileStore } from '../../../src/core/files/nodeFileStore';
import { Sandbox } from '../../../src/core/files/sandbox';
import { HistoryStore } from '../../../src/core/history/node/store';

/** node:fs itself (the import's namespace is read-only): its calls are wrapped to see which the store makes */
const fsm = createRequire(__filename)('node:fs') as { -readonly [K in keyof typeof fs]: (typeof fs)[K] };

describe('core/edits/apply: a batch renames through the thread pool, a single write at once', () => {
  let base: string;
  let root: string;
  let disk: NodeFileStore;
  let journal: ApplyJournal;
  let history: HistoryStore;
  const names = ['a.txt', 'b.txt', 'c.txt'];
  /** the renames onto one of `names`, by how they were made */
  let made: { sync: string[]; pool: string[] };
  const { renameSync } = fs;
  const { rename } = fs.promises;

  beforeEach(async function () {
    base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'bet-renames-')));
    root = path.join(base, 'ws');
    fs.mkdirSync(root);
    // the pool everywhere (not a local file system): nothing to tell apart
    if ((await callsForFolder(root)) !== directCalls) this.skip();
    disk = new NodeFileStore({ lockDir: path.join(base, 'locks') });
    journal = new ApplyJournal(path.join(base, 'journal'));
    history = await HistoryStore.open({ dir: path.join(base, 'history'), files: disk, sandbox: new Sandbox([root]) });
    for (const n of names) fs.writeFileSync(path.join(root, n), `${n}1\n${n}2\n`);
    made = { sync: [], pool: [] };
    const onto = (to: unknown) => names.find((n) => path.basename(String(to)) === n);
    fsm.renameSync = ((from: fs.PathLike, to: fs.PathLike) => {
      const n = onto(to);
      if (n) made.sync.push(n);
      return renameSync(from, to);
    }) as typeof fs.renameSync;
    fs.promises.rename = (async (from: fs.PathLike, to: fs.PathLike) => {
      const n = onto(to);
      if (n) made.pool.push(n);
      return rename(from, to);
    }) as typeof fs.promises.rename;
  });
  afterEach(() => {
    fsm.renameSync = renameSync;
    fs.promises.rename = rename;
    fs.rmSync(base, { recursive: true, force: true });
  });

  it("be-apply's renames go through the pool, none on the event loop; every file lands", async () => {
    const editor = new BatchEditor({ files: disk, sandbox: new Sandbox([root]), journal, viewed: new ViewedCodeRegistry(), history, maxFileBytes: 1 << 20, maxAnalyzeBytes: 1 << 20 });
    await editor.apply({ edits: names.map((n) => ({ file: `${n}:1`, content: `${n.toUpperCase()}1` })) });
    assert.deepEqual([...made.pool].sort(), names, 'each file renamed once, through the pool');
    assert.deepEqual(made.sync, [], 'no rename of the batch made on the event loop');
    for (const n of names) assert.equal(fs.readFileSync(path.join(root, n), 'utf8'), `${n.toUpperCase()}1\n${n}2\n`);
  });

  it("a single write's rename is made at once, not through the pool", async () => {
    await disk.write(path.join(root, 'a.txt'), Buffer.from('new\n'));
    assert.deepEqual(made, { sync: ['a.txt'], pool: [] });
    assert.equal(fs.readFileSync(path.join(root, 'a.txt'), 'utf8'), 'new\n');
  });
});
