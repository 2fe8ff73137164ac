import { strict as assert } from 'node:assert';
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { sha256Parts } from '../../../src/core/util/sha256';

const ref = (...parts: Uint8Array[]) => {
  const h = createHash('sha256');
  for (const p of parts) h.update(p);
  return h.digest('hex');
};

describe('core/util sha256Parts', () => {
  it('agrees with createHash (empty, small, around and over the 1 MiB chunk, several parts)', async () => {
    const big = Buffer.alloc(3 * 1024 * 1024 + 7, 'ab\n');
    const cases: Uint8Array[][] = [
      [],
      [Buffer.alloc(0)],
      [Buffer.from('hello')],
      [big.subarray(0, 1024 * 1024 - 1), Buffer.from('x')],
      [big.subarray(0, 1_000_000), Buffer.from('new text\n'), big.subarray(1_000_001)],
      [big],
    ];
    for (const parts of cases) assert.equal(await sha256Parts(...parts), ref(...parts));
  });

  it('yields to the event loop while hashing a large input', async () => {
    let ticks = 0;
    const timer = setInterval(() => ticks++, 0);
    const big = Buffer.alloc(64 * 1024 * 1024, 'x');
    try {
      const started = ticks;
      await sha256Parts(big);
      assert.ok(ticks > started, 'a timer ran while 64 MiB were hashed');
    } finally {
      clearInterval(timer);
    }
  });

  it('property: any split into parts hashes like the whole', async () => {
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
