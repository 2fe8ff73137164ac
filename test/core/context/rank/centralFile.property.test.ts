/**
 * The central file (rank/personalize.ts centralFile): of the capitalised names exactly one file defines, the one the
 * other files use most (ties: the smaller path). Checked against that definition, counted file by file, over
 * generated files in which names are defined by one file, by several, used or not used at all.
 */
import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { centralFile } from '../../../../src/core/context/rank/personalize';
import { NameCounts } from '../../../../src/core/context/nameCounts';
import type { GraphFile } from '../../../../src/core/context/rank/graph';

const NAMES = ['Order', 'Refund', 'Price', 'Cart', 'User', 'helper', 'value', 'Money', '_Private', 'Z'];

/** The definition, without the index the module keeps: every name's definers counted over all files. */
function expected(files: GraphFile[], usesOf: (name: string) => number): string | undefined {
  let best: { rel: string; uses: number } | undefined;
  for (const f of files) {
    for (const d of f.tags?.defs ?? []) {
      if (!/^[A-Z]/.test(d)) continue;
      if (files.filter((g) => g.tags?.defs.includes(d)).length !== 1) continue;
      const uses = usesOf(d) - (f.tags?.refs.get(d) ?? 0);
      if (uses > 0 && (!best || uses > best.uses || (uses === best.uses && f.rel < best.rel))) best = { rel: f.rel, uses };
    }
  }
  return best?.rel;
}

describe('context: the central file', () => {
  it('is the file of the capitalised name only it defines that the others use most (property)', () => {
    const file = fc.record({
      defs: fc.uniqueArray(fc.constantFrom(...NAMES), { maxLength: 4 }),
      refs: fc.array(fc.tuple(fc.constantFrom(...NAMES), fc.integer({ min: 1, max: 5 })), { maxLength: 6 }),
      tagged: fc.boolean(),
    });
    fc.assert(
      fc.property(fc.array(file, { maxLength: 12 }), (specs) => {
        const files: GraphFile[] = specs.map((s, i) => ({
          rel: `src/f${(i * 7) % 13}-${i}.ts`,
          tags: s.tagged ? { defs: s.defs, refs: new NameCounts(new Map(s.refs)), imports: [], summary: '', exported: [] } : undefined,
        }));
        const usesOf = (name: string) => files.reduce((n, f) => n + (f.tags?.refs.get(name) ?? 0), 0);
        assert.equal(centralFile(files, usesOf), expected(files, usesOf));
      }),
      { numRuns: 500 },
    );
  });
});
