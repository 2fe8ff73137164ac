/**
 * One PageRank iteration of the repository map's graph is walked in steps of at most STEP_EDGES edges
 * (src/core/context/rank/graph.ts spreadSteps): a dense graph's iteration was one 120 ms step of a cold overview.
 * The steps give the same spread as one pass.
 */
import { strict as assert } from 'node:assert';
import { spreadSteps, STEP_EDGES, type Flat } from '../../../../src/core/context/rank/graph';

/** `files` files with `perFile` edges each to pseudo-random others, weight 1. */
function denseGraph(files: number, perFile: number): Flat {
  const start = new Int32Array(files + 1);
  const to = new Int32Array(files * perFile);
  const w = new Float64Array(files * perFile).fill(1);
  const outW = new Float64Array(files).fill(perFile);
  for (let i = 0; i < files; i++) {
    start[i + 1] = (i + 1) * perFile;
    for (let e = 0; e < perFile; e++) to[i * perFile + e] = (i * 31 + e * 17) % files;
  }
  return { start, to, w, outW };
}

describe('core/context rank spreadSteps (a PageRank iteration in steps of edges)', () => {
  it('yields at least once per STEP_EDGES edges, and the spread is the same walked in steps or at once', () => {
    const files = 2_000;
    const perFile = 1_000; // 2M edges
    const g = denseGraph(files, perFile);
    const rank = Float64Array.from({ length: files }, (_, i) => 1 + (i % 7));
    const stepped = new Float64Array(files);
    const steps = spreadSteps(g, rank, stepped, 0.85);
    let yields = 0;
    while (!steps.next().done) yields++;
    const edges = files * perFile;
    assert.ok(yields >= Math.floor(edges / STEP_EDGES) - 1, `${yields} yields for ${edges} edges`);
    // every step walks at most STEP_EDGES edges and one file's more
    assert.ok(edges / (yields + 1) <= STEP_EDGES + perFile, `${edges / (yields + 1)} edges a step`);
    const once = new Float64Array(files);
    for (let i = 0; i < files; i++) for (let e = g.start[i]!; e < g.start[i + 1]!; e++) once[g.to[e]!]! += (0.85 * rank[i]! * g.w[e]!) / g.outW[i]!;
    assert.deepEqual(stepped, once);
  });

  it('a small graph is one step', () => {
    const g = denseGraph(100, 10);
    const steps = spreadSteps(g, new Float64Array(100).fill(1), new Float64Array(100), 0.85);
    let yields = 0;
    while (!steps.next().done) yields++;
    assert.equal(yields, 0);
  });
});
