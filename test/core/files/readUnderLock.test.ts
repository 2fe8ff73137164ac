/**
 * A write under the lock after a read under the same hold (the edit path: lock, load, write) looks at the file it
 * replaces through the read's stat, not through another lstat; the stat serves one write only, so a second write
 * of the same hold looks again and sees the first. And the staged temp's close, which overlaps the compare, still
 * decides the commit.
 */
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { NodeFileStore } from '../../../src/core/files/nodeFileStore';

describe('core/files: a write after a read under the same lock', () => {
  let dir: string;
  let f: string;
  beforeEach(() => {
    dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'be-readlock-')));
    f = path.join(dir, 'f.txt');
    fs.writeFileSync(f, 'one\n');
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  /** The lstat calls naming `name` while `run` runs. */
  async function lstatsOf(name: string, run: () => Promise<void>): Promise<number> {
    const lstat = fs.promises.lstat;
    let n = 0;
    fs.promises.lstat = ((p: fs.PathLike, ...rest: unknown[]) => {
      if (path.basename(String(p)) === name) n++;
      return (lstat as (...a: unknown[]) => unknown)(p, ...rest);
    }) as typeof lstat;
    try {
      await run();
    } finally {
      fs.promises.lstat = lstat;
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
          // one lstat: the read's own, before its open; the write's look at the entry is the read's stat
          await store.write(f, Buffer.from('two\n'), { expectedContent: bytes });
        }),
      );
      assert.equal(seen, 1);
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
      assert.equal(again, 2);
      assert.equal(fs.readFileSync(f, 'utf8'), 'four\n');
    });
  }

  it('a read outside the lock leaves nothing for a later write: it looks at the file itself', async () => {
    const store = new NodeFileStore({ crossProcess: true });
    const { bytes } = await store.read(f);
    const seen = await lstatsOf('f.txt', () => store.lock(f, async () => void (await store.write(f, Buffer.from('x\n'), { expectedContent: bytes }))));
    assert.equal(seen, 1);
    assert.equal(fs.readFileSync(f, 'utf8'), 'x\n');
  });
});

describe('core/files: the temp\'s close overlaps the compare, and still decides the commit', () => {
  let dir: string;
  beforeEach(() => (dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'be-tempclose-')))));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('a temp whose close fails is never renamed: the file stays, no temp is left, the error is told', async function () {
    if (process.platform !== 'linux') this.skip();
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
      await assert.rejects(store.write(f, Buffer.from('two\n'), { expectedContent: bytes }), /i\/o error, close/);
    } finally {
      fs.promises.open = open;
    }
    assert.equal(fs.readFileSync(f, 'utf8'), 'one\n');
    assert.deepEqual(fs.readdirSync(dir), ['f.txt']);
  });
});
