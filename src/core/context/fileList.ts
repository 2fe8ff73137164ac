/**
 * The repository map's file list: which regular files the walk lists under the root, with the size and mtime
 * last seen, and what changed since the last refresh. Its version moves when the set of files does (a file
 * added or removed, the walk truncated or not any more); an edit inside a file is the records' business.
 */
import { dirname, relative, sep } from 'node:path';
import { isInside } from '../files/ports';
import type { FileWalker, WalkedFile } from './mapPorts';
import { Slices, STEP_ITEMS } from '../util/slices';
import { SeenTable } from './seenTable';

export interface ListChanges {
  /** Files to (re-)read: new, stat changed, or invalidated. */
  toRead: WalkedFile[];
  /** Files that left the list. */
  removed: string[];
  /** True when this refresh walked the folder (false: only the watcher-reported paths were looked at). */
  walked: boolean;
}

export class FileList {
  /** Bumped whenever the set of listed files (or the truncation) changes. */
  version = 0;
  /**
   * Set while a file watcher reports every change under the root through invalidate(). Then a warm refresh
   * looks only at the invalidated paths; without a watcher (or after it failed) every refresh walks the folder
   * and compares mtimes and sizes. The first refresh always walks.
   */
  watched = false;
  /** The walk stopped at its file limit: the list is not the whole folder. */
  truncated = false;
  private readonly files = new SeenTable();
  private readonly invalidated = new Set<string>();
  /** A path the watcher could not place (a new folder, a changed .gitignore): the next refresh walks. */
  private needsWalk = false;
  /** Walks so far (each listed file is marked with the number of the last walk that saw it). */
  private walks = 0;

  constructor(
    readonly root: string,
    private readonly walker: FileWalker,
  ) {}

  get size(): number {
    return this.files.size;
  }

  /** `absPath` (a file, or a folder and everything under it) changed: re-read it on the next refresh. */
  invalidate(absPath: string): void {
    this.invalidated.add(absPath);
  }

  /** Set `watched` to false when the watcher stops; the next refresh walks everything once to catch up. */
  setWatched(on: boolean): void {
    if (this.watched && !on) this.needsWalk = true;
    this.watched = on;
  }

  /** A listed file turned out not to be a regular file inside the root when read: out of the list. */
  drop(rel: string): void {
    if (this.files.delete(rel)) this.version++;
  }

  /** What changed since the last call; the list itself is updated (stats recorded, removed files gone). */
  async changes(): Promise<ListChanges> {
    const fromWatcher = this.changedFromInvalidations();
    let result: ListChanges;
    if (fromWatcher) {
      result = { ...fromWatcher, walked: false };
    } else {
      // No watcher (or it could not place a change): walk and compare mtimes, with synchronous stat calls in slices
      // that yield (an awaited stat per file cost several times the call; one synchronous walk held the loop 8.6 s).
      // Each listed file is marked with this walk's number (those left unmarked are gone: no Set of 200,000 paths);
      // the walk lists only the changed and the new.
      const mark = ++this.walks;
      const { files: toRead, truncated } = await this.walker.walkSliced(this.root, (rel, abs, size, mtimeMs) => {
        const slot = this.files.slot(rel);
        if (slot === undefined) return true;
        this.files.mark(slot, mark);
        return !this.files.same(slot, mtimeMs, size) || this.isInvalidated(abs);
      });
      this.needsWalk = false;
      if (truncated !== this.truncated) this.version++;
      this.truncated = truncated;
      const slices = new Slices();
      const removed: string[] = [];
      let k = 0;
      for (const [rel, slot] of this.files.entries()) {
        if (this.files.walkOf(slot) !== mark) removed.push(rel);
        const due = ++k % STEP_ITEMS === 0 && slices.tick();
        if (due) await due;
      }
      result = { toRead, removed, walked: true };
    }
    this.invalidated.clear();
    const slices = new Slices();
    for (const rel of result.removed) this.files.delete(rel);
    for (const [i, f] of result.toRead.entries()) {
      const slot = this.files.slot(f.rel);
      if (slot !== undefined) {
        this.files.set(slot, f.mtimeMs, f.size);
      } else {
        this.version++;
        this.files.add(f.rel, f.mtimeMs, f.size, this.walks);
      }
      const due = i % STEP_ITEMS === 0 && slices.tick();
      if (due) await due;
    }
    if (result.removed.length) this.version++;
    return result;
  }

  private isInvalidated(abs: string): boolean {
    if (this.invalidated.size === 0) return false;
    // the file or a folder above it, walked up by dirname (separator-correct, O(depth) set look-ups per file: the
    // walk asks this for every file; isInside against each invalidated path ran 30,000 pairs in 120-180 ms here)
    for (let p = abs; ; ) {
      if (this.invalidated.has(p)) return true;
      const up = dirname(p);
      if (p === this.root || up === p) return false;
      p = up;
    }
  }

  /**
   * Watched warm refresh: only the invalidated paths are looked at. A known file is re-read (its stat may not
   * show the change: two same-length writes within one timestamp tick); a new file is added when the walk would
   * list it (ignore rules checked for its folders only); a vanished path (an editor's temp file) is nothing to
   * do. A folder event, a .gitignore change or a truncated list makes it walk instead.
   */
  private changedFromInvalidations(): Omit<ListChanges, 'walked'> | undefined {
    if (!this.watched || this.needsWalk || !this.files.size || this.truncated) return undefined;
    const toRead: WalkedFile[] = [];
    const removed: string[] = [];
    for (const abs of this.invalidated) {
      if (abs === this.root) return undefined;
      if (!isInside(this.root, abs)) continue;
      const rel = relative(this.root, abs).split(sep).join('/');
      const parts = rel.split('/');
      if (parts.some((p) => this.walker.skipDirs.has(p))) continue;
      if (parts[parts.length - 1] === '.gitignore') return undefined;
      const st = this.walker.lstat(abs);
      const known = this.files.has(rel);
      if (st?.isDirectory()) return undefined;
      if (!st?.isFile()) {
        // gone, or no longer a regular file (a link, a FIFO): not in the map
        if (known) removed.push(rel);
        else if (this.hasFilesUnder(rel)) return undefined; // a folder went away (or became a link)
        continue;
      }
      if (known || this.walker.isWalkedPath(this.root, rel)) toRead.push({ abs, rel, size: st.size, mtimeMs: st.mtimeMs });
    }
    return { toRead, removed };
  }

  private hasFilesUnder(rel: string): boolean {
    const prefix = rel + '/';
    for (const k of this.files.keys()) if (k.startsWith(prefix)) return true;
    return false;
  }
}
