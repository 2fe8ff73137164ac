/**
 * CPU time of a test's own work, for speed assertions. Wall time counts whatever else the machine runs (another
 * mocha worker, other processes): on a loaded machine a linear scan can take seconds of wall time. CPU time counts
 * only this process (all its threads: GC and the libuv pool are part of the work).
 */

/** CPU milliseconds (user + system) this process spent in `fn`, and what `fn` returned. */
export function cpuMs<T>(fn: () => T): { ms: number; value: T } {
  const before = process.cpuUsage();
  const value = fn();
  const used = process.cpuUsage(before);
  return { ms: (used.user + used.system) / 1000, value };
}

/** cpuMs for async work; fine while the test runs nothing else concurrently in this process. */
export async function cpuMsAsync<T>(fn: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const before = process.cpuUsage();
  const value = await fn();
  const used = process.cpuUsage(before);
  return { ms: (used.user + used.system) / 1000, value };
}
