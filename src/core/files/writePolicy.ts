/**
 * Which paths inside the roots may be written. Everything may, except a repository's `.git` (the folder, or the
 * file a worktree has in its place): a write to `.git/config` (core.fsmonitor, core.pager, a hook path) runs a
 * command at the next `git status`, which editors run by themselves. So an edit tool would become code execution.
 * `.git` is judged in every form a file system opens as `.git` (gitNames.ts); a directory that is a git directory
 * by its shape, whatever its name, is protected by gitShape.ts with the same opt-in.
 * Users opt in per path with allow globs in gitignore syntax (the `ignore` package), relative to the root:
 * `.git/info/exclude`, `.git/hooks/**`, `.git/` (everything).
 */
import * as path from 'node:path';
import ignore, { type Ignore } from 'ignore';
import { ToolError } from '../errors';
import { isDotGitName } from './gitNames';

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
    if (!parts.some(isDotGitName)) return undefined;
    if (this.allows(root, p)) return undefined;
    return parts.join('/');
  }

  /** Whether the user's allow globs open `p` (absolute, inside `root`). */
  allows(root: string, p: string): boolean {
    const rel = path.relative(root, p);
    if (rel === '') return false;
    return this.allowed.ignores(rel.split(path.sep).join('/'));
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

/** A write refused because of what a directory is (or would become), not its name; same opt-in. */
export function gitShapeRefused(input: string, rel: string, why: string): ToolError {
  return new ToolError(
    'outside_roots',
    `writing "${input}" is refused: ${why}. Git runs commands named in a git directory's config (core.fsmonitor, ` +
      'hooks, drivers) at the next git call inside it (editors run "git status" by themselves). Edit files elsewhere, ' +
      'or ask the user to allow this path: the setting betterEditTools.allowWrite or the CLI flag --allow-write GLOB ' +
      `(gitignore syntax, relative to the root, e.g. "${rel}").`,
    { refused: rel, reason: 'git_dir_shape' },
  );
}
