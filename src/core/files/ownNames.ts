/**
 * The names of the transient files an edit leaves beside its target for a moment: the cross-process lock
 * `.<name>.be-lock` (and its break claim `.<name>.be-lock.break-…`, crossProcessLock.ts) and the staged temp
 * `.<name>.be-<pid>-<start>-<random>.tmp` (tempFiles.ts). Pure name tests, so every listing and watcher (the
 * overview walker, the root watcher, the VS Code watchers) leaves them out the same way: they are never a change.
 */

export const LOCK_SUFFIX = '.be-lock';

// `start` is base 36; the second form is the name the store used before start times were recorded.
export const TEMP_RE = /^\..*\.be-(\d+)-([0-9a-z]+)-[0-9a-f]{12}\.tmp$/s;
export const OLD_TEMP_RE = /^\..*\.be-(\d+)-[0-9a-f]{12}\.tmp$/s;

/** True for the name of a lock file (or a break claim), which listings should not show. */
export function isLockFileName(name: string): boolean {
  return name.startsWith('.') && (name.endsWith(LOCK_SUFFIX) || name.includes(`${LOCK_SUFFIX}.break-`));
}

/** True for the name of a staged temp file of ours (an edit's new bytes before the rename, a lock record's). */
export function isStagedTempName(name: string): boolean {
  return name.startsWith('.') && name.endsWith('.tmp') && (TEMP_RE.test(name) || OLD_TEMP_RE.test(name));
}

/** A lock or a staged temp of ours: a base name (not a path) that no listing or watcher should report. */
export function isOwnTransientName(name: string): boolean {
  return isLockFileName(name) || isStagedTempName(name);
}

/** The same test on a path with `/` or `\` separators. */
export function isOwnTransientPath(p: string): boolean {
  const cut = Math.max(p.lastIndexOf('/'), p.lastIndexOf('\\'));
  return isOwnTransientName(cut < 0 ? p : p.slice(cut + 1));
}

/** State files (chips, snapshots, sessions) are written through a `.tmp-<name>.<pid>.<random>` temp (tempFiles.ts). */
export const STATE_TEMP_PREFIX = '.tmp-';

/**
 * A name in a state folder (the chip or history folder another window or the CLI writes) that is no change of
 * its own: a state temp, or a lock or staged temp of ours. The rename that lands it is reported under the real name.
 */
export function isStateFolderNoise(name: string): boolean {
  return name.startsWith(STATE_TEMP_PREFIX) || isOwnTransientName(name);
}
