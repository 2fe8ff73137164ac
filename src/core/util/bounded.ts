/**
 * Runs `fn` over `items`, at most `limit` calls at a time, started in order. After the first failure no new call
 * starts; the running ones are awaited, then that failure is thrown (with its item's index), so a caller that
 * cleans up after a failure sees every call that ran already finished.
 */
export async function eachBounded<T>(items: readonly T[], limit: number, fn: (item: T, index: number) => Promise<void>): Promise<void> {
  let next = 0;
  let failed: BoundedFailure | undefined;
  const worker = async () => {
    while (!failed && next < items.length) {
      const i = next++;
      try {
        await fn(items[i], i);
      } catch (e) {
        failed ??= new BoundedFailure(e, i);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
  if (failed) throw failed;
}

/** The first failure of eachBounded: the error the call threw and the index of its item. */
export class BoundedFailure {
  constructor(
    readonly error: unknown,
    readonly index: number,
  ) {}
}

/** A gate that runs at most `limit` of the functions given to it at once, in the order given. */
export function limiter(limit: number): <T>(fn: () => Promise<T>) => Promise<T> {
  let running = 0;
  const waiting: (() => void)[] = [];
  return async <T>(fn: () => Promise<T>): Promise<T> => {
    if (running >= limit) await new Promise<void>((resolve) => waiting.push(resolve));
    running++;
    try {
      return await fn();
    } finally {
      running--;
      waiting.shift()?.();
    }
  };
}
