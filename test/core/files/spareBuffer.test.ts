import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { NodeFileStore } from '../../../src/core/files/nodeFileStore';

describe('core/files NodeFileStore read-buffer reuse', () => {
  let dir: string;
  beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bet-spare-'))));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('reuses a released buffer for the next read of a similar size, with exactly the new bytes', async () => {
    const store = new NodeFileStore();
    const f = path.join(dir, 'big.txt');
    const one = Buffer.alloc(1_000_000, 'a');
    fs.writeFileSync(f, one);
    const first = await store.read(f);
    assert.ok(first.bytes.equals(one));
    const backing = first.bytes.buffer;
    store.release(first.bytes);
    // the file grew a little (an inserted line): it still fits the released buffer
    const two = Buffer.concat([Buffer.alloc(500_000, 'b'), Buffer.from('inserted\n'), Buffer.alloc(500_000, 'c')]);
    fs.writeFileSync(f, two);
    const second = await store.read(f);
    assert.equal(second.bytes.buffer, backing, 'the released memory was reused');
    assert.equal(second.bytes.length, two.length);
    assert.ok(second.bytes.equals(two));
    // not released: the next read allocates its own buffer and the one in use is never overwritten
    const third = await store.read(f);
    assert.notEqual(third.bytes.buffer, backing);
    assert.ok(second.bytes.equals(two));
  });

  it('ignores slices, small buffers and buffers far larger than the file', async () => {
    const store = new NodeFileStore();
    const f = path.join(dir, 'x.txt');
    fs.writeFileSync(f, Buffer.alloc(1_000_000, 'x'));
    const big = await store.read(f);
    store.release(big.bytes.subarray(10)); // a slice: refused
    store.release(Buffer.alloc(100)); // small: refused
    const again = await store.read(f);
    assert.notEqual(again.bytes.buffer, big.bytes.buffer);
    store.release(again.bytes);
    fs.writeFileSync(f, 'tiny\n');
    const tiny = await store.read(f);
    assert.notEqual(tiny.bytes.buffer, again.bytes.buffer, 'a 5-byte file does not pin a 1 MB buffer');
    assert.equal(tiny.bytes.toString(), 'tiny\n');
  });
});
