/**
 * readStateFile (stateFile.ts): a state file read whole in one read (a short read is its end), bounded, and never a
 * FIFO, a folder or a link opened or followed; readStateRange: a part of one, with the same checks.
 */
import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import fc from 'fast-check';
import { readStateFile, readStateRange } from '../../../src/core/files/stateFile';

describe('core/files: reading a state file', () => {
  let dir: string;
  beforeEach(() => (dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'be-statefile-')))));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('property: a file up to the limit reads back whole; one byte over is skipped unread', async () => {
    const f = path.join(dir, 's.json');
    await fc.assert(
      fc.asyncProperty(fc.string({ maxLength: 200 }), fc.integer({ min: 0, max: 300 }), async (text, max) => {
        fs.writeFileSync(f, text);
        const size = Buffer.byteLength(text);
        const read = await readStateFile(f, max);
        if (size <= max) assert.deepEqual(read, { ok: true, text, bytes: Buffer.byteLength(text) });
        else assert.equal(read.ok === false && read.kind, 'skipped');
      }),
      { numRuns: 200 },
    );
  });

  it('one read call for a whole small file: the short read is its end', async () => {
    const f = path.join(dir, 's.json');
    fs.writeFileSync(f, 'x'.repeat(100));
    const h = await fs.promises.open(os.devNull, 'r');
    const proto = Object.getPrototypeOf(h) as { read: (...a: unknown[]) => unknown };
    await h.close();
    const read = proto.read;
    let reads = 0;
    proto.read = function (this: unknown, ...a: unknown[]) {
      reads++;
      return read.apply(this, a);
    };
    try {
      assert.deepEqual(await readStateFile(f, 4096), { ok: true, text: 'x'.repeat(100), bytes: 100 });
    } finally {
      proto.read = read;
    }
    assert.equal(reads, 1);
  });

  it('a missing file, a folder, a link and a FIFO: said so, nothing opened or followed', async function () {
    assert.equal((await readStateFile(path.join(dir, "none"), 10)).ok === false, true);
    fs.mkdirSync(path.join(dir, 'sub'));
    const sub = await readStateFile(path.join(dir, 'sub'), 10);
    assert.ok(!sub.ok && sub.kind === 'skipped' && /a directory/.test(sub.reason));
    if (process.platform === 'win32') this.skip();
    fs.writeFileSync(path.join(dir, 'target'), 'secret');
    fs.symlinkSync(path.join(dir, 'target'), path.join(dir, 'link'));
    const link = await readStateFile(path.join(dir, 'link'), 10);
    assert.ok(!link.ok && link.kind === 'skipped' && /symbolic link/.test(link.reason));
    execFileSync('mkfifo', [path.join(dir, 'fifo')]);
    const fifo = await readStateFile(path.join(dir, 'fifo'), 10);
    assert.ok(!fifo.ok && fifo.kind === 'skipped' && /FIFO/.test(fifo.reason));
  });

  it('a range: the bytes asked for (fewer at the end), and the same refusals as a whole read', async function () {
    fs.writeFileSync(path.join(dir, 'f'), 'héllo\nworld\n');
    assert.deepEqual(await readStateRange(path.join(dir, 'f'), 7, 6), { ok: true, text: 'world\n', bytes: 6 });
    assert.deepEqual(await readStateRange(path.join(dir, 'f'), 10, 100), { ok: true, text: 'ld\n', bytes: 3 });
    assert.deepEqual(await readStateRange(path.join(dir, 'f'), 50, 10), { ok: true, text: '', bytes: 0 });
    const none = await readStateRange(path.join(dir, 'none'), 0, 1);
    assert.ok(!none.ok && none.kind === 'missing');
    fs.mkdirSync(path.join(dir, 'sub'));
    const sub = await readStateRange(path.join(dir, 'sub'), 0, 1);
    assert.ok(!sub.ok && sub.kind === 'skipped' && /a directory/.test(sub.reason), JSON.stringify(sub));
    if (process.platform === 'win32') this.skip();
    fs.symlinkSync(path.join(dir, 'f'), path.join(dir, 'link'));
    const link = await readStateRange(path.join(dir, 'link'), 0, 5);
    assert.ok(!link.ok && link.kind === 'skipped' && /symbolic link/.test(link.reason), JSON.stringify(link));
    execFileSync('mkfifo', [path.join(dir, 'fifo')]);
    const fifo = await readStateRange(path.join(dir, 'fifo'), 0, 5);
    assert.ok(!fifo.ok && fifo.kind === 'skipped' && /FIFO/.test(fifo.reason), JSON.stringify(fifo));
  });
});
