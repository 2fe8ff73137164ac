/**
 * Git directories known by what they are, not by their name: a bare repository written file by file
 * (`evil/HEAD`, `evil/config` with core.fsmonitor, `evil/objects/`, `evil/refs/`) runs that command at the first
 * `git status` inside it, and a `.git` file (`gitdir: ../meta`) makes any such directory live. The rule, checked
 * on disk at the moment of the write, for every directory from the root down to the path itself:
 *
 * - a directory that has `HEAD` and one of `objects`, `refs`, `commondir` (gitNames.looksLikeGitDir, a superset of
 *   git's own test) is a git directory: nothing inside it is written. That covers bare repositories, a worktree's
 *   metadata (`HEAD` + `commondir`) and every `gitdir:` target, since git refuses a target that is not one;
 * - a write whose name (folded as Windows and macOS fold names) is one of those entries is refused when it would
 *   complete the shape, whichever entry comes last;
 * - a `config` or `config.worktree` whose text sets a command or a redirect (gitNames.dangerousConfig) is refused
 *   in a directory that has any of those entries already (content check, at the write).
 *
 * Files are looked up by git's own names (`lstat(dir/HEAD)`), so a folding file system answers for `head` as git
 * would; names being written are folded by us, as no file system is asked yet.
 */
import { promises as fs, type Stats } from 'node:fs';
import * as path from 'node:path';
import { dangerousConfig, foldName, GIT_DIR_MARKERS, gitMarkerOf, looksLikeGitDir, type GitDirMarker } from './gitNames';

export interface GitShapeRefusal {
  /** the refused path, relative to the root, '/' separators */
  rel: string;
  /** why, as a clause of the error message */
  why: string;
}

/** Folder levels whose look-ups are made together. */
const LOOK_AHEAD = 8;
const exists = (p: string) => fs.lstat(p).then(() => true, () => false);
const lstatOrUndefined = (p: string) => fs.lstat(p).catch(() => undefined);

/** The git-directory entries `dir` has on disk now. */
export async function gitMarkers(dir: string): Promise<Set<GitDirMarker>> {
  const found = await Promise.all(GIT_DIR_MARKERS.map(async (m) => ((await exists(path.join(dir, m))) ? m : undefined)));
  return new Set(found.filter((m): m is GitDirMarker => m !== undefined));
}

const NO_MARKERS: ReadonlySet<GitDirMarker> = new Set();

/**
 * The markers that decide whether `dir` is a git directory now: the shape needs `HEAD`, so without it (nearly
 * every folder) one look-up says "none" and the other three are not asked; with it, all of them.
 */
async function shapeMarkers(dir: string, lookups: Map<string, Promise<unknown>> | undefined): Promise<ReadonlySet<GitDirMarker>> {
  const known = lookups?.get(`markers:${dir}`) as Promise<Set<GitDirMarker>> | undefined;
  if (known) return known;
  const head = await memo(lookups, `head:${dir}`, () => exists(path.join(dir, 'HEAD')));
  return head ? memo(lookups, `markers:${dir}`, () => gitMarkers(dir)) : NO_MARKERS;
}

/** `look()`, or its promise from `lookups` when this call looked it up already. */
function memo<T>(lookups: Map<string, Promise<unknown>> | undefined, key: string, look: () => Promise<T>): Promise<T> {
  if (!lookups) return look();
  let p = lookups.get(key) as Promise<T> | undefined;
  if (!p) lookups.set(key, (p = look()));
  return p;
}

const toRel = (root: string, p: string) => path.relative(root, p).split(path.sep).join('/') || '.';
const listed = (m: ReadonlySet<string>) => [...m].join(', ');

/** The markers the other writes of a batch (`pending`, absolute) add to `dir`, by the name each has below it. */
function pendingMarkers(dir: string, pending: readonly string[]): GitDirMarker[] {
  const out: GitDirMarker[] = [];
  for (const q of pending) {
    const rel = path.relative(dir, q);
    if (rel === '' || rel.startsWith('..') || path.isAbsolute(rel)) continue;
    const m = gitMarkerOf(rel.split(path.sep)[0]);
    if (m) out.push(m);
  }
  return out;
}

