/**
 * The sandbox: every path an agent gives is resolved here, symlinks included, and must land inside a root.
 * Accepts absolute paths, paths relative to the first root, and file:// URIs. A path that does not exist yet
 * is resolved through its nearest existing ancestor (and through dangling symlinks, whose targets are checked
 * too), so creating a file cannot escape either.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ToolError } from '../errors';
import { isInside, type SandboxPort, type WriteLookups } from './ports';
import { callsForFolder } from './fsCalls';
import { gitConfigRefusal, gitShapeRefusal, isGitConfigName } from './gitShape';
import { gitMarkerOf } from './gitNames';
import { gitShapeRefused, gitWriteRefused, WritePolicy } from './writePolicy';

const MAX_LINK_HOPS = 40;

function realpathOrResolve(p: string): string {
  try {
    return fs.realpathSync.native(p);
  } catch {
    return path.resolve(p);
  }
}

/**
 * The real path of `abs` from its folder's real path, resolved once per call (`lookups`), when `abs` itself is an
 * entry that is no link (its lstat, which the git-shape check of the same call reuses): where one realpath per
 * file asked the kernel about every folder on the way again. Undefined where that does not decide it (a link, a
 * missing entry, a root): the full resolution then. A folder swapped after this look-up is caught where the path
 * is used: the write opens the folder and checks its descriptor's real path (safeOpen.ts).
 */
async function realpathInCall(abs: string, lookups: WriteLookups): Promise<string | undefined> {
  const dir = path.dirname(abs);
  if (dir === abs) return undefined;
  // the folder's file system asked once per call (statfs, through the pool): its files' lstats direct where it is local
  const calls = await memo(lookups, `calls:${dir}`, () => callsForFolder(dir));
  const st = (await memo(lookups, `lstat:${abs}`, () => calls.lstat(abs).catch(() => undefined))) as fs.Stats | undefined;
  if (!st || st.isSymbolicLink()) return undefined;
  const realDir = (await memo(lookups, `realdir:${dir}`, () => fs.promises.realpath(dir).catch(() => undefined))) as string | undefined;
  return realDir === undefined ? undefined : path.join(realDir, path.basename(abs));
}

function memo<T>(lookups: WriteLookups, key: string, look: () => Promise<T>): Promise<T> {
  let p = lookups.get(key) as Promise<T> | undefined;
  if (!p) lookups.set(key, (p = look()));
  return p;
}

/** An absolute path as its root and its names (no empty names). */
function splitPath(p: string): { root: string; names: string[] } {
  const root = path.parse(p).root;
  return { root, names: p.slice(root.length).split(path.sep).filter((n) => n !== '') };
}

export interface SandboxOptions {
  /** Globs (gitignore syntax, relative to a root) of `.git` paths that may be written anyway; see WritePolicy. */
  allowWrite?: readonly string[];
}

export class Sandbox implements SandboxPort {
  readonly roots: readonly string[];
  readonly writePolicy: WritePolicy;

  constructor(roots: readonly string[], opts: SandboxOptions = {}) {
    if (roots.length === 0) throw new ToolError('invalid_argument', 'the sandbox needs at least one root directory');
    for (const r of roots) {
      // relative roots would silently depend on the process's working directory
      if (!path.isAbsolute(r)) throw new ToolError('invalid_argument', `sandbox root must be an absolute path: ${r}`);
    }
    this.roots = roots.map((r) => realpathOrResolve(r));
    this.writePolicy = new WritePolicy(opts.allowWrite);
  }

  /** The path the agent wrote, made absolute (not yet checked, links not yet followed). */
  absolute(input: string): string {
    const s = input.trim();
    if (s === '') throw new ToolError('invalid_argument', 'path is empty: expected a file path inside the workspace');
    if (/^file:\/\//i.test(s)) {
      if (/^file:\/\/\//i.test(s) || /^file:\/\/localhost\//i.test(s)) {
        try {
          return path.resolve(fileURLToPath(s));
        } catch (e) {
          throw new ToolError('invalid_argument', `invalid file URI "${s}": ${(e as Error).message}`);
        }
      }
      // file://relative/path (upstream accepted it): relative to the first root
      return path.resolve(this.roots[0], decodeURIComponent(s.slice('file://'.length)));
    }
    return path.resolve(this.roots[0], s);
  }

  /**
   * Resolve to the real absolute path; throws ToolError('outside_roots') unless it lies inside a root. `lookups`:
   * shared by the paths of one call, which then resolve each folder once (see realpathInCall).
   */
  async resolve(input: string, lookups?: WriteLookups): Promise<string> {
    const abs = this.absolute(input);
    const real = (lookups && (await realpathInCall(abs, lookups))) ?? (await this.realpathAllowingMissing(abs, 0));
    if (!this.roots.some((r) => isInside(r, real))) {
      const via = real !== abs ? ` (it resolves to ${real})` : '';
      throw new ToolError(
        'outside_roots',
        `path "${input}" is outside the allowed roots${via}. Allowed roots: ${this.roots.join(', ')}. ` +
          'Use a path inside one of them (relative paths are taken from the first root).',
        { roots: [...this.roots], resolved: real },
      );
    }
    return real;
  }

