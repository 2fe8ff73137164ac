/**
 * A write under the lock after a read under the same hold (the edit path: lock, load, write) looks at the file it
 * replaces through the read's stat, not through another lstat; the stat serves one write only, so a second write
 * of the same hold looks again and sees the first. And the staged temp, kept open for the read-back, is closed after
 * the rename: a close that fails then does not make a landed edit say it failed.
 */
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createRequire } from 'node:module';
import { NodeFileStore } from '../../../src/core/files/nodeFileStore';
import { usePoolOnly } from '../../../src/core/files/fsCalls';

/** node:fs itself (a namespace import's properties are getters of it): where the direct calls are made. */
const fsm = createRequire(__filename)('node:fs') as { -readonly [K in keyof typeof fs]: (typeof fs)[K] };

describe('core/files: a write after a read under the same lock', () => {
  let dir: string;
  let f: string;
  beforeEach(() => {
    dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'be-readlock-')));
    f = path.join(dir, 'f.txt');
    fs.writeFileSync(f, 'one\n');
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  /** The lstat calls naming `name` while `run` runs (through the pool or direct, fsCalls.ts). */
  async function lstatsOf(name: string, run: () => Promise<void>): Promise<number> {
    const lstat = fs.promises.lstat;
    const lstatSync = fsm.lstatSync;
    let n = 0;
    fs.promises.lstat = ((p: fs.PathLike, ...rest: unknown[]) => {
      if (path.basename(String(p)) === name) n++;
      return (lstat as (...a: unknown[]) => unknown)(p, ...rest);
    }) as typeof lstat;
    fsm.lstatSync = ((p: fs.PathLike, ...rest: unknown[]) => {
      if (path.basename(String(p)) === name) n++;
      return (lstatSync as (...a: unknown[]) => unknown)(p, ...rest);
    }) as typeof lstatSync;
    try {
      await run();
    } finally {
      fs.promises.lstat = lstat;
      fsm.lstatSync = lstatSync;
    }
    return n;
  }

  for (const crossProcess of [true, false]) {
    it(`the read's stat stands for the replaced file (its mode kept); a second write looks again${crossProcess ? '' : ' (in-process lock only)'}`, async () => {
      const store = new NodeFileStore({ crossProcess });
      fs.chmodSync(f, 0o640);
      const seen = await lstatsOf('f.txt', () =>
        store.lock(f, async () => {
          const { bytes } = await store.read(f);
          // the write's look at the entry is the read's stat: no lstat of its own for it
          await store.write(f, Buffer.from('two\n'), { expectedContent: bytes });
        }),
      );
      // three: the read's own before its open, the compare's (the name must still be the read's inode) and the
      // read-back's (the name must be the staged inode); a look at the entry for the write would make it four
      assert.equal(seen, 3);
      assert.equal(fs.readFileSync(f, 'utf8'), 'two\n');
      if (process.platform !== 'win32') assert.equal(fs.statSync(f).mode & 0o777, 0o640);

      const again = await lstatsOf('f.txt', () =>
        store.lock(f, async () => {
          const { bytes } = await store.read(f);
          await store.write(f, Buffer.from('three, longer\n'), { expectedContent: bytes });
          // the first write changed size and mtime: this one must not judge by the read's stale stat
          await store.write(f, Buffer.from('four\n'), { expectedContent: Buffer.from('three, longer\n') });
        }),
      );
      // the read's, the first write's compare and read-back, the second write's look at the entry (no read's stat
      // left for it) and read-back (its compare reopens: the name no longer holds the read's inode)
      assert.equal(again, 5);
      assert.equal(fs.readFileSync(f, 'utf8'), 'four\n');
    });
  }

  it('a read outside the lock leaves nothing for a later write: it looks at the file itself', async () => {
    const store = new NodeFileStore({ crossProcess: true });
    const { bytes } = await store.read(f);
    const seen = await lstatsOf('f.txt', () => store.lock(f, async () => void (await store.write(f, Buffer.from('x\n'), { expectedContent: bytes }))));
    // its own look at the entry, and the read-back's
    assert.equal(seen, 2);
    assert.equal(fs.readFileSync(f, 'utf8'), 'x\n');
  });
});

