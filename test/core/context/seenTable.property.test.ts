/**
 * The file list's columns of what it saw (context/seenTable.ts): after any sequence of adds, updates, marks and
 * deletes it answers as a Map of objects would, slots reused or not.
 */
import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { SeenTable } from '../../../src/core/context/seenTable';

type Op =
  | { op: 'add'; rel: string; mtimeMs: number; size: number; walk: number }
  | { op: 'set'; rel: string; mtimeMs: number; size: number }
  | { op: 'mark'; rel: string; walk: number }
  | { op: 'delete'; rel: string };

describe('context: the file list\'s seen table', () => {
  it('answers as a Map of { mtimeMs, size, walk } objects (property)', () => {
    // few paths (deletes and re-adds reuse slots) or many (the columns grow past their first 256 slots)
    const rel = fc.oneof(fc.nat(40), fc.nat(1000)).map((i) => `d${i % 4}/f${i}.ts`);
    const mtimeMs = fc.oneof(fc.double({ min: 0, max: 2e12, noNaN: true }), fc.integer({ min: 0, max: 2e9 }));
    const size = fc.oneof(fc.integer({ min: 0, max: 1 << 20 }), fc.constant(2 ** 40 + 3));
    const walk = fc.integer({ min: 0, max: 2 ** 32 - 1 });
    const op: fc.Arbitrary<Op> = fc.oneof(
      fc.record({ op: fc.constant('add' as const), rel, mtimeMs, size, walk }),
      fc.record({ op: fc.constant('set' as const), rel, mtimeMs, size }),
      fc.record({ op: fc.constant('mark' as const), rel, walk }),
      fc.record({ op: fc.constant('delete' as const), rel }),
    );
    fc.assert(
      fc.property(fc.array(op, { maxLength: 800 }), (ops) => {
        const table = new SeenTable();
        const model = new Map<string, { mtimeMs: number; size: number; walk: number }>();
        for (const o of ops) {
          const slot = table.slot(o.rel);
          assert.equal(slot !== undefined, model.has(o.rel));
          if (o.op === 'add') {
            if (model.has(o.rel)) continue; // the list adds only files it does not know
            table.add(o.rel, o.mtimeMs, o.size, o.walk);
            model.set(o.rel, { mtimeMs: o.mtimeMs, size: o.size, walk: o.walk });
          } else if (o.op === 'delete') {
            assert.equal(table.delete(o.rel), model.delete(o.rel));
          } else if (slot !== undefined) {
            const m = model.get(o.rel)!;
            if (o.op === 'set') {
              table.set(slot, o.mtimeMs, o.size);
              [m.mtimeMs, m.size] = [o.mtimeMs, o.size];
            } else {
              table.mark(slot, o.walk);
              m.walk = o.walk;
            }
          }
        }
        assert.equal(table.size, model.size);
        assert.deepEqual([...table.keys()].sort(), [...model.keys()].sort());
        for (const [r, slot] of table.entries()) {
          const m = model.get(r)!;
          assert.ok(table.same(slot, m.mtimeMs, m.size), `${r}: its mtime and size`);
          assert.ok(!table.same(slot, m.mtimeMs + 1, m.size) && !table.same(slot, m.mtimeMs, m.size + 1));
          assert.equal(table.walkOf(slot), m.walk);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('keeps every file\'s values when its columns grow', () => {
    const table = new SeenTable();
    for (let i = 0; i < 5000; i++) table.add(`f${i}.ts`, 1e12 + i / 4, i * 3, i + 7);
    for (let i = 0; i < 5000; i += 2) table.delete(`f${i}.ts`);
    for (let i = 5000; i < 9000; i++) table.add(`f${i}.ts`, 1e12 + i / 4, i * 3, i + 7);
    assert.equal(table.size, 6500);
    for (const [rel, slot] of table.entries()) {
      const i = Number(rel.slice(1, -3));
      assert.ok(table.same(slot, 1e12 + i / 4, i * 3), rel);
      assert.equal(table.walkOf(slot), i + 7, rel);
    }
  });
});
