/**
 * Loading the rank table must not block the event loop (no call may block it > 100 ms): in a fresh process, a
 * 5 ms interval timer measures the longest gap (the CPU time the process used in it, when smaller) while the first count of each encoding runs through `countAsync`
 * and `ready()`. Built in one go, o200k's table blocked for ~110 ms of CPU (300-500 ms wall on a loaded machine).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';

const REPO = path.resolve(__dirname, '../../..');

function firstCountInFreshProcess(encoding: string, how: 'countAsync' | 'ready'): { maxGapMs: number; loaded: boolean; tokens: number } {
  const script = `
    const t = require('./src/core/memory/node/tokenizer.ts');
    // the module source of the ranks is read before the clock starts: it is what a bundle reads from its own file
    require('js-tiktoken/ranks/${encoding}');
    // A gap between two ticks is a block only while this process ran: on a loaded machine it may just wait for a
    // core. So a gap counts as the smaller of its wall time and the CPU time the process used in it.
    let last = performance.now(), lastCpu = process.cpuUsage(), maxGap = 0;
    const tick = () => {
      const now = performance.now(), cpu = process.cpuUsage(lastCpu);
      maxGap = Math.max(maxGap, Math.min(now - last, (cpu.user + cpu.system) / 1000));
      last = now;
      lastCpu = process.cpuUsage();
    };
    const timer = setInterval(tick, 5);
    const tk = t.getTokenizer('${encoding}');
    const before = t.isTokenizerLoaded('${encoding}');
    const counted = ${how === 'countAsync' ? "tk.countAsync('hello world, a first count')" : "tk.ready().then(() => tk.count('hello world, a first count'))"};
    counted.then((tokens) => {
      clearInterval(timer);
      tick();
      process.stdout.write(JSON.stringify({ maxGapMs: maxGap, loaded: !before && t.isTokenizerLoaded('${encoding}'), tokens }));
    });`;
  const r = spawnSync(process.execPath, ['--require', 'tsx/cjs', '-e', script], { cwd: REPO, encoding: 'utf8', timeout: 60000 });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout) as { maxGapMs: number; loaded: boolean; tokens: number };
}

describe('tokenizer: the rank table loads without blocking the event loop', function () {
  this.timeout(120000);
  for (const [encoding, how] of [['o200k_base', 'countAsync'], ['o200k_base', 'ready'], ['cl100k_base', 'countAsync']] as const) {
    it(`${encoding}: the first ${how} count blocks < 60 ms at a time, and counts exactly`, () => {
      let r = firstCountInFreshProcess(encoding, how);
      assert.ok(r.loaded, 'the table was loaded by this count');
      assert.equal(r.tokens, 6);
      console.log(`      longest block: ${r.maxGapMs.toFixed(1)} ms`);
      // One more fresh process when the first is over: under the full suite a major GC in one slice measured 66 ms
      // once (alone: 18-30 ms); a table built in one go is over in every process, so the retry cannot hide it.
      if (r.maxGapMs >= 60) {
        r = firstCountInFreshProcess(encoding, how);
        console.log(`      longest block, a second process: ${r.maxGapMs.toFixed(1)} ms`);
      }
      // goal: < 100 ms; asserted tighter because o200k built in one go measures ~110 CPU-ms here, sliced ~20
      assert.ok(r.maxGapMs < 60, `longest event-loop block ${r.maxGapMs.toFixed(0)} ms`);
    });
  }
});
