import { strict as assert } from 'node:assert';
import { newShortId, randomHex } from '../../../src/core/util/ids';

// Names and tokens come from one pooled buffer of CSPRNG bytes: each byte handed out once, across refills.
describe('core/util randomHex', () => {
  it('gives hex of the asked length, never the same twice across many refills of the pool', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 5000; i++) {
      const h = randomHex(12);
      assert.match(h, /^[0-9a-f]{24}$/);
      assert.ok(!seen.has(h), `repeated: ${h}`);
      seen.add(h);
    }
    assert.match(randomHex(4096), /^[0-9a-f]{8192}$/);
    assert.throws(() => randomHex(4097), RangeError);
  });

  it('is not all zeros after the pool is used up (each slice comes from fresh bytes)', () => {
    for (let i = 0; i < 2000; i++) assert.notEqual(randomHex(6), '000000000000');
  });

  it('short ids retry on a collision', () => {
    const taken = new Set<string>();
    for (let i = 0; i < 500; i++) taken.add(newShortId((id) => taken.has(id)));
    assert.equal(taken.size, 500);
  });
});
