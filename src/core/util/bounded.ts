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
