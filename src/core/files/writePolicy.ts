/**
 * Which paths inside the roots may be written. Everything may, except a repository's `.git` (the folder, or the
 * file a worktree has in its place): a write to `.git/config` (core.fsmonitor, core.pager, a hook path) runs a
 * command at the next `git status`, which editors run by themselves. So an edit tool would become code execution.
 * Users opt in per path with allow globs in gitignore syntax (the `ignore` package), relative to the root:
 * `.git/info/exclude`, `.git/hooks/**`, `.git/` (everything).
 */
import * as path from 'node:path';
import ignore, { type Ignore } from 'ignore';
import { ToolError } from '../errors';

/**
 * The protected name, compared the way the file systems that fold names would: case-insensitively, and without
 * trailing dots or spaces (Windows opens `.git.` and `.GIT ` as `.git`).
 */
function isProtectedName(name: string): boolean {
  return name.replace(/[. ]+$/, '').toLowerCase() === '.git';
}

export class WritePolicy {
  readonly allowWrite: readonly string[];
  private readonly allowed: Ignore;

  constructor(allowWrite: readonly string[] = []) {
    const globs = allowWrite.map((g) => g.trim()).filter((g) => g !== '');
    for (const g of globs) {
      if (g.startsWith('!') || g.startsWith('#')) {
        throw new ToolError('invalid_argument', `allow-write glob "${g}" cannot start with "!" or "#": give the paths to allow, e.g. ".git/hooks/**".`);
      }
    }
    this.allowWrite = globs;
    this.allowed = ignore().add([...globs]);
  }

  /**
   * Why writing `p` (absolute) is refused, or undefined when it may be written. `root` is the root that holds it;
   * the path is judged by its parts below the root (a root that is itself inside a `.git` folder was chosen on purpose).
   */
  refusal(root: string, p: string): string | undefined {
    const rel = path.relative(root, p);
    if (rel === '' || rel === '..' || rel.startsWith('..' + path.sep) || path.isAbsolute(rel)) return undefined;
    const parts = rel.split(path.sep);
    if (!parts.some(isProtectedName)) return undefined;
    if (this.allowed.ignores(parts.join('/'))) return undefined;
    return parts.join('/');
  }
}

/** The refusal an agent sees: what was refused, why, and how the user can allow it. */
export function gitWriteRefused(input: string, rel: string): ToolError {
  return new ToolError(
    'outside_roots',
    `writing "${input}" is refused: it is inside a .git folder (${rel}), where a changed config or hook runs commands ` +
      'at the next git call (editors run "git status" by themselves). Edit files outside .git, or ask the user to allow ' +
      'this path: the setting betterEditTools.allowWrite or the CLI flag --allow-write GLOB (gitignore syntax, e.g. ".git/info/exclude").',
    { refused: rel, reason: 'git_dir' },
  );
}
