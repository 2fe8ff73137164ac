import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { ShardedMap } from '../../../src/core/util/shardedMap';

describe('core/util ShardedMap', () => {
  it('answers get, has, size and delete as a Map does, for any sequence of sets and deletes', () => {
    const op = fc.oneof(
      fc.record({ kind: fc.constant('set' as const), key: fc.string({ maxLength: 6 }), value: fc.integer() }),
      fc.record({ kind: fc.constant('delete' as const), key: fc.string({ maxLength: 6 }) }),
    );
    fc.assert(
      fc.property(fc.array(op, { maxLength: 200 }), fc.array(fc.string({ maxLength: 6 }), { maxLength: 20 }), (ops, probes) => {
        const ours = new ShardedMap<number>();
        const map = new Map<string, number>();
        for (const o of ops) {
          if (o.kind === 'set') {
            assert.equal(ours.set(o.key, o.value), ours);
            map.set(o.key, o.value);
          } else {
            assert.equal(ours.delete(o.key), map.delete(o.key));
          }
          assert.equal(ours.size, map.size);
        }
        for (const k of [...probes, ...ops.map((o) => o.key)]) {
          assert.equal(ours.get(k), map.get(k));
          assert.equal(ours.has(k), map.has(k));
        }
        assert.equal(ours.shardSizes().reduce((a, b) => a + b, 0), map.size);
      }),
    );
  });

  it('spreads the keys the repository map holds (identifiers, paths) so that no shard holds an eighth of them', () => {
    // the point is the largest shard's table copy: at 1M names, at most one of 125,000 (~10 ms), not of 1M (~130 ms)
    const families: [string, (i: number) => string][] = [
      ['generated identifiers', (i) => `helper${i}`],
      ['capitalised names', (i) => `Widget${i}`],
      ['paths', (i) => `d${Math.floor(i / 10_000)}/s${Math.floor(i / 100) % 100}/f${i}.ts`],
      ['short words', (i) => i.toString(36)],
    ];
    for (const [what, key] of families) {
      const m = new ShardedMap<number>();
      for (let i = 0; i < 100_000; i++) m.set(key(i), i);
      const sizes = m.shardSizes();
      assert.ok(Math.max(...sizes) <= m.size / 8, `${what}: the largest shard holds ${Math.max(...sizes)} of ${m.size} keys`);
    }
  });
});
