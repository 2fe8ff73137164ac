/**
 * prefixSha256: resuming from the hash states of earlier calls for the same holder gives the digest of the lead and
 * the prefix, for any sequence of prefix ends and leads (small chunks here, so every boundary case is reached).
 */
import { strict as assert } from 'node:assert';
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { prefixSha256 } from '../../../src/core/util/sha256';

const plain = (lead: string, bytes: Uint8Array, end: number) => createHash('sha256').update(lead, 'utf8').update(bytes.subarray(0, end)).digest('hex');

describe('core/util prefixSha256', () => {
  it('equals sha256(lead + bytes[0, end)) for any ends, in any order, on one holder', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uint8Array({ maxLength: 60 }),
        fc.array(fc.tuple(fc.nat(), fc.constantFrom('', 'a.ts\0', 'b/c.ts\0')), { minLength: 1, maxLength: 12 }),
        fc.integer({ min: 1, max: 9 }),
        async (bytes, calls, chunk) => {
          const holder = {};
          for (const [n, lead] of calls) {
            const end = n % (bytes.length + 1);
            assert.equal(await prefixSha256(holder, bytes, end, lead, chunk), plain(lead, bytes, end), `end ${end}, lead ${JSON.stringify(lead)}, chunk ${chunk}`);
          }
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('another holder of other bytes starts afresh', async () => {
    const a = Buffer.from('aaaaaaaaaaaaaaaa');
    const b = Buffer.from('bbbbbbbbbbbbbbbb');
    assert.equal(await prefixSha256(a, a, 16, '', 4), plain('', a, 16));
    assert.equal(await prefixSha256(b, b, 12, '', 4), plain('', b, 12));
  });
});
