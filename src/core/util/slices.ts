/**
 * Long work in slices of the event loop: `await slices.tick()` between units of work yields (setImmediate: I/O
 * and timers run first) once the slice has run `budgetMs`. The rule is that no call blocks the loop over 100 ms;
 * a slice of 15 ms leaves room for one unit of work that runs long.
 */
export const SLICE_MS = 15;

export class Slices {
  private start = performance.now();

  constructor(private readonly budgetMs = SLICE_MS) {}

  /** True when the slice is used up (check it in a loop, then `await yieldNow()`). */
  get due(): boolean {
    return performance.now() - this.start >= this.budgetMs;
  }

  /** Yields when the slice is used up; otherwise returns at once (without a microtask turn when nothing is due). */
  tick(): Promise<void> | undefined {
    return this.due ? this.yieldNow() : undefined;
  }

  async yieldNow(): Promise<void> {
    await new Promise<void>((resolve) => setImmediate(resolve));
    this.start = performance.now();
  }
}

/**
 * Work written once as a generator that yields between units (every few hundred items), run either to the end at
 * once (runSync: tests, small inputs) or in slices of the event loop (runSliced: the overview of 200,000 files).
 */
export type Steps<T> = Generator<void, T, void>;

export function runSync<T>(steps: Steps<T>): T {
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
  }
}

export async function runSliced<T>(steps: Steps<T>, slices = new Slices()): Promise<T> {
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
    const due = slices.tick();
    if (due) await due;
  }
}

/** Yield every this many items in a loop of steps: a generator resume per item would cost more than the item. */
export const STEP_ITEMS = 256;

/**
 * `items` sorted by `cmp` as steps: a bottom-up merge sort (stable, as Array.prototype.sort), one yield every
 * STEP_ITEMS * 16 elements moved. Sorting 200,000 ranked files at once held the event loop ~300 ms. `items` is
 * worked in (its order afterwards is not defined): a copy of 200,000 was one more large array per ranking.
 */
export function* sortSteps<T>(items: T[], cmp: (a: T, b: T) => number): Steps<T[]> {
  const n = items.length;
  const RUN = 1024;
  let src = items;
  for (let lo = 0; lo < n; lo += RUN) {
    const run = src.slice(lo, lo + RUN).sort(cmp);
    for (let i = 0; i < run.length; i++) src[lo + i] = run[i]!;
    yield;
  }
  let dst: T[] = new Array<T>(n);
  let moved = 0;
  for (let width = RUN; width < n; width *= 2) {
    for (let lo = 0; lo < n; lo += 2 * width) {
      const mid = Math.min(lo + width, n);
      const hi = Math.min(lo + 2 * width, n);
      let i = lo;
      let j = mid;
      for (let k = lo; k < hi; k++) {
        dst[k] = i < mid && (j >= hi || cmp(src[i]!, src[j]!) <= 0) ? src[i++]! : src[j++]!;
        if (++moved % (STEP_ITEMS * 16) === 0) yield;
      }
    }
    [src, dst] = [dst, src];
  }
  return src;
}