describe('core/files: the staged temp is closed after the rename', () => {
  let dir: string;
  beforeEach(() => (dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'be-tempclose-')))));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  afterEach(() => usePoolOnly(false));

  it('a temp whose close fails after its sync, the rename and the read-back (direct calls): the edit landed and says so, no temp is left', async function () {
    if (process.platform !== 'linux') this.skip();
    const f = path.join(dir, 'f.txt');
    fs.writeFileSync(f, 'one\n');
    const store = new NodeFileStore({ crossProcess: true });
    // the temp's descriptor, seen at its open (through the pool or direct), gets a failing close
    const { open, openSync, closeSync } = fsm;
    const temps = new Set<number>();
    fsm.open = ((p: fs.PathLike, ...rest: unknown[]) => {
      const cb = rest.pop() as (e: unknown, fd?: number) => void;
      (open as (...a: unknown[]) => void)(p, ...rest, (e: unknown, fd?: number) => {
        if (fd !== undefined && String(p).endsWith('.tmp')) temps.add(fd);
        cb(e, fd);
      });
    }) as typeof open;
    fsm.openSync = ((p: fs.PathLike, ...rest: unknown[]) => {
      const fd = (openSync as (...a: unknown[]) => number)(p, ...rest);
      if (String(p).endsWith('.tmp')) temps.add(fd);
      return fd;
    }) as typeof openSync;
    let failed = 0;
    fsm.closeSync = ((fd: number) => {
      closeSync(fd);
      if (temps.delete(fd)) {
        failed++;
        throw Object.assign(new Error('EIO: i/o error, close'), { code: 'EIO' });
      }
    }) as typeof closeSync;
    try {
      const { bytes } = await store.read(f);
      const st = await store.write(f, Buffer.from('two\n'), { expectedContent: bytes });
      assert.equal(st.size, 4);
    } finally {
      Object.assign(fsm, { open, openSync, closeSync });
    }
    assert.equal(failed, 1, 'the temp was closed once, directly');
    assert.equal(fs.readFileSync(f, 'utf8'), 'two\n');
    assert.deepEqual(fs.readdirSync(dir), ['f.txt']);
  });

  it('a temp whose close fails after its sync, the rename and the read-back (pool calls): the edit landed and says so, no temp is left', async function () {
    if (process.platform !== 'linux') this.skip();
    usePoolOnly(true);
    const f = path.join(dir, 'f.txt');
    fs.writeFileSync(f, 'one\n');
    const store = new NodeFileStore({ crossProcess: true });
    // a handle's close is its own property (not the prototype's): the temp's handle gets a failing one at its open
    const open = fs.promises.open;
    fs.promises.open = (async (p: fs.PathLike, ...rest: unknown[]) => {
      const fh = (await (open as (...a: unknown[]) => Promise<fs.promises.FileHandle>)(p, ...rest)) as fs.promises.FileHandle & { close: () => Promise<void> };
      if (String(p).endsWith('.tmp')) {
        const close = fh.close.bind(fh);
        fh.close = async () => {
          await close();
          throw Object.assign(new Error('EIO: i/o error, close'), { code: 'EIO' });
        };
      }
      return fh;
    }) as typeof open;
    try {
      const { bytes } = await store.read(f);
      const st = await store.write(f, Buffer.from('two\n'), { expectedContent: bytes });
      assert.equal(st.size, 4);
    } finally {
      fs.promises.open = open;
    }
    // its bytes were synced before the rename and read back through that descriptor after it
    assert.equal(fs.readFileSync(f, 'utf8'), 'two\n');
    assert.deepEqual(fs.readdirSync(dir), ['f.txt']);
  });
});
