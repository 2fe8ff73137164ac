/** The read-back after a write: equal bytes give their hash; other bytes on disk are a loud error, not a success. */
import { strict as assert } from 'node:assert';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { PinnedDir } from '../../../src/core/files/safeOpen';
import { commitStaged, stageIn } from '../../../src/core/files/stagedWrite';

describe('core/files read-back', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'bet-readback-')));
  });
  afterEach(() => fs.rm(dir, { recursive: true, force: true }));

  it('returns the sha256 of the bytes read back, equal to the bytes written', async () => {
    const pinned = await PinnedDir.open('write', dir);
    try {
      const staged = await stageIn(pinned, [Buffer.from('a\n'), Buffer.from('b\n')], 'f.txt', undefined, {});
      const st = await commitStaged(pinned, staged, 'f.txt', path.join(dir, 'f.txt'), {}, true);
      assert.equal(st.sha256, createHash('sha256').update(await fs.readFile(path.join(dir, 'f.txt'))).digest('hex'));
    } finally {
      await pinned.close();
    }
  });

  it('bytes on disk that differ from the intended ones are a loud io error', async () => {
    const pinned = await PinnedDir.open('write', dir);
    try {
      const staged = await stageIn(pinned, [Buffer.from('intended\n')], 'f.txt', undefined, {});
      // what a silently corrupting disk looks like from here: the file holds other bytes than the ones staged
      await fs.writeFile(path.join(dir, staged.tempName), 'corrupt!\n');
      await assert.rejects(commitStaged(pinned, staged, 'f.txt', path.join(dir, 'f.txt'), {}, true), (e: Error & { code?: string }) => {
        assert.equal(e.code, 'io');
        assert.match(e.message, /was written, but reading it back gave different bytes/);
        return true;
      });
    } finally {
      await pinned.close();
    }
  });
});
