/**
 * Work in slices of the event loop (src/core/util/slices.ts): steps run to the same result at once and in slices,
 * a slice yields to timers once its budget is used, and the repository map's graph and ranks built in slices are
 * the ones built at once.
 */
import { strict as assert } from 'node:assert';
import { Graph } from '../../../src/core/context/rank/graph';
import { extractTags } from '../../../src/core/context/tags';
import fc from 'fast-check';
import { runSliced, runSync, Slices, sortSteps, type Steps } from '../../../src/core/util/slices';

function* counting(n: number): Steps<number> {
  let sum = 0;
  for (let i = 0; i < n; i++) {
    sum += i;
    yield;
  }
  return sum;
}

describe('core/util slices', () => {
  it('steps give the same result run at once and in slices', async () => {
    assert.equal(runSync(counting(1000)), 499500);
    assert.equal(await runSliced(counting(1000)), 499500);
    assert.equal(await runSliced(counting(0), new Slices(0)), 0);
  });

  it('sortSteps sorts as Array.prototype.sort does, stable (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.integer({ min: 0, max: 20 }), fc.nat()), { maxLength: 5000 }), (xs) => {
        const cmp = (a: [number, number], b: [number, number]) => a[0] - b[0];
        assert.deepEqual(runSync(sortSteps(xs.slice(), cmp)), xs.slice().sort(cmp));
      }),
      { numRuns: 60 },
    );
    const big = Array.from({ length: 70_000 }, (_, i) => (i * 7919) % 70_001);
    assert.deepEqual(runSync(sortSteps(big.slice(), (a, b) => a - b)), big.slice().sort((a, b) => a - b));
  });

  it('a used-up slice lets a timer run before the next step', async () => {
    let fired = 0;
    const timer = setInterval(() => fired++, 1);
    function* busy(): Steps<void> {
      for (let i = 0; i < 20; i++) {
        const until = performance.now() + 5;
        while (performance.now() < until); // 5 ms of work per step
        yield;
      }
    }
    await runSliced(busy(), new Slices(10));
    clearInterval(timer);
    assert.ok(fired >= 5, `the timer ran ${fired} times during 100 ms of sliced work`);
  });

  it("the map's graph built in slices ranks as the one built at once", async () => {
    const files = Array.from({ length: 600 }, (_, i) => {
      const text = `import { helper${(i * 7) % 600} } from './f${(i * 7) % 600}';\nexport function helper${i}(x: number) { return helper${(i * 7) % 600}(x) + ${i}; }\nexport class Widget${i % 50} {}\n`;
      return { rel: `f${i}.ts`, tags: extractTags(text, 'typescript') };
    });
    const atOnce = new Graph(files);
    const sliced = await Graph.sliced(files);
    const restart = new Map([['f3.ts', 1]]);
    assert.deepEqual([...sliced.rank(new Map(), '')], [...atOnce.rank(new Map(), '')]);
    const byPos = new Float64Array(files.length);
    byPos[sliced.indexOf('f3.ts')!] = 1;
    assert.deepEqual([...(await runSliced(sliced.rankSteps(byPos, 'q'), new Slices(0)))], [...atOnce.rank(restart, 'q')]);
  });
});
