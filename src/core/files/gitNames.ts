/**
 * Names as the file systems that fold them would see them, for the git protection (writePolicy.ts, gitShape.ts).
 * A name that Windows or macOS opens as `.git` (or as a git-directory entry such as `HEAD`) must be judged as that
 * name even on Linux: the workspace may be a network share, a checkout copied to a Mac, or a container volume.
 *
 * Folded, in order: an NTFS stream suffix (`.git::$INDEX_ALLOCATION`, `.git:x`: everything from the first `:`),
 * Unicode's default-ignorable code points (HFS+ drops U+200C and friends: `.g\u200Cit` is `.git`), compatibility
 * forms and combining marks (NFKD; NFC/NFD and fullwidth letters fold alike), trailing dots and spaces (Windows
 * drops them: `.git.`, `.git `), and case (both ways, so `ı`, `İ` and the Kelvin sign fold too). Over-folding only
 * refuses a few odd names that look like `.git`; under-folding would let one through.
 */

const IGNORABLE = /\p{Default_Ignorable_Code_Point}/gu;
const COMBINING = /\p{M}/gu;

/** The folded form of one path name (see above). */
export function foldName(name: string): string {
  // a batch's paths repeat their folders' names: each folded once (a pure function of the name; bounded)
  const known = folded.get(name);
  if (known !== undefined) return known;
  const f = foldNow(name);
  if (folded.size >= 4096) folded.clear();
  folded.set(name, f);
  return f;
}

const folded = new Map<string, string>();

function foldNow(name: string): string {
  let s = name;
  const colon = s.indexOf(':');
  if (colon >= 0) s = s.slice(0, colon);
  s = s.replace(IGNORABLE, '').normalize('NFKD').replace(COMBINING, '').replace(IGNORABLE, '');
  s = s.replace(/[. ]+$/, '');
  return s.toUpperCase().toLowerCase();
}

/**
 * Whether `name` may be a Windows 8.3 short name of `long` (`GIT~1` for `.git`, `COMMON~1` for `commondir`):
 * up to six characters of the long name (dots and spaces dropped) or, when names collide, two characters and four
 * hex digits, then `~` and a number, with an optional three-character extension.
 */
export function mayBeShortNameOf(name: string, long: string): boolean {
  const m = /^([^~]{1,6})~[0-9]+(\.[^.]{0,3})?$/.exec(foldName(name));
  if (!m) return false;
  const basis = foldName(long).replace(/[. ]/g, '');
  const stem = m[1];
  if (basis.startsWith(stem)) return true;
  return stem.length === 6 && /^[0-9a-f]{4}$/.test(stem.slice(2)) && basis.startsWith(stem.slice(0, 2));
}

/** Whether a file system could open `name` as `target` (folded alike, or a short name of it). */
export function namesAlike(name: string, target: string): boolean {
  return foldName(name) === foldName(target) || mayBeShortNameOf(name, target);
}

/** `.git` in any form a file system would open as `.git`. */
export function isDotGitName(name: string): boolean {
  return namesAlike(name, '.git');
}

/**
 * The entries that make a directory a git directory. Git takes a directory for one (setup.c, is_git_directory)
 * when it has `HEAD` and `objects/` + `refs/` (in the directory `commondir` names, when there is one).
 */
export const GIT_DIR_MARKERS = ['HEAD', 'objects', 'refs', 'commondir'] as const;
export type GitDirMarker = (typeof GIT_DIR_MARKERS)[number];

/** The marker a name would be on a folding file system, or undefined. */
export function gitMarkerOf(name: string): GitDirMarker | undefined {
  return GIT_DIR_MARKERS.find((m) => namesAlike(name, m));
}

/**
 * The rule, a superset of git's own test so nothing git accepts is missed: `HEAD` and at least one of `objects`,
 * `refs`, `commondir`. (Git also wants HEAD to read as a ref or a hash and both `objects` and `refs`; a directory
 * with less is refused by us but not by git, which only costs a write nobody needs.)
 */
export function looksLikeGitDir(markers: ReadonlySet<GitDirMarker>): boolean {
  return markers.has('HEAD') && (markers.has('objects') || markers.has('refs') || markers.has('commondir'));
}

/** Sections whose settings git runs as a command or follows to another file (drivers are `[filter "x"]` etc.). */
const DANGEROUS_SECTIONS: readonly [RegExp, string][] = [
  [/^\s*\[\s*include(if)?\b/im, '[include]/[includeIf]'],
  [/^\s*\[\s*(filter|diff|merge)\s+"/im, 'a filter/diff/merge driver'],
  [/^\s*\[\s*(credential|alias|sequence|gpg|uploadpack|receive)\b/im, 'a command setting (credential, alias, sequence, gpg, uploadpack, receive)'],
];
const CORE_KEYS = /^\s*(worktree|fsmonitor|hookspath|sshcommand|pager|editor|askpass|gitproxy)\s*(=|$)/im;

/**
 * Why a file named `config` with this text would be dangerous in a git directory, or undefined: a `[core]` key
 * git runs or follows (worktree, fsmonitor, hooksPath, sshCommand, pager, editor, askPass, gitProxy), an include,
 * a driver, a command setting. Names compared case-insensitively, as git does; kept broad.
 */
export function dangerousConfig(text: string): string | undefined {
  for (const m of text.matchAll(/^\s*\[\s*core\s*\]([\s\S]*?)(?=^\s*\[|(?![\s\S]))/gim)) {
    const key = CORE_KEYS.exec(m[1]);
    if (key) return `core.${key[1].toLowerCase()}`;
  }
  for (const [re, what] of DANGEROUS_SECTIONS) if (re.test(text)) return what;
  return undefined;
}
