import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { NodeFileStore } from '../../../src/core/files/nodeFileStore';
import { tempPathFor } from '../../../src/core/files/tempFiles';
import { ToolError } from '../../../src/core/errors';

const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;

function leftovers(dir: string): string[] {
  return fs.readdirSync(dir).filter((n) => n.includes('.be-') && n.endsWith('.tmp'));
}

describe('core/files NodeFileStore', () => {
  let dir: string;
  const store = new NodeFileStore();
  beforeEach(() => {
    dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'be-store-')));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('reads bytes and stat; missing file is not_found; a directory is invalid', async () => {
    const f = path.join(dir, 'a.txt');
    fs.writeFileSync(f, 'hello\n');
    const c = await store.read(f);
    assert.equal(c.bytes.toString(), 'hello\n');
    assert.equal(c.stat.size, 6);
    assert.equal(c.stat.mtimeMs, fs.statSync(f).mtimeMs);
    await assert.rejects(store.read(path.join(dir, 'nope')), (e: unknown) => e instanceof ToolError && e.code === 'not_found');
    await assert.rejects(store.read(dir), (e: unknown) => e instanceof ToolError && e.code === 'invalid_argument');
    assert.equal(await store.stat(path.join(dir, 'nope')), undefined);
  });

  it('unreadable file (chmod 000) gives an io error', async function () {
    if (isRoot) this.skip(); // root bypasses permission bits, so the refusal cannot be provoked
    const f = path.join(dir, 'locked.txt');
    fs.writeFileSync(f, 'x');
    fs.chmodSync(f, 0o000);
    await assert.rejects(store.read(f), (e: unknown) => e instanceof ToolError && e.code === 'io' && /permission denied/.test(e.message));
  });

  it('a file that cannot be read (EIO from /proc/self/mem, works as root) gives an io error', async function () {
    if (process.platform !== 'linux') this.skip();
    // the real path (/proc/self is a link, and the store refuses links)
    await assert.rejects(store.read(`/proc/${process.pid}/mem`), (e: unknown) => e instanceof ToolError && e.code === 'io');
  });

  it('flaw: edits reset permission bits to 0644 — the mode is kept', async () => {
    const f = path.join(dir, 'run.sh');
    fs.writeFileSync(f, '#!/bin/sh\n');
    fs.chmodSync(f, 0o755);
    await store.write(f, Buffer.from('#!/bin/sh\necho hi\n'));
    assert.equal(fs.statSync(f).mode & 0o7777, 0o755);
    fs.chmodSync(f, 0o600);
    await store.write(f, Buffer.from('x'));
    assert.equal(fs.statSync(f).mode & 0o7777, 0o600);
  });

  it('set-user-id and set-group-id bits survive an edit (set after the last write, which clears them without CAP_FSETID)', async function () {
    if (process.platform === 'win32') this.skip();
    for (const mode of [0o4755, 0o2750, 0o6700]) {
      const f = path.join(dir, `setid-${mode.toString(8)}`);
      fs.writeFileSync(f, 'x');
      fs.chmodSync(f, mode);
      await store.write(f, Buffer.from('y'.repeat(70_000)));
      assert.equal(fs.statSync(f).mode & 0o7777, mode, mode.toString(8));
    }
  });

  it('an edit keeps the owner of the file (when running as root)', async function () {
    if (!isRoot) this.skip(); // only root can give a file another owner
    const f = path.join(dir, 'owned.txt');
    fs.writeFileSync(f, 'x');
    fs.chownSync(f, 1234, 5678);
    fs.chmodSync(f, 0o640);
    await store.write(f, Buffer.from('y'));
    const st = fs.statSync(f);
    assert.deepEqual([st.uid, st.gid, st.mode & 0o7777], [1234, 5678, 0o640]);
  });

  it('new files get the requested mode (minus umask) or 0666 minus umask', async () => {
    const f = path.join(dir, 'new.txt');
    await store.write(f, Buffer.from('x'));
    const umask = process.umask();
    assert.equal(fs.statSync(f).mode & 0o777, 0o666 & ~umask);
    const g = path.join(dir, 'new.sh');
    await store.write(g, Buffer.from('x'), { mode: 0o755 });
    assert.equal(fs.statSync(g).mode & 0o777, 0o755 & ~umask);
  });

  it('a symlink at the path is refused, not followed (the Sandbox resolves links; one there now is a swap)', async () => {
    const target = path.join(dir, 'real.txt');
    const link = path.join(dir, 'link.txt');
    fs.writeFileSync(target, 'old\n');
    fs.symlinkSync(target, link);
    const swapped = (e: unknown) => e instanceof ToolError && e.code === 'conflict' && /changed while it was being used/.test(e.message);
    await assert.rejects(store.write(link, Buffer.from('new\n')), swapped);
    await assert.rejects(store.read(link), swapped);
    await assert.rejects(store.stat(link), swapped);
    assert.equal(fs.lstatSync(link).isSymbolicLink(), true);
    assert.equal(fs.readFileSync(target, 'utf8'), 'old\n');
    assert.deepEqual(leftovers(dir), []);
    // the resolved path is written as before (through-the-link editing is the Sandbox's resolution)
    await store.write(fs.realpathSync(link), Buffer.from('new\n'));
    assert.equal(fs.readFileSync(target, 'utf8'), 'new\n');
    assert.equal(fs.lstatSync(link).isSymbolicLink(), true);
  });

  it('mkdirs creates missing parents; without it the error says so', async () => {
    const f = path.join(dir, 'a', 'b', 'c.txt');
    await assert.rejects(store.write(f, Buffer.from('x')), (e: unknown) => e instanceof ToolError && /mkdirs/.test(e.message));
    await store.write(f, Buffer.from('x'), { mkdirs: true });
    assert.equal(fs.readFileSync(f, 'utf8'), 'x');
  });

  it('expectedMtimeMs: a write after someone else changed the file is a conflict; nothing written, no temp left', async () => {
    const f = path.join(dir, 'a.txt');
    fs.writeFileSync(f, 'one\n');
    const { stat } = await store.read(f);
    fs.writeFileSync(f, 'two (someone else)\n');
    fs.utimesSync(f, new Date(), new Date(Date.now() + 5000));
    await assert.rejects(
      store.write(f, Buffer.from('mine\n'), { expectedMtimeMs: stat.mtimeMs }),
      (e: unknown) => e instanceof ToolError && e.code === 'conflict' && /Re-read/.test(e.message),
    );
    assert.equal(fs.readFileSync(f, 'utf8'), 'two (someone else)\n');
    assert.deepEqual(leftovers(dir), []);
    // and with the right mtime it goes through
    const again = await store.read(f);
    await store.write(f, Buffer.from('mine\n'), { expectedMtimeMs: again.stat.mtimeMs });
    assert.equal(fs.readFileSync(f, 'utf8'), 'mine\n');
  });

  it('concurrent writers: no torn file, and the loser of an mtime race gets a conflict', async () => {
    const f = path.join(dir, 'big.txt');
    fs.writeFileSync(f, 'start\n');
    const a = Buffer.alloc(4 * 1024 * 1024, 'a');
    const b = Buffer.alloc(4 * 1024 * 1024, 'b');
    for (let round = 0; round < 5; round++) {
      await Promise.all([store.write(f, a), store.write(f, b), store.write(f, a)]);
      const got = fs.readFileSync(f);
      assert.ok(got.equals(a) || got.equals(b), 'file is one whole version');
    }
    const { stat } = await store.read(f);
    const results = await Promise.allSettled([
      store.write(f, Buffer.from('first\n'), { expectedMtimeMs: stat.mtimeMs }),
      new Promise((r) => setTimeout(r, 5)).then(() => store.write(f, Buffer.from('second\n'), { expectedMtimeMs: stat.mtimeMs })),
    ]);
    const rejected = results.filter((r) => r.status === 'rejected');
    assert.equal(rejected.length, 1, 'exactly one writer loses');
    assert.equal(((rejected[0] as PromiseRejectedResult).reason as ToolError).code, 'conflict');
    assert.deepEqual(leftovers(dir), []);
  });

  it('temp names are unique per process and per call, in the target directory', () => {
    const f = path.join(dir, 'x.txt');
    const a = tempPathFor(f);
    const b = tempPathFor(f);
    assert.notEqual(a, b);
    assert.equal(path.dirname(a), dir);
    // the owner's pid and start time (base 36) are in the name, so a dead owner's leftovers can be told apart
    assert.match(path.basename(a), new RegExp(`^\\.x\\.txt\\.be-${process.pid}-[0-9a-z]+-[0-9a-f]{12}\\.tmp$`));
  });

  it('a failed write leaves the original untouched and removes its temp file', async () => {
    const f = path.join(dir, 'a.txt');
    fs.writeFileSync(f, 'keep\n');
    // writing a directory path fails before anything; writing where a directory stands fails at rename
    const sub = path.join(dir, 'sub');
    fs.mkdirSync(sub);
    await assert.rejects(store.write(sub, Buffer.from('x')));
    assert.deepEqual(leftovers(dir), []);
    assert.equal(fs.readFileSync(f, 'utf8'), 'keep\n');
  });

  it('remove deletes; missing is not_found', async () => {
    const f = path.join(dir, 'a.txt');
    fs.writeFileSync(f, 'x');
    await store.remove(f);
    assert.equal(fs.existsSync(f), false);
    await assert.rejects(store.remove(f), (e: unknown) => e instanceof ToolError && e.code === 'not_found');
  });
});
