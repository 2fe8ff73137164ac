/**
 * Outline workers started before their pool (src/core/context/node/outlineWorkerStart.ts, the stdio loader's): the
 * pool adopts the live ones as its idle workers and parses on them (no new start), leaves out one that has ended,
 * ends those beyond its size; the hand-over is taken once; the loader starts none without the bundled script, and
 * marks one that ended before adoption.
 */
import { strict as assert } from 'node:assert';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { once } from 'node:events';
import { OutlinePool } from '../../../src/core/context/node/outlinePool';
import { handOverOutlineWorkers, startOutlineWorker, startWorkersAhead, takeOutlineWorkers, type StartedWorker } from '../../../src/core/context/node/outlineWorkerStart';

const REPO = path.resolve(__dirname, '../../..');
const SOURCE_SCRIPT = {
  file: `require(${JSON.stringify(require.resolve('tsx/cjs'))}); require(${JSON.stringify(path.join(REPO, 'src/core/context/node/outlineWorker.ts'))});`,
  eval: true,
};

function started(): StartedWorker {
  const worker = startOutlineWorker(SOURCE_SCRIPT, REPO);
  const s: StartedWorker = { worker, exited: false, onError: () => undefined };
  worker.on('error', s.onError);
  worker.once('exit', () => (s.exited = true));
  return s;
}

describe('outline workers started ahead of their pool', function () {
  this.timeout(60_000);

  it('the pool adopts them as its idle workers and parses on them without starting others', async () => {
    const ahead = [started(), started()];
    const pool = new OutlinePool({ grammarsDir: REPO, size: 1, parallel: 2 });
    try {
      pool.adopt(ahead);
      assert.equal(pool.workers, 2, 'both adopted before any outline');
      for (const s of ahead) assert.equal(s.worker.listenerCount('error'), 1, "the pool's error listener replaced the loader's");
      assert.deepEqual((await pool.outline('int y(void) { return 0; }\n', 'c'))?.symbols.map((s) => s.name), ['y']);
      assert.equal(pool.workers, 2, 'no worker started beside the adopted ones');
      pool.warm(0);
      await new Promise((r) => setTimeout(r, 50));
      assert.equal(pool.workers, 2, 'warm leaves a pool with adopted workers alone');
    } finally {
      await pool.close();
    }
    assert.ok(ahead.every((s) => s.exited), 'closing the pool ended the adopted workers');
  });

  it('leaves out a worker that ended and ends those beyond its size', async () => {
    const dead = started();
    await dead.worker.terminate();
    await new Promise((r) => setImmediate(r));
    assert.equal(dead.exited, true);
    const extra = [started(), started()];
    const pool = new OutlinePool({ grammarsDir: REPO, size: 1, parallel: 1 });
    try {
      pool.adopt([dead, ...extra]);
      assert.equal(pool.workers, 1);
      if (!extra[1]!.exited) await once(extra[1]!.worker, 'exit');
      assert.equal(extra[0]!.exited, false, 'the first live one is the pool’s');
      assert.deepEqual((await pool.outline('int z(void) { return 0; }\n', 'c'))?.symbols.map((s) => s.name), ['z']);
    } finally {
      await pool.close();
    }
    const closed = new OutlinePool({ grammarsDir: REPO });
    await closed.close();
    const late = started();
    closed.adopt([late]);
    assert.equal(closed.workers, 0, 'a closed pool adopts nothing');
    if (!late.exited) await once(late.worker, 'exit');
  });

  it('hands the loader’s workers over once, and the loader starts none without the bundled script', async () => {
    const s = started();
    try {
      handOverOutlineWorkers([s]);
      assert.deepEqual(takeOutlineWorkers(), [s]);
      assert.deepEqual(takeOutlineWorkers(), [], 'taken once');
    } finally {
      await s.worker.terminate();
    }
    const dir = mkdtempSync(path.join(tmpdir(), 'workers-ahead-'));
    try {
      assert.deepEqual(startWorkersAhead(dir, 2), [], 'no outline-worker.js: no worker');
      // a script that ends at once: the loader's record says so, and the pool will leave it out
      writeFileSync(path.join(dir, 'outline-worker.js'), 'process.exit(0);\n');
      const ahead = startWorkersAhead(dir, 2);
      assert.equal(ahead.length, 2);
      await Promise.all(ahead.map((a) => (a.exited ? undefined : once(a.worker, 'exit'))));
      assert.ok(ahead.every((a) => a.exited));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
