/**
 * Watches the workspace roots for the context service (the stdio CLI; VS Code uses its own watcher) and reports
 * every changed path, so a warm overview re-reads only those. It skips what the overview walker skips — the
 * default skip lists and `.gitignore` rules of walk.ts — so `node_modules` and `.git` cost no inotify watches.
 *
 * chokidar, not @parcel/watcher (which VS Code uses): chokidar is pure JavaScript, so the .vsix that bundles the
 * CLI stays one platform-independent package; @parcel/watcher ships a native binary per platform.
 * Its initial scan is asynchronous (readdir per folder), so starting never blocks the event loop for long; the
 * service trusts the watcher only from `ready` on, after one catch-up walk.
 */
import { promises as fsp, readFileSync, type Stats } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import { watch, type FSWatcher } from 'chokidar';
import ignore from 'ignore';
import { isInside } from '../../files/ports';
import { isOwnTransientName } from '../../files/ownNames';
import { ignoredBy, isSkippedFileName, SKIP_DIRS, toPosix, type Scope } from './walk';

/** What the watcher tells (ContextService implements it). */
export interface WatchTarget {
  invalidate(abs: string): void;
  setWatched(on: boolean): void;
}

/**
 * `ignored` for chokidar: true for what walkFiles(root) would never list. Called without `stats` first (then only
 * rules that do not depend on the entry being a folder apply) and with them when chokidar has them.
 * Each folder's .gitignore is read once and cached; forget(dir) drops it when that .gitignore changes.
 */
export function walkIgnoreMatcher(root: string): { ignored: (abs: string, stats?: Stats) => boolean; forget(dirAbs: string): void } {
  const gitignores = new Map<string, Scope | null>();
  const scopeOf = (dirRel: string): Scope | null => {
    let scope = gitignores.get(dirRel);
    if (scope === undefined) {
      try {
        scope = { dirRel, ig: ignore().add(readFileSync(join(root, dirRel, '.gitignore'), 'utf8')) };
      } catch {
        scope = null; // no (readable) .gitignore in this folder
      }
      gitignores.set(dirRel, scope);
    }
    return scope;
  };
  const ignored = (abs: string, stats?: Stats): boolean => {
    if (abs === root || !isInside(root, abs)) return false;
    const rel = toPosix(relative(root, abs));
    const parts = rel.split('/');
    const name = parts[parts.length - 1]!;
    if (parts.slice(0, -1).some((p) => SKIP_DIRS.has(p))) return true;
    // an edit's lock and staged temp come and go beside the file: never an event (asked before chokidar has stats)
    if (isOwnTransientName(name)) return true;
    const isDir = stats?.isDirectory();
    if (isDir === true && SKIP_DIRS.has(name)) return true;
    if (isDir === false && isSkippedFileName(name)) return true;
    const scopes: Scope[] = [];
    for (let depth = 0; depth < parts.length; depth++) {
      const scope = scopeOf(parts.slice(0, depth).join('/'));
      if (scope) scopes.push(scope);
    }
    return ignoredBy(scopes, rel, isDir === true);
  };
  return {
    ignored,
    forget: (dirAbs) => gitignores.delete(dirAbs === root ? '' : toPosix(relative(root, dirAbs))),
  };
}

export class RootWatcher {
  private readonly watchers: FSWatcher[] = [];
  private failed = false;
  private closed = false;
  private isReady = false;
  private stop!: () => void;
  /** Settles when watching failed or was closed (a closed chokidar watcher never emits `ready`). */
  private readonly stopped = new Promise<void>((resolve) => (this.stop = resolve));
  /** Resolves true once every root is watched, false when watching failed or was closed first. */
  readonly ready: Promise<boolean>;

  /**
   * Starts watching and returns at once. On any error (a root that is not a folder, ENOSPC: out of inotify
   * watches) the target goes back to mtime checks for good and the failure is logged once.
   */
  constructor(
    readonly roots: readonly string[],
    private readonly target: WatchTarget,
    private readonly log: (message: string) => void = () => {},
  ) {
    this.ready = this.start();
  }

  /** True while the target trusts this watcher (after `ready`, before an error or close). */
  get watching(): boolean {
    return this.isReady && !this.failed && !this.closed;
  }

  /** Folders and files under watch (each is one inotify watch on Linux). */
  watchedCount(): number {
    let n = 0;
    for (const w of this.watchers) for (const names of Object.values(w.getWatched())) n += names.length;
    return n;
  }

  async close(): Promise<void> {
    this.closed = true;
    this.stop();
    const all = this.watchers.splice(0);
    await Promise.all(all.map((w) => w.close()));
    this.target.setWatched(false);
  }

  private async start(): Promise<boolean> {
    for (const root of this.roots) {
      const st = await fsp.stat(root).catch((e: unknown) => (e instanceof Error ? e : new Error(String(e))));
      if (st instanceof Error || !st.isDirectory()) {
        this.fail(st instanceof Error ? st : Object.assign(new Error(`${root} is not a folder`), { code: 'ENOTDIR' }));
        return false;
      }
    }
    if (this.closed) return false;
    const readies = this.roots.map((root) => {
      const rules = walkIgnoreMatcher(root);
      const w = watch(root, { ignored: rules.ignored, ignoreInitial: true, persistent: false, followSymlinks: false });
      this.watchers.push(w);
      const changed = (abs: string) => {
        if (basename(abs) === '.gitignore') rules.forget(dirname(abs));
        this.target.invalidate(abs);
      };
      for (const event of ['add', 'change', 'unlink', 'addDir', 'unlinkDir'] as const) w.on(event, changed);
      w.on('error', (e) => this.fail(e));
      return new Promise<void>((resolve) => w.once('ready', () => resolve()));
    });
    await Promise.race([Promise.all(readies), this.stopped]);
    if (this.failed || this.closed) return false;
    // A change during the scan may have landed in a folder not yet watched: the next refresh walks once and compares
    // mtimes (a reported .gitignore change does that; reporting the root would make it re-read every file).
    for (const root of this.roots) this.target.invalidate(join(root, '.gitignore'));
    this.isReady = true;
    this.target.setWatched(true);
    return true;
  }

  private fail(e: unknown): void {
    if (this.failed || this.closed) return;
    this.failed = true;
    this.stop();
    this.target.setWatched(false);
    for (const w of this.watchers.splice(0)) void w.close();
    const code = (e as NodeJS.ErrnoException)?.code;
    this.log(`file watching is off (${code ?? (e instanceof Error ? e.message : String(e))}); overviews check file times instead`);
  }
}
