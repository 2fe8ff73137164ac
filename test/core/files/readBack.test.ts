/** The read-back after a write: equal bytes give their hash; other bytes on disk are a loud error, not a success. */
import { strict as assert } from 'node:assert';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { PinnedDir } from '../../../src/core/files/safeOpen';
import { commitStaged, stageIn } from '../../../src/core/files/stagedWrite';

/** a single write's commit: its folder synced, no other commit beside it */
const SINGLE = { syncFolder: true, concurrent: false };

describe('core/files read-back', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'bet-readback-')));
  });
  afterEach(() => fs.rm(dir, { recursive: true, force: true }));

  it('returns the sha256 of the bytes read back, equal to the bytes written', async () => {
    const pinned = await PinnedDir.open('write', dir);
    try {
      const parts = [Buffer.from('a\n'), Buffer.from('b\n')];
      const staged = await stageIn(pinned, parts, 'f.txt', undefined, {});
      const st = await commitStaged(pinned, staged, parts, 'f.txt', path.join(dir, 'f.txt'), {}, SINGLE);
      assert.equal(st.sha256, createHash('sha256').update(await fs.readFile(path.join(dir, 'f.txt'))).digest('hex'));
    } finally {
      await pinned.close();
    }
  });

  it('bytes on disk that differ from the intended ones are a loud io error', async () => {
    const pinned = await PinnedDir.open('write', dir);
    try {
      const parts = [Buffer.from('intended\n')];
      const staged = await stageIn(pinned, parts, 'f.txt', undefined, {});
      // what a silently corrupting disk looks like from here: the file holds other bytes than the ones staged
      await fs.writeFile(path.join(dir, staged.tempName), 'corrupt!\n');
      await assert.rejects(commitStaged(pinned, staged, parts, 'f.txt', path.join(dir, 'f.txt'), {}, SINGLE), (e: Error & { code?: string }) => {
        assert.equal(e.code, 'io');
        assert.match(e.message, /was written, but reading it back gave different bytes/);
        return true;
      });
    } finally {
      await pinned.close();
    }
  });

  it('a read buffer reused from an earlier check, still holding the intended bytes, never lets a shorter file pass', async () => {
    const pinned = await PinnedDir.open('write', dir);
    try {
      const intended = Buffer.alloc(512 * 1024, 'x');
      const parts = [intended.subarray(0, 1000), intended.subarray(1000)];
      // a first write and read-back leave the intended bytes in the reused buffer
      const first = await stageIn(pinned, parts, 'f.txt', undefined, {});
      await commitStaged(pinned, first, parts, 'f.txt', path.join(dir, 'f.txt'), {}, SINGLE);
      const staged = await stageIn(pinned, parts, 'f.txt', undefined, {});
      await fs.writeFile(path.join(dir, staged.tempName), intended.subarray(0, intended.length - 1));
      await assert.rejects(commitStaged(pinned, staged, parts, 'f.txt', path.join(dir, 'f.txt'), {}, SINGLE), /reading it back gave different bytes/);
    } finally {
      await pinned.close();
    }
  });

  // the read-back reads once into a buffer one byte larger than intended: a longer or shorter file must still fail
  for (const [what, onDisk] of [
    ['one byte more', 'intended\n!'],
    ['one byte less', 'intended'],
    ['a megabyte more', 'intended\n' + 'x'.repeat(1024 * 1024)],
    ['nothing rather', ''],
  ] as const) {
    it(`a read-back of ${what} than intended is a loud io error, with the digest of what is there`, async () => {
      const pinned = await PinnedDir.open('write', dir);
      try {
        const parts = [Buffer.from('inten'), Buffer.from('ded\n')];
        const staged = await stageIn(pinned, parts, 'f.txt', undefined, {});
        await fs.writeFile(path.join(dir, staged.tempName), onDisk);
        await assert.rejects(commitStaged(pinned, staged, parts, 'f.txt', path.join(dir, 'f.txt'), {}, SINGLE), (e: Error & { code?: string; details?: { actual_sha256?: string } }) => {
          assert.equal(e.code, 'io');
          assert.equal(e.details?.actual_sha256, createHash('sha256').update(onDisk).digest('hex'));
          return true;
        });
      } finally {
        await pinned.close();
      }
    });
  }
});