/**
 * Why writing `p` (absolute, inside `root`) would touch or make a git directory, or undefined. `pending`: the other
 * files of the same batch (be-apply), which land together with `p` and so count as there already. `lookups`: the
 * folders' look-ups shared by the paths of one call (Sandbox WriteLookups).
 */
export async function gitShapeRefusal(
  root: string,
  p: string,
  pending: readonly string[] = [],
  lookups?: Map<string, Promise<unknown>>,
): Promise<GitShapeRefusal | undefined> {
  const rel = path.relative(root, p);
  const names = rel === '' ? [] : rel.split(path.sep);
  const dirs = [root];
  for (const name of names) dirs.push(path.join(dirs[dirs.length - 1]!, name));
  // the look-ups of the folders on the way (each one's markers, the next one's lstat) are independent: made
  // LOOK_AHEAD levels at once, judged in order below (a path that ends early leaves at most that many unused)
  const ahead: Promise<[ReadonlySet<GitDirMarker>, Stats | undefined]>[] = [];
  const level = (i: number) => {
    // the path itself is not looked at (see below): the last level asks for its folder's markers only
    for (let j = ahead.length; j < Math.min(names.length, i + LOOK_AHEAD); j++) ahead.push(Promise.all([shapeMarkers(dirs[j]!, lookups), j + 1 === names.length ? undefined : memo(lookups, `lstat:${dirs[j + 1]!}`, () => lstatOrUndefined(dirs[j + 1]!))]));
    return ahead[i]!;
  };
  let dir = root;
  let onDisk = true;
  // a regular file (or any entry not a folder nor a link) has no entries: its markers need no look-up
  let mayHaveEntries = true;
  for (let i = 0; i <= names.length; i++) {
    // the path itself is written only as a regular file (the store refuses a folder or a link there at the moment
    // of use, safeOpen.ts and stagedWrite.ts), and a regular file has no entries: no look-up of it, nor inside it
    if (i === names.length && i > 0) break;
    const looked = i < names.length && onDisk ? await level(i) : undefined;
    let markers = onDisk && mayHaveEntries ? (looked?.[0] ?? (await shapeMarkers(dir, lookups))) : NO_MARKERS;
    const batch = pendingMarkers(dir, pending);
    if (looksLikeGitDir(markers)) {
      return { rel: toRel(root, p), why: `${toRel(root, dir)} is a git directory by its shape (it has ${listed(markers)})` };
    }
    if (i === names.length) break;
    const gained = gitMarkerOf(names[i]);
    // a write that adds an entry may complete the shape without HEAD there yet: then every entry counts
    if ((gained || batch.length) && onDisk && mayHaveEntries) markers = await memo(lookups, `markers:${dir}`, () => gitMarkers(dir));
    const after = new Set([...markers, ...batch, ...(gained ? [gained] : [])]);
    if ((gained || batch.length) && looksLikeGitDir(after)) {
      return {
        rel: toRel(root, p),
        why:
          `it would make ${toRel(root, dir)} a git directory (with ${listed(after)}${batch.length ? ', counting the other files of this batch' : ''}), ` +
          'whose config git would then run',
      };
    }
    dir = dirs[i + 1]!;
    // below a new directory only the names count: a single write adds one entry to it, never the two the shape needs
    if (onDisk) {
      const st = looked![1];
      if (!st) {
        if (pending.length === 0) break;
        onDisk = false;
      } else {
        mayHaveEntries = st.isDirectory() || st.isSymbolicLink();
      }
    }
  }
  return undefined;
}

/** `config` or `config.worktree`, folded: the only names whose text the content check reads. */
export function isGitConfigName(name: string): boolean {
  const base = foldName(name);
  return base === 'config' || base === 'config.worktree';
}

/** Why writing `text` to `p` would plant a command in a (partly built) git directory, or undefined. */
export async function gitConfigRefusal(root: string, p: string, text: string): Promise<GitShapeRefusal | undefined> {
  if (!isGitConfigName(path.basename(p))) return undefined;
  const markers = await gitMarkers(path.dirname(p));
  if (markers.size === 0) return undefined;
  const bad = dangerousConfig(text);
  if (!bad) return undefined;
  return {
    rel: toRel(root, p),
    why: `it is a git config (next to ${listed(markers)} in ${toRel(root, path.dirname(p))}) that sets ${bad}`,
  };
}
