/**
 * The chip folder's lock (dirLock.ts): one holder at a time; released only while the lock file at the path is still
 * the holder's own (a lock broken as stale and made anew by another process stays), in two calls.
 */
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { withDirLock } from '../../../src/core/chips/node/dirLock';

describe('core/chips: the directory lock', () => {
  let dir: string;
  let lock: string;
  beforeEach(() => {
    dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'be-dirlock-')));
    lock = path.join(dir, '.lock');
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('one holder at a time; the lock holds the pid and a token, and is gone after', async () => {
    const order: string[] = [];
    await Promise.all(
      ['a', 'b', 'c'].map((who) =>
        withDirLock(lock, async () => {
          order.push(`${who}+`);
          assert.match(fs.readFileSync(lock, 'utf8'), new RegExp(`^${process.pid} [0-9a-f]{16}$`));
          await new Promise((r) => setTimeout(r, 5));
          order.push(`${who}-`);
        }),
      ),
    );
    for (let i = 0; i < order.length; i += 2) assert.equal(order[i]!.slice(0, 1), order[i + 1]!.slice(0, 1), order.join(' '));
    assert.equal(fs.existsSync(lock), false);
  });

  it('a lock broken and made anew by another process meanwhile is not removed at release', async () => {
    await withDirLock(lock, async () => {
      fs.unlinkSync(lock);
      fs.writeFileSync(lock, '1 theirs');
    });
    assert.equal(fs.readFileSync(lock, 'utf8'), '1 theirs');
    fs.unlinkSync(lock);
    // and one removed meanwhile: the release finds nothing, and says nothing
    await withDirLock(lock, async () => fs.unlinkSync(lock));
    assert.equal(fs.existsSync(lock), false);
  });

  it('the release looks at the lock with a stat of its descriptor and one lstat, then removes it: no read of it', async () => {
    const calls: string[] = [];
    const fsp = fs.promises as unknown as Record<string, (...a: unknown[]) => unknown>;
    const names = ['lstat', 'open', 'readFile', 'unlink'];
    const orig = names.map((n) => fsp[n]!);
    names.forEach((n, i) => (fsp[n] = (...a: unknown[]) => (calls.push(`${n} ${path.basename(String(a[0]))}`), orig[i]!(...a))));
    try {
      await withDirLock(lock, async () => void calls.push('held'));
    } finally {
      names.forEach((n, i) => (fsp[n] = orig[i]!));
    }
    assert.deepEqual(calls, ['open .lock', 'held', 'lstat .lock', 'unlink .lock']);
  });
});
