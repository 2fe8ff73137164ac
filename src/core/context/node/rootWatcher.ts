/**
 * Watches the workspace roots for the context service (the stdio CLI; VS Code uses its own watcher) and reports
 * every changed path, so a warm overview re-reads only those. It skips what the overview walker skips — the
 * default skip lists and `.gitignore` rules of walk.ts — so `node_modules` and `.git` cost no inotify watches.
 *
 * One fs.watch per walked folder, none per file: a folder's watch reports every entry in it that is created, changed,
 * renamed or deleted, by name (inotify, FSEvents and ReadDirectoryChangesW all do). chokidar watched each file as
 * well (20,203 watches for 20,000 files) and its scan stat'ed every file, holding the event loop 460-630 ms at a
 * time; this scan reads folders only (readdir's entry types say which are folders), in slices that yield. No
 * native package: the .vsix that bundles the CLI stays one platform-independent package. The service trusts the
 * watcher only from `ready` on, after one catch-up walk.
 */
import { promises as fsp, watch, type Dirent, type FSWatcher, type Stats } from 'node:fs';
import { basename, join, relative, sep } from 'node:path';
import ignore from 'ignore';
import { isInside } from '../../files/ports';
import { isOwnTransientName } from '../../files/ownNames';
import { readRegularFileSync } from '../../files/regularFile';
import { ignoredBy, isSkippedFileName, SKIP_DIRS, toPosix, type Scope } from './walk';
import { Slices } from '../../util/slices';

/** What the watcher tells (ContextService implements it). */
export interface WatchTarget {
  invalidate(abs: string): void;
  setWatched(on: boolean): void;
}

/** What the matcher needs of a stat (fs.Stats and a Dirent have it). */
export interface EntryKind {
  isDirectory(): boolean;
}

const FOLDER: EntryKind = { isDirectory: () => true };

/**
 * True for what walkFilesSliced(root) would never list. Without `stats` only the rules that do not depend on the entry
 * being a folder apply (what is ignored so is ignored as a folder too: a gitignore rule is never for files only).
 * Each folder's .gitignore is read once and cached; forget(dir) drops it when that .gitignore changes.
 */
