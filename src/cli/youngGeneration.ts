/**
 * Caps the young generation of the CLI's main thread. V8 grows it while its scavenges find most objects alive, and
 * building the repository map does just that (the records live as long as the server): on Node 24 it reaches 128 MB
 * (two 64 MB semi-spaces; Node 20 and 22 stop at 32 MB) and stays resident, though a smaller one indexes as fast.
 * `--max-semi-space-size` would cap it, but hosts start the server as `node cli.js` or through npx, with no room for
 * a node flag, and V8 reads that flag only when it sets the heap up. It reads `--semi-space-growth-factor` each time
 * it grows the space, so after each GC this sets it to 1 (no growth) once the space has reached the cap and back to
 * V8's default (2) below it (V8 shrinks the space when the process idles). V8's flags are per process: the workers'
 * young generations stop growing too (the 4 MB outline, parsed on two of them, was not slower). The extension host is
 * VS Code's process and keeps V8's sizing. Measured in README "Benchmarks" (`npm run bench:context -- --scale`,
 * 200,000 files).
 */
import { PerformanceObserver } from 'node:perf_hooks';
import * as v8 from 'node:v8';
import { registerDefaultFlags } from '../core/files/codeCache';

/** The young generation's size (both semi-spaces) at which it stops growing, in MB. */
export const YOUNG_GENERATION_MB = 16;

const V8_GROWTH_FACTOR = 2;

/** BET_YOUNG_GENERATION_MB: the cap in MB, 0 for V8's own sizing; anything else is reported and the default kept. */
export function youngGenerationMbFrom(env: NodeJS.ProcessEnv, warn: (m: string) => void): number {
  const raw = env.BET_YOUNG_GENERATION_MB;
  if (raw === undefined || raw === '') return YOUNG_GENERATION_MB;
  if (/^\d{1,5}$/.test(raw.trim())) return Number(raw.trim());
  warn(`BET_YOUNG_GENERATION_MB=${JSON.stringify(raw)} is not a whole number of MB; the young generation stays capped at ${YOUNG_GENERATION_MB} MB`);
  return YOUNG_GENERATION_MB;
}

/** The young generation's current size in bytes (V8 names it new_space). */
export function youngGenerationBytes(): number {
  return v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space')?.space_size ?? 0;
}

/**
 * Stops the young generation's growth at `mb` (it may pass it by one growth step between two GCs). 0: V8's own
 * sizing. Returns a function that ends the cap.
 */
export function capYoungGeneration(mb = YOUNG_GENERATION_MB): () => void {
  if (!(mb > 0)) return () => {};
  const cap = mb * 1048576;
  let factor = V8_GROWTH_FACTOR;
  const set = (f: number) => {
    if (f === factor) return;
    factor = f;
    v8.setFlagsFromString(`--semi-space-growth-factor=${f}`);
  };
  const check = () => set(youngGenerationBytes() >= cap ? 1 : V8_GROWTH_FACTOR);
  const observer = new PerformanceObserver(check);
  observer.observe({ entryTypes: ['gc'] });
  check();
  // V8 keys the code cache to its flags: a cache saved with the factor at 1 was rejected by every later start
  registerDefaultFlags((save) => {
    const capped = factor;
    set(V8_GROWTH_FACTOR);
    try {
      return save();
    } finally {
      set(capped);
    }
  });
  return () => {
    observer.disconnect();
    registerDefaultFlags(undefined);
    set(V8_GROWTH_FACTOR);
  };
}
