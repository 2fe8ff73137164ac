/**
 * The two ways the edit path makes its file-system calls (fsCalls.ts): direct ones only where statfs names a local
 * file system, the pool's everywhere else; a direct descriptor closed exactly once, after its calls through the pool.
 */
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { callsForFolder, directCalls, poolCalls, usePoolOnly } from '../../../src/core/files/fsCalls';

describe('core/files: direct calls on a local file system, the pool elsewhere', () => {
  let dir: string;
  beforeEach(() => (dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'be-fscalls-')))));
  afterEach(() => {
    usePoolOnly(false);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('a folder of the temp folder (a local disk or tmpfs) gets direct calls; /proc, /sys or a folder that is gone the pool', async function () {
    if (process.platform !== 'linux') this.skip();
    const local = [0xef53, 0x01021994, 0x58465342, 0x9123683e, 0x794c7630].includes(Number(fs.statfsSync(dir).type));
    if (local) assert.equal(await callsForFolder(dir), directCalls);
    assert.equal(await callsForFolder('/proc/self'), poolCalls, 'procfs is not a disk');
    assert.equal(await callsForFolder('/sys'), poolCalls, 'sysfs is not a disk');
    assert.equal(await callsForFolder(path.join(dir, 'gone')), poolCalls, 'statfs failed: the pool');
    usePoolOnly(true);
    assert.equal(await callsForFolder(dir), poolCalls);
  });

  it('the direct calls give the pool\'s errors, with their codes', async () => {
    const missing = path.join(dir, 'missing');
    for (const calls of [directCalls, poolCalls]) {
      await assert.rejects(calls.lstat(missing), { code: 'ENOENT' });
      await assert.rejects(calls.open(missing, fs.constants.O_RDONLY), { code: 'ENOENT' });
      await assert.rejects(calls.unlink(missing), { code: 'ENOENT' });
      fs.writeFileSync(path.join(dir, 'x'), 'x');
      await assert.rejects(calls.open(path.join(dir, 'x'), fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL), { code: 'EEXIST' });
      fs.unlinkSync(path.join(dir, 'x'));
    }
  });

  it('a direct descriptor is closed once: a second close never closes the descriptor that reused its number', async () => {
    const a = path.join(dir, 'a');
    const b = path.join(dir, 'b');
    fs.writeFileSync(a, 'aaaa');
    fs.writeFileSync(b, 'bbbb');
    const first = await directCalls.open(a, fs.constants.O_RDONLY);
    const fd = first.fd;
    await first.close();
    const second = await directCalls.open(b, fs.constants.O_RDONLY);
    await first.close(); // the number may be second's now
    await assert.rejects(first.read(Buffer.alloc(4), 0, 4, 0), { code: 'EBADF' });
    const buf = Buffer.alloc(4);
    const { bytesRead } = await second.read(buf, 0, 4, 0);
    assert.equal(buf.subarray(0, bytesRead).toString(), 'bbbb', `fd ${fd} reused: still open for b`);
    await second.close();
  });

  it('a direct descriptor\'s close waits for its fsync through the pool', async () => {
    const f = path.join(dir, 'f');
    const fh = await directCalls.open(f, fs.constants.O_RDWR | fs.constants.O_CREAT | fs.constants.O_EXCL, 0o600);
    await fh.writev([Buffer.from('hello')]);
    let synced = false;
    const sync = fh.sync().then(() => (synced = true));
    await fh.close();
    assert.ok(synced, 'the fsync returned before the descriptor was closed');
    await sync;
    assert.equal(fs.readFileSync(f, 'utf8'), 'hello');
  });
});
