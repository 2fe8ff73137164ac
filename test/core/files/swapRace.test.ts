import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { NodeFileStore } from '../../../src/core/files/nodeFileStore';
import { PinnedDir } from '../../../src/core/files/safeOpen';
import { Sandbox } from '../../../src/core/files/sandbox';
import { EditService } from '../../../src/core/edits/service';
import { ToolError } from '../../../src/core/errors';

function allFiles(dir: string): string[] {
  return fs.readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => !e.isDirectory())
    .map((e) => path.relative(dir, path.join(e.parentPath, e.name)))
    .sort();
}

const swapped = (e: unknown) => e instanceof ToolError && e.code === 'conflict' && /changed while it was being used/.test(e.message);

describe('core/files: a path swapped for a symlink after the Sandbox checked it', () => {
  let tmp: string;
  let root: string;
  let outside: string;
  let sandbox: Sandbox;
  const store = new NodeFileStore();
  beforeEach(() => {
    tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'be-swap-')));
    root = path.join(tmp, 'root');
    outside = path.join(tmp, 'outside');
    fs.mkdirSync(path.join(root, 'sub'), { recursive: true });
    fs.mkdirSync(outside);
    fs.writeFileSync(path.join(outside, 'victim.txt'), 'outside\n');
    sandbox = new Sandbox([root]);
  });
  afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

  /** The folder `root/sub` becomes a link to `outside` (the real folder moved aside). */
  function swapSubForLink(): void {
    fs.renameSync(path.join(root, 'sub'), path.join(root, 'sub.real'));
    fs.symlinkSync(outside, path.join(root, 'sub'));
  }

  it('a folder swapped after the check: the write is refused and nothing lands outside (new and existing files)', async () => {
    fs.writeFileSync(path.join(root, 'sub', 'f.txt'), 'inside\n');
    const existing = await sandbox.resolve('sub/f.txt');
    const created = await sandbox.resolve('sub/new.txt');
    fs.writeFileSync(path.join(root, 'sub', 'victim.txt'), 'inside\n');
    const sameName = await sandbox.resolve('sub/victim.txt');
    swapSubForLink();
    await assert.rejects(store.write(existing, Buffer.from('x\n')), swapped);
    await assert.rejects(store.write(created, Buffer.from('x\n'), { mkdirs: true }), swapped);
    // a read opens the outside file of the same name, sees where the descriptor leads, and gives nothing back
    await assert.rejects(store.read(sameName), swapped);
    assert.deepEqual(allFiles(outside), ['victim.txt']);
    assert.equal(fs.readFileSync(path.join(outside, 'victim.txt'), 'utf8'), 'outside\n');
    assert.deepEqual(allFiles(path.join(root, 'sub.real')), ['f.txt', 'victim.txt'], 'no temp left either');
  });

  it('the file swapped for a link to an outside file with the same mtime: refused, the outside file untouched', async () => {
    const f = path.join(root, 'sub', 'f.txt');
    fs.writeFileSync(f, 'inside\n');
    const victim = path.join(outside, 'victim.txt');
    const when = Math.floor(Date.now() / 1000) - 60; // whole seconds: both files get exactly the same mtime
    fs.utimesSync(f, when, when);
    fs.utimesSync(victim, when, when);
    const abs = await sandbox.resolve('sub/f.txt');
    const { bytes, stat } = await store.read(abs);
    assert.equal(fs.statSync(victim).mtimeMs, stat.mtimeMs);
    fs.rmSync(f);
    fs.symlinkSync(victim, f);
    await assert.rejects(store.write(abs, Buffer.from('mine\n'), { expectedMtimeMs: stat.mtimeMs, expectedContent: bytes }));
    assert.equal(fs.readFileSync(victim, 'utf8'), 'outside\n');
    assert.ok(fs.lstatSync(f).isSymbolicLink());
  });

  it('a pinned folder names the folder that was opened, whatever its path points to later (Linux)', async function () {
    if (process.platform !== 'linux') this.skip();
    const dir = path.join(root, 'sub');
    const pinned = await PinnedDir.open('write', dir);
    try {
      swapSubForLink();
      fs.writeFileSync(pinned.at('landed.txt'), 'here\n');
      assert.deepEqual(allFiles(outside), ['victim.txt'], 'not through the new link');
      assert.equal(fs.readFileSync(path.join(root, 'sub.real', 'landed.txt'), 'utf8'), 'here\n');
      await assert.rejects(pinned.verify('write'), swapped, 'and the move of the folder itself is seen');
    } finally {
      await pinned.close();
    }
  });

  it('the path-based fallback refuses the same swaps (the check just before the rename)', async () => {
    const fallback = new NodeFileStore({ pinDirectories: false });
    const created = await sandbox.resolve('sub/new.txt');
    swapSubForLink();
    await assert.rejects(fallback.write(created, Buffer.from('x\n')), swapped);
    assert.deepEqual(allFiles(outside), ['victim.txt']);
  });

  it('a workspace symlink to a file inside the roots is still edited through (the link stays)', async () => {
    fs.writeFileSync(path.join(root, 'sub', 'real.txt'), 'one\ntwo\n');
    fs.symlinkSync('sub/real.txt', path.join(root, 'alias.txt'));
    const svc = new EditService({ files: store, sandbox });
    await svc.replace({ file: 'alias.txt:2', content: 'TWO' });
    assert.equal(fs.readFileSync(path.join(root, 'sub', 'real.txt'), 'utf8'), 'one\nTWO\n');
    assert.ok(fs.lstatSync(path.join(root, 'alias.txt')).isSymbolicLink());
  });
});

