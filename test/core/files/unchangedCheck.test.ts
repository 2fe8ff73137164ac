/**
 * The byte-compare under the lock (unchangedCheck.ts): equal bytes pass without asking the descriptor's stat; every
 * other thing at the path (longer, shorter, other bytes, a folder, a FIFO, gone, a link) is a conflict that says what.
 */
import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import fc from 'fast-check';
import { assertUnchanged } from '../../../src/core/files/unchangedCheck';
import { ToolError } from '../../../src/core/errors';

describe('core/files: the byte-compare of a write (assertUnchanged)', () => {
  let dir: string;
  beforeEach(() => (dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'be-unchanged-')))));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  const conflict = (pattern: RegExp) => (e: unknown) => e instanceof ToolError && e.code === 'conflict' && pattern.test(e.message) && /nothing was written/.test(e.message);
  const check = (p: string, expected: Uint8Array) => assertUnchanged(p, p, { expectedContent: expected });

  it('property: passes exactly when the file holds the expected bytes; else names the size or the first changed line', async () => {
    const f = path.join(dir, 'f.txt');
    const bytes = fc.uint8Array({ maxLength: 300 });
    await fc.assert(
      fc.asyncProperty(bytes, bytes, async (onDisk, expected) => {
        fs.writeFileSync(f, onDisk);
        const equal = Buffer.from(onDisk).equals(Buffer.from(expected));
        if (equal) return void (await check(f, expected));
        await assert.rejects(check(f, expected), conflict(onDisk.length !== expected.length ? new RegExp(`it is ${onDisk.length} bytes now, it was ${expected.length} when read`) : /same size, but the content differs from line \d+ on/));
      }),
      { numRuns: 200 },
    );
  });

  it('equal bytes need no stat of the descriptor (the read says it); a mismatch asks it to word the conflict', async () => {
    const f = path.join(dir, 'f.txt');
    fs.writeFileSync(f, 'one\ntwo\n');
    const h = await fs.promises.open(os.devNull, 'r');
    const proto = Object.getPrototypeOf(h) as { stat: (...a: unknown[]) => unknown };
    await h.close();
    const stat = proto.stat;
    let stats = 0;
    proto.stat = function (this: unknown, ...a: unknown[]) {
      stats++;
      return stat.apply(this, a);
    };
    try {
      await check(f, Buffer.from('one\ntwo\n'));
      assert.equal(stats, 0);
      await assert.rejects(check(f, Buffer.from('one\nTWO\n')), conflict(/from line 2 on/));
      assert.equal(stats, 1);
    } finally {
      proto.stat = stat;
    }
  });

  it('a folder, a FIFO (also where an empty file was), a link or nothing at the path: a conflict naming it', async function () {
    const sub = path.join(dir, 'sub');
    fs.mkdirSync(sub);
    await assert.rejects(check(sub, Buffer.from('x\n')), conflict(/it is a directory now/));
    await assert.rejects(check(sub, Buffer.alloc(0)), conflict(/it is a directory now/));
    fs.symlinkSync(path.join(dir, 'sub'), path.join(dir, 'link'));
    await assert.rejects(check(path.join(dir, 'link'), Buffer.from('x\n')), conflict(/it is a symbolic link now/));
    await assert.rejects(check(path.join(dir, 'gone'), Buffer.from('x\n')), conflict(/it was deleted/));
    if (process.platform === 'win32') return;
    const fifo = path.join(dir, 'fifo');
    execFileSync('mkfifo', [fifo]);
    await assert.rejects(check(fifo, Buffer.from('x\n')), conflict(/it is a FIFO \(named pipe\) now/));
    await assert.rejects(check(fifo, Buffer.alloc(0)), conflict(/it is a FIFO \(named pipe\) now/));
    const empty = path.join(dir, 'empty');
    fs.writeFileSync(empty, '');
    await check(empty, Buffer.alloc(0));
  });
});
