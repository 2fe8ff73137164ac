/**
 * History steps: what one `be-trx rollback` step undoes. A step is one edit's snapshot, or every snapshot of one
 * be-apply batch (a run of snapshots that share a `group`), whatever its file count. The queue's limit counts steps,
 * so a batch over more files than the limit keeps all its snapshots and is evicted whole, never in part.
 */
interface Grouped {
  meta: { group?: string };
}

/** How many snapshots of `entries` (oldest first) the newest `steps` steps hold. */
export function snapshotsInSteps(entries: readonly Grouped[], steps: number): number {
  let n = 0;
  for (let taken = 0; taken < steps && n < entries.length; taken++) {
    const group = entries[entries.length - 1 - n]!.meta.group;
    n++;
    while (group && n < entries.length && entries[entries.length - 1 - n]!.meta.group === group) n++;
  }
  return n;
}

/** How many snapshots the oldest step of `entries` (oldest first) holds. */
export function oldestStepLength(entries: readonly Grouped[]): number {
  if (entries.length === 0) return 0;
  const group = entries[0]!.meta.group;
  let n = 1;
  while (group && n < entries.length && entries[n]!.meta.group === group) n++;
  return n;
}

/** How many steps `entries` make. */
export function countSteps(entries: readonly Grouped[]): number {
  let steps = 0;
  for (let i = 0; i < entries.length; i++) {
    const group = entries[i]!.meta.group;
    if (!group || i === 0 || entries[i - 1]!.meta.group !== group) steps++;
  }
  return steps;
}
