import { strict as assert } from 'node:assert';
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { configureHasher, sha256Parts } from '../../../src/core/edits/hasher';

const ref = (...parts: Uint8Array[]) => {
  const h = createHash('sha256');
  for (const p of parts) h.update(p);
  return h.digest('hex');
};

describe('core/edits hasher', () => {
  afterEach(() => configureHasher({ offloadMinBytes: Number.POSITIVE_INFINITY }));

  it('inline and worker paths agree with createHash (empty, small, around 1 MiB, several parts)', async () => {
    const big = Buffer.alloc(3 * 1024 * 1024 + 7, 'ab\n');
    const cases: Uint8Array[][] = [
      [],
      [Buffer.alloc(0)],
      [Buffer.from('hello')],
      [big.subarray(0, 1024 * 1024 - 1), Buffer.from('x')],
      [big.subarray(0, 1_000_000), Buffer.from('new text\n'), big.subarray(1_000_001)],
    ];
    for (const min of [0, 1024 * 1024, Infinity]) {
      configureHasher({ offloadMinBytes: min });
      for (const parts of cases) assert.equal(await sha256Parts(...parts), ref(...parts), `min=${min}`);
    }
  });

  it('concurrent worker hashes of different sizes each get their own answer', async () => {
    configureHasher({ offloadMinBytes: 0 });
    const inputs = Array.from({ length: 6 }, (_, i) => Buffer.alloc(200_000 * (i + 1), String.fromCharCode(97 + i)));
    const got = await Promise.all(inputs.map((b) => sha256Parts(b.subarray(0, 10), b.subarray(10))));
    assert.deepEqual(got, inputs.map((b) => ref(b)));
  });

  it('property: any split into parts hashes like the whole', async () => {
    configureHasher({ offloadMinBytes: 0 });
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ maxLength: 2000 }), fc.nat(), fc.nat(), async (arr, x, y) => {
        const b = Buffer.from(arr);
        const i = b.length ? x % (b.length + 1) : 0;
        const j = i + (b.length - i ? y % (b.length - i + 1) : 0);
        assert.equal(await sha256Parts(b.subarray(0, i), b.subarray(i, j), b.subarray(j)), ref(b));
      }),
      { numRuns: 100 },
    );
  });
});