  /**
   * resolve() for a path about to be written (or removed): also refuses what the write policy protects (`.git`),
   * judged on both the path as given and the path it resolves to, so neither a link to `.git` nor a `.git` that is
   * a link gets through; and a directory that is (or this write would make) a git directory by its shape
   * (gitShape.ts), whatever its name. `batch`: the other paths (absolute, resolved) written together with this one
   * (be-apply), judged as if already there; `lookups`: shared by the paths of that one call. Call it at the moment of writing: a path can change between a read and a write.
   */
  async resolveForWrite(input: string, batch: readonly string[] = [], lookups?: WriteLookups): Promise<string> {
    const real = await this.resolve(input, lookups);
    const abs = this.absolute(input);
    // the path as given and as resolved are judged alike: once when they are the same path
    for (const p of abs === real ? [real] : [abs, real]) {
      for (const root of this.roots) {
        if (!isInside(root, p)) continue;
        const refused = this.writePolicy.refusal(root, p);
        if (refused !== undefined) throw gitWriteRefused(input, refused);
        if (this.writePolicy.allows(root, p)) continue;
        const shape = await gitShapeRefusal(root, p, batch, lookups);
        if (shape) throw gitShapeRefused(input, shape.rel, shape.why);
      }
    }
    return real;
  }

  /**
   * A batch (be-apply: resolved paths, each passed resolveForWrite alone) judged together: each file with the others
   * counted as there already. Only a path with a git-directory entry's name in it can add an entry to a folder, so
   * only those are counted (with none, each file's own check said it all; every pair cost O(n²) name foldings).
   */
  async resolveBatchForWrite(paths: readonly string[], lookups?: WriteLookups): Promise<void> {
    const entryNamed = paths.filter((abs) => abs.split(path.sep).some((name) => gitMarkerOf(name) !== undefined));
    if (paths.length < 2 || entryNamed.length === 0) return;
    for (const abs of paths) await this.resolveForWrite(abs, entryNamed.filter((k) => k !== abs), lookups);
  }

  /**
   * The content half of the git rule, for the write itself (`abs` from resolveForWrite): a `config` that names a
   * command or a redirect is refused next to git-directory entries. Throws ToolError('outside_roots').
   */
  async checkWriteContent(abs: string, content: string | Buffer | readonly Buffer[]): Promise<void> {
    if (!isGitConfigName(path.basename(abs))) return;
    for (const root of this.roots) {
      if (!isInside(root, abs) || this.writePolicy.allows(root, abs)) continue;
      const text = typeof content === 'string' ? content : Buffer.concat(Array.isArray(content) ? content : [content as Buffer]).toString('latin1');
      const bad = await gitConfigRefusal(root, abs, text);
      if (bad) throw gitShapeRefused(abs, bad.rel, bad.why);
    }
  }

  /** The path to show an agent: relative to the first root that contains it, with '/' separators. */
  display(abs: string): string {
    for (const r of this.roots) {
      if (isInside(r, abs)) {
        const rel = path.relative(r, abs);
        return rel === '' ? '.' : rel.split(path.sep).join('/');
      }
    }
    return abs;
  }

  private async realpathAllowingMissing(p: string, hops: number): Promise<string> {
    if (hops > MAX_LINK_HOPS) throw new ToolError('invalid_argument', `too many levels of symbolic links at ${p}`);
    try {
      return await fs.promises.realpath(p);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && code !== 'ENOTDIR') {
        if (code === 'ELOOP') throw new ToolError('invalid_argument', `too many levels of symbolic links at ${p}`);
        throw new ToolError('io', `cannot resolve ${p}: ${(e as Error).message}`);
      }
    }
    // p does not exist (or is a dangling link). Find the deepest part of it that exists: lstat succeeds on a prefix
    // exactly when it succeeds on every shorter one, so a binary search takes O(log n) look-ups where walking up one
    // segment at a time took one realpath per segment (a 2,048-segment path: 1.56 s before, see sandbox.test.ts).
    const { root, names } = splitPath(p);
    const prefix = (k: number) => path.join(root, ...names.slice(0, k));
    const lstatOf = (k: number) => fs.promises.lstat(prefix(k)).catch(() => undefined);
    let lo = 0; // the root itself exists
    let hi = names.length;
    let top = await lstatOf(hi);
    if (!top) {
      while (lo < hi - 1) {
        const mid = (lo + hi) >> 1;
        if (await lstatOf(mid)) lo = mid;
        else hi = mid;
      }
      hi = lo;
      top = await lstatOf(hi);
    }
    const base = prefix(hi);
    const rest = names.slice(hi);
    let realBase: string;
    if (top?.isSymbolicLink()) {
      // a link that does not resolve (else realpath would have found more): follow it by hand, its target is checked too
      const link = await fs.promises.readlink(base).catch(() => undefined);
      // swapped for something else since the lstat: start over on the path as it is now (bounded by the hop count)
      if (link === undefined) return this.realpathAllowingMissing(p, hops + 1);
      realBase = await this.realpathAllowingMissing(path.resolve(path.dirname(base), link), hops + 1);
    } else {
      try {
        realBase = await fs.promises.realpath(base);
      } catch {
        realBase = base; // changed under us: judged on the path as it stands
      }
    }
    return rest.length ? path.join(realBase, ...rest) : realBase;
  }
}
