/**
 * The byte-compare before a rename reads through the descriptor of the load made under the same lock, when the
 * name still holds that inode (one look-up instead of a reopen). It must refuse exactly what the reopen refused: a
 * change in place, a file renamed over it with other bytes, a link put there; and accept what it accepted (the
 * same bytes under a new inode), and a second write under the same lock is compared with its own expectation.
 */
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { NodeFileStore } from '../../../src/core/files/nodeFileStore';

describe('core/files: the compare through the load\'s descriptor', () => {
  let dir: string;
  let file: string;
  let store: NodeFileStore;
  beforeEach(async () => {
    dir = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'bet-kept-')));
    file = path.join(dir, 'f.txt');
    await fs.writeFile(file, 'one\ntwo\n');
    store = new NodeFileStore({ crossProcess: true });
  });
  afterEach(() => fs.rm(dir, { recursive: true, force: true }));

  /** Loads the file under its lock, lets `meddle` change it, then writes with the loaded bytes as expected. */
  async function writeAfter(meddle: () => Promise<void>): Promise<unknown> {
    return store.lock(file, async () => {
      const { bytes } = await store.read(file);
      const expected = Buffer.from(bytes);
      await meddle();
      return store.write(file, Buffer.from('new\n'), { expectedContent: expected });
    });
  }

  it('unchanged: the write lands', async () => {
    await writeAfter(async () => undefined);
    assert.equal(await fs.readFile(file, 'utf8'), 'new\n');
  });

  it('changed in place (same inode, same size, other bytes): a conflict, nothing written', async () => {
    await assert.rejects(writeAfter(() => fs.writeFile(file, 'ONE\ntwo\n')), (e: Error & { code?: string }) => e.code === 'conflict' && /line 1/.test(e.message));
    assert.equal(await fs.readFile(file, 'utf8'), 'ONE\ntwo\n');
  });

  it('renamed over with other bytes of the same size: a conflict, nothing written', async () => {
    const other = path.join(dir, 'other');
    await assert.rejects(
      writeAfter(async () => {
        await fs.writeFile(other, 'one\ntwX\n');
        await fs.rename(other, file);
      }),
      (e: Error & { code?: string }) => e.code === 'conflict',
    );
    assert.equal(await fs.readFile(file, 'utf8'), 'one\ntwX\n');
  });

  it('renamed over with the same bytes (a new inode): the write lands, as the reopen let it', async () => {
    const other = path.join(dir, 'other');
    await writeAfter(async () => {
      await fs.writeFile(other, 'one\ntwo\n');
      await fs.rename(other, file);
    });
    assert.equal(await fs.readFile(file, 'utf8'), 'new\n');
  });

  it('a link put in its place: a conflict, the link and its target untouched', async () => {
    const target = path.join(dir, 'target');
    await fs.writeFile(target, 'one\ntwo\n');
    await assert.rejects(
      writeAfter(async () => {
        await fs.unlink(file);
        await fs.symlink(target, file);
      }),
      (e: Error & { code?: string }) => e.code === 'conflict',
    );
    assert.ok((await fs.lstat(file)).isSymbolicLink());
    assert.equal(await fs.readFile(target, 'utf8'), 'one\ntwo\n');
  });

  it('a second write under the same lock is compared with what the first wrote', async () => {
    await store.lock(file, async () => {
      const { bytes } = await store.read(file);
      await store.write(file, Buffer.from('first\n'), { expectedContent: Buffer.from(bytes) });
      await store.write(file, Buffer.from('second\n'), { expectedContent: Buffer.from('first\n') });
      await assert.rejects(store.write(file, Buffer.from('third\n'), { expectedContent: Buffer.from('first\n') }), (e: Error & { code?: string }) => e.code === 'conflict');
    });
    assert.equal(await fs.readFile(file, 'utf8'), 'second\n');
  });

  it('the load\'s descriptor is closed before the rename: the replaced file is never left open, unlinked', async function () {
    if (process.platform !== 'linux') this.skip();
    // an old file still open when the rename unlinks it is freed only at that close, through the file system
    // journal's orphan list, which every later fsync on the file system then pays for
    const openDeleted: string[] = [];
    await store.lock(file, async () => {
      const { bytes } = await store.read(file);
      await store.write(file, Buffer.from('new\n'), {
        expectedContent: Buffer.from(bytes),
        onRenamed: async () => {
          for (const fd of await fs.readdir('/proc/self/fd')) {
            const to = await fs.readlink(`/proc/self/fd/${fd}`).catch(() => '');
            if (to.startsWith(file) && to.endsWith('(deleted)')) openDeleted.push(to);
          }
        },
      });
    });
    assert.deepEqual(openDeleted, []);
    assert.equal(await fs.readFile(file, 'utf8'), 'new\n');
  });

  it('past the bound of kept descriptors the steps reopen by name: a batch of 150 lands whole, twice', async () => {
    const files = Array.from({ length: 150 }, (_, i) => path.join(dir, `b${String(i).padStart(3, '0')}.txt`));
    for (const f of files) await fs.writeFile(f, 'old\n');
    for (const round of ['r1', 'r2']) {
      await store.lockAll(files, async () => {
        const loaded = await Promise.all(files.map((f) => store.read(f).then((c) => Buffer.from(c.bytes))));
        // 150 loads kept, then 106 temps kept and 44 closed after staging (256 at most)
        const staged = await Promise.all(files.map((f, i) => store.stage(f, [Buffer.from(`${round} ${i}\n`)], { expectedContent: loaded[i] })));
        const stats = await Promise.all(staged.map((st) => st.commit()));
        assert.ok(stats.every((st, i) => st.size === Buffer.byteLength(`${round} ${i}\n`) && st.sha256 !== undefined));
      });
      for (const [i, f] of files.entries()) assert.equal(await fs.readFile(f, 'utf8'), `${round} ${i}\n`);
    }
  });
});