export function walkIgnoreMatcher(root: string): { ignored: (abs: string, stats?: EntryKind) => boolean; forget(dirAbs: string): void } {
  const gitignores = new Map<string, Scope | null>();
  const scopeOf = (dirRel: string): Scope | null => {
    let scope = gitignores.get(dirRel);
    if (scope === undefined) {
      try {
        // a FIFO or link named .gitignore is never opened (readRegularFileSync): no rules from it
        scope = { dirRel, ig: ignore().add(readRegularFileSync(join(root, dirRel, '.gitignore')).toString('utf8')) };
      } catch {
        scope = null; // no (readable) .gitignore in this folder
      }
      gitignores.set(dirRel, scope);
    }
    return scope;
  };
  const ignored = (abs: string, stats?: EntryKind): boolean => {
    if (abs === root || !isInside(root, abs)) return false;
    const rel = toPosix(relative(root, abs));
    const parts = rel.split('/');
    const name = parts[parts.length - 1]!;
    if (parts.slice(0, -1).some((p) => SKIP_DIRS.has(p))) return true;
    // an edit's lock and staged temp come and go beside the file: never an event (asked before any stat)
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
  /** Each watched folder's fs.watch handle and the folder it was opened on (a folder re-made at the path is another), by absolute path. */
  private readonly folders = new Map<string, { w: FSWatcher; dev: number; ino: number }>();
  private failed = false;
  private closed = false;
  private isReady = false;
  private stop!: () => void;
  /** Settles when watching failed or was closed (the scan may still be running). */
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

  /** Folders under watch (each is one inotify watch on Linux). */
  watchedCount(): number {
    return this.folders.size;
  }

  /** The watched folders, absolute. */
  watchedFolders(): string[] {
    return [...this.folders.keys()];
  }

  async close(): Promise<void> {
    this.closed = true;
    this.stop();
    this.unwatchAll();
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
    const scans = this.roots.map((root) => this.watchTree(root, walkIgnoreMatcher(root), root));
    await Promise.race([Promise.all(scans), this.stopped]);
    if (this.failed || this.closed) return false;
    // A change during the scan may have landed in a folder not yet watched: the next refresh walks once and compares
    // mtimes (a reported .gitignore change does that; reporting the root would make it re-read every file).
    for (const root of this.roots) this.target.invalidate(join(root, '.gitignore'));
    this.isReady = true;
    this.target.setWatched(true);
    return true;
  }

  /** Watches `top` and every folder under it that the walk enters; each folder is watched before it is listed. */
  private async watchTree(root: string, rules: Rules, top: string): Promise<void> {
    const slices = new Slices();
    const stack = [top];
    while (stack.length && !this.failed && !this.closed) {
      const dir = stack.pop()!;
      // looked at right before its watch: a folder swapped for a link since its parent was listed is not followed
      const st = await fsp.lstat(dir).catch(() => undefined);
      // and its rules asked again: a .gitignore changed since its parent was listed (written in two steps, it was
      // read empty first: that tree's walk went on to watch a folder the full rules had just unwatched)
      if (dir !== top && rules.ignored(dir, FOLDER)) continue;
      if (!st?.isDirectory() || !this.watchFolder(root, rules, dir, st)) continue;
      let entries: Dirent[];
      try {
        entries = await fsp.readdir(dir, { withFileTypes: true });
      } catch {
        continue; // gone or unreadable meanwhile: its parent's watch reports it
      }
      // a link to a folder is no Dirent folder: never followed, as the walk does not follow it
      for (const e of entries) if (e.isDirectory() && !rules.ignored(join(dir, e.name), FOLDER)) stack.push(join(dir, e.name));
      const due = slices.tick();
      if (due) await due;
    }
  }

  /** One folder's watch; false when the folder cannot be watched (gone, not a folder, no access). */
  private watchFolder(root: string, rules: Rules, dir: string, st: Stats): boolean {
    const had = this.folders.get(dir);
    if (had && had.dev === st.dev && had.ino === st.ino) return true;
    // deleted and made again under the same name: the old watch went with the old folder
    if (had) this.unwatchUnder(dir);
    let w: FSWatcher;
    try {
      w = watch(dir, { persistent: false }, (event, name) => this.onEvent(root, rules, dir, event, name));
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && code !== 'ENOTDIR' && code !== 'EACCES' && code !== 'EPERM') this.fail(e);
      return false;
    }
    // a watched folder deleted (Windows reports EPERM): its parent's watch reports the deletion. Any other error on a
    // folder still there (or on a root) means changes would go unseen: watching is off, the overview checks times.
    w.on('error', (e) => {
      void fsp.lstat(dir).then(
        (now) => (this.roots.includes(dir) || now.isDirectory() ? this.fail(e) : this.unwatchUnder(dir)),
        () => (this.roots.includes(dir) ? this.fail(e) : this.unwatchUnder(dir)),
      );
    });
    this.folders.set(dir, { w, dev: st.dev, ino: st.ino });
    return true;
  }

  /**
   * An entry of `dir` changed. It is reported unless the walk would not list it; a new folder is watched (with what
   * is under it) and reported again once watched, a folder gone takes its watches with it.
   */
  private onEvent(root: string, rules: Rules, dir: string, event: string, name: string | Buffer | null): void {
    if (this.closed || this.failed) return;
    if (!name) {
      this.target.invalidate(dir); // the system did not say which entry: the folder (the next refresh walks)
      return;
    }
    const abs = join(dir, name.toString());
    if (rules.ignored(abs)) return;
    void fsp.lstat(abs).then(
      (st) => {
        if (this.closed || this.failed || rules.ignored(abs, st)) return;
        if (basename(abs) === '.gitignore') this.rulesChanged(root, rules, dir);
        this.target.invalidate(abs);
        if (!st.isDirectory()) return;
        const had = this.folders.get(abs);
        // 'rename': the name was made, removed or moved in, so any watch under it may be on a folder gone by now, even
        // one with the same inode number (ext4 gives a folder made right after a delete the freed number): rewatched
        const replaced = event === 'rename';
        if (replaced || !had || had.dev !== st.dev || had.ino !== st.ino) {
          if (replaced) this.unwatchUnder(abs);
          void this.watchTree(root, rules, abs).then(() => this.closed || this.target.invalidate(abs));
        }
      },
      () => {
        if (this.closed || this.failed) return;
        if (basename(abs) === '.gitignore') this.rulesChanged(root, rules, dir);
        this.unwatchUnder(abs);
        this.target.invalidate(abs);
      },
    );
  }

  /**
   * `dir`'s .gitignore changed: its rules are read again, folders under it that are ignored now lose their watches,
   * and folders no longer ignored get theirs (watchTree skips what it watches already).
   */
  private rulesChanged(root: string, rules: Rules, dir: string): void {
    rules.forget(dir);
    const prefix = dir + sep;
    for (const watched of [...this.folders.keys()]) {
      if (watched.startsWith(prefix) && this.folders.has(watched) && rules.ignored(watched, FOLDER)) this.unwatchUnder(watched);
    }
    void this.watchTree(root, rules, dir);
  }

  private unwatchUnder(abs: string): void {
    const prefix = abs + sep;
    for (const [dir, { w }] of this.folders) {
      if (dir !== abs && !dir.startsWith(prefix)) continue;
      w.close();
      this.folders.delete(dir);
    }
  }

  private unwatchAll(): void {
    for (const { w } of this.folders.values()) w.close();
    this.folders.clear();
  }

  private fail(e: unknown): void {
    if (this.failed || this.closed) return;
    this.failed = true;
    this.stop();
    this.target.setWatched(false);
    this.unwatchAll();
    const code = (e as NodeJS.ErrnoException)?.code;
    this.log(`file watching is off (${code ?? (e instanceof Error ? e.message : String(e))}); overviews check file times instead`);
  }
}

type Rules = ReturnType<typeof walkIgnoreMatcher>;
