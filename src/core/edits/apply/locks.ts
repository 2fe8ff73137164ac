import type { FileStore } from '../../files/fileStore';

/** Holds every target's lock (sorted paths, as a batch takes them) while `fn` runs. */
export function withLocks<T>(files: FileStore, paths: readonly string[], fn: () => Promise<T>): Promise<T> {
  const sorted = [...new Set(paths)].sort();
  if (files.lockAll) return files.lockAll(sorted, fn);
  const run = sorted.reduceRight<() => Promise<T>>((inner, p) => (files.lock ? () => files.lock!(p, inner) : inner), fn);
  return run();
}
