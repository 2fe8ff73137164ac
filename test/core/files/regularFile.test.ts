/** Reads that open regular files only: no link followed, no FIFO or device opened, no block on either. */
import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { NotRegularFileError, OutsideError, readConfinedFile, readConfinedFileSync, readRegularFile, readRegularFileSync } from '../../../src/core/files/regularFile';

const posixOnly = process.platform === 'win32' ? describe.skip : describe;

posixOnly('core/files regularFile', () => {
  let tmp: string;
  beforeEach(() => {
    tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'be-regular-')));
    fs.writeFileSync(path.join(tmp, 'a.txt'), 'hello\n');
    fs.symlinkSync(path.join(tmp, 'a.txt'), path.join(tmp, 'link.txt'));
    execFileSync('mkfifo', [path.join(tmp, 'pipe')]);
    fs.mkdirSync(path.join(tmp, 'dir'));
  });
  afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it('reads a regular file, sync and async, confined or not', async () => {
    assert.equal((await readRegularFile(path.join(tmp, 'a.txt'))).toString(), 'hello\n');
    assert.equal(readRegularFileSync(path.join(tmp, 'a.txt')).toString(), 'hello\n');
    assert.equal((await readConfinedFile(path.join(tmp, 'a.txt'), (r) => r.startsWith(tmp))).toString(), 'hello\n');
    assert.equal(readConfinedFileSync(path.join(tmp, 'a.txt'), (r) => r.startsWith(tmp)).toString(), 'hello\n');
  });

  it('refuses a link, a FIFO and a directory without opening them (no hang), naming what they are', async () => {
    const cases: [string, RegExp][] = [['link.txt', /symbolic link/], ['pipe', /FIFO/], ['dir', /directory/]];
    for (const [name, kind] of cases) {
      const p = path.join(tmp, name);
      const isNotRegular = (e: unknown) => e instanceof NotRegularFileError && kind.test(e.message);
      await assert.rejects(readRegularFile(p), isNotRegular);
      assert.throws(() => readRegularFileSync(p), isNotRegular);
      await assert.rejects(readConfinedFile(p, () => true), isNotRegular);
      assert.throws(() => readConfinedFileSync(p, () => true), isNotRegular);
    }
  });

  it('readConfinedFile refuses what lies outside the allowed place, even through a folder link', async () => {
    const other = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'be-regular-out-')));
    try {
      fs.writeFileSync(path.join(other, 's.txt'), 'secret');
      fs.symlinkSync(other, path.join(tmp, 'via'));
      await assert.rejects(readConfinedFile(path.join(tmp, 'via', 's.txt'), (r) => r.startsWith(tmp + path.sep)), OutsideError);
      assert.throws(() => readConfinedFileSync(path.join(tmp, 'via', 's.txt'), (r) => r.startsWith(tmp + path.sep)), OutsideError);
    } finally {
      fs.rmSync(other, { recursive: true, force: true });
    }
  });

  it('a missing file is ENOENT', async () => {
    await assert.rejects(readRegularFile(path.join(tmp, 'missing')), { code: 'ENOENT' });
  });
});
