/**
 * In-process locks: async work serialised inside one process (so a process does not spin on its own lock file,
 * and read-modify-write cycles on one file do not interleave). Cross-process locks are files/crossProcessLock.ts
 * and chips/node/dirLock.ts.
 */

/** Runs one piece of work at a time, in call order; a failure does not stop the next. */
export class Mutex {
  private tail: Promise<unknown> = Promise.resolve();

  run<T>(fn: () => Promise<T>): Promise<T> {
    const result = this.tail.then(fn, fn);
    this.tail = result.catch(() => undefined);
    return result;
  }
}

/** One Mutex per key (different keys run in parallel); a key's entry is dropped when its queue empties. */
export class KeyedMutex {
  private readonly tails = new Map<string, Promise<unknown>>();

  async run<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const prev = this.tails.get(key) ?? Promise.resolve();
    const next = prev.then(fn);
    const tail = next.catch(() => undefined);
    this.tails.set(key, tail);
    try {
      return await next;
    } finally {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    }
  }
}