describe('core/files: the content check under the lock', () => {
  let dir: string;
  const store = new NodeFileStore();
  beforeEach(() => (dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'be-cas-')))));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('same size, same mtime, other bytes: a conflict naming the first changed line; nothing written', async () => {
    const f = path.join(dir, 'a.txt');
    fs.writeFileSync(f, 'one\ntwo\nthree\n');
    const { bytes, stat } = await store.read(f);
    fs.writeFileSync(f, 'one\ntwo\nTHREE\n');
    fs.utimesSync(f, new Date(stat.mtimeMs), new Date(stat.mtimeMs)); // a tool that restores the mtime
    await assert.rejects(
      store.write(f, Buffer.from('mine\n'), { expectedMtimeMs: stat.mtimeMs, expectedContent: bytes }),
      (e: unknown) => e instanceof ToolError && e.code === 'conflict' && /from line 3 on/.test(e.message) && /nothing was written/.test(e.message),
    );
    assert.equal(fs.readFileSync(f, 'utf8'), 'one\ntwo\nTHREE\n');
  });

  it('a size change and a deletion are named too; an mtime-only change (touch) with the same bytes is not a conflict', async () => {
    const f = path.join(dir, 'b.txt');
    fs.writeFileSync(f, 'abc\n');
    const { bytes } = await store.read(f);
    fs.writeFileSync(f, 'abcd\n');
    await assert.rejects(store.write(f, Buffer.from('x'), { expectedContent: bytes }), /5 bytes now, it was 4/);
    fs.rmSync(f);
    await assert.rejects(store.write(f, Buffer.from('x'), { expectedContent: bytes }), /it was deleted/);
    fs.writeFileSync(f, 'abc\n');
    fs.utimesSync(f, new Date(), new Date(Date.now() + 10_000));
    await store.write(f, Buffer.from('x'), { expectedContent: bytes });
    assert.equal(fs.readFileSync(f, 'utf8'), 'x');
  });

  it('expectedContent null: a file created meanwhile is not overwritten', async () => {
    const f = path.join(dir, 'c.txt');
    fs.writeFileSync(f, 'someone else\n');
    await assert.rejects(store.write(f, Buffer.from('mine'), { expectedContent: null }), /created meanwhile/);
    assert.equal(fs.readFileSync(f, 'utf8'), 'someone else\n');
  });
});
