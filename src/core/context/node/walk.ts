/**
 * Walks a folder the way a repository map should see it: honours `.gitignore` files (nested ones too,
 * via the `ignore` package), skips VCS/dependency/build folders, lockfiles and binary extensions.
 * Lists regular files only and never follows a link (lstat): a link to a file or folder outside the root, a
 * FIFO or a device is not part of the map, and nothing that is not a regular file is opened.
 */
import { promises as fsp, readdirSync, lstatSync, type Dirent } from 'node:fs';
import { join, relative, sep } from 'node:path';
import ignore, { type Ignore } from 'ignore';
import { isOwnTransientName } from '../../files/ownNames';
import { readRegularFile, readRegularFileSync } from '../../files/regularFile';
import type { FileWalker, WalkedFile } from '../mapPorts';
import { lstatOrUndefined } from './readWalked';
import { Slices } from '../../util/slices';

export const SKIP_DIRS = new Set([
  '.git', '.hg', '.svn', 'node_modules', 'dist', '__pycache__', '.venv', 'venv', '.tox', '.mypy_cache',
  '.pytest_cache', '.cache', '.next', '.nuxt', 'coverage', '.idea', '.vscode-test', '.gradle', 'bower_components',
]);

export const SKIP_FILES = new Set([
  'package-lock.json', 'yarn.lock', 'pnpm-lock.yaml', 'Cargo.lock', 'poetry.lock', 'Gemfile.lock', 'composer.lock',
  'go.sum', '.DS_Store',
]);

const BINARY_EXT = new Set(
  ('png jpg jpeg gif bmp ico icns webp avif tif tiff psd pdf zip gz tgz bz2 xz 7z rar zst jar war ear class so dylib dll exe ' +
    'bin o a lib obj wasm woff woff2 ttf otf eot mp3 mp4 m4a mov avi mkv webm ogg wav flac sqlite sqlite3 db pyc pyo ' +
    'node map vsix iso dmg img npy npz pt pth onnx parquet').split(' '),
);

/**
 * A file the map never lists, by its name alone: lockfiles, binaries, and the lock and staged temp an edit keeps
 * beside its target for a moment (files/ownNames.ts), which would otherwise show up in an overview taken meanwhile.
 */
export function isSkippedFileName(name: string): boolean {
  return SKIP_FILES.has(name) || isBinaryName(name) || isOwnTransientName(name);
}

export function isBinaryName(name: string): boolean {
  const dot = name.lastIndexOf('.');
  if (dot < 0) return false;
  const ext = name.slice(dot + 1).toLowerCase();
  return BINARY_EXT.has(ext) || name.endsWith('.min.js') || name.endsWith('.min.css');
}

export { looksBinary } from '../../text/binary';

/** The rules of one folder's .gitignore (exported for the file watcher, which applies the same rules). */
export interface Scope {
  dirRel: string; // '' for the root
  ig: Ignore;
}

export function toPosix(p: string): string {
  return sep === '/' ? p : p.split(sep).join('/');
}

/** Is `rel` ignored by the .gitignore scopes of its folders (outermost first)? The last matching rule wins. */
export function ignoredBy(scopes: Scope[], rel: string, isDir: boolean): boolean {
  let ignored = false;
  for (const s of scopes) {
    const sub = s.dirRel ? rel.slice(s.dirRel.length + 1) : rel;
    const r = s.ig.test(isDir ? sub + '/' : sub);
    if (r.ignored) ignored = true;
    else if (r.unignored) ignored = false;
  }
  return ignored;
}

/**
 * One folder's entries as the walk takes them, in name order (so results do not depend on the file system's):
 * the subfolders to descend into and the files to list, without the skipped and the ignored.
 */
function splitEntries(entries: Dirent[], dirAbs: string, dirRel: string, scopes: Scope[]): { subdirs: string[]; found: { abs: string; rel: string }[] } {
  const subdirs: string[] = [];
  const found: { abs: string; rel: string }[] = [];
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  // join(dirAbs, name) for every file, joined once: a readdir name is never '.', '..' or a path with a separator
  const prefix = join(dirAbs, 'x').slice(0, -1);
  for (const e of entries) {
    const rel = dirRel ? `${dirRel}/${e.name}` : e.name;
    if (e.isDirectory()) {
      if (!SKIP_DIRS.has(e.name) && !ignoredBy(scopes, rel, true)) subdirs.push(join(dirAbs, e.name));
    } else if (e.isFile() && !isSkippedFileName(e.name) && !ignoredBy(scopes, rel, false)) {
      found.push({ abs: prefix + e.name, rel });
    }
  }
  return { subdirs, found };
}

/** All candidate text files under `root`, in a stable order. */
export async function walkFiles(root: string, opts: { maxFiles?: number } = {}): Promise<{ files: WalkedFile[]; truncated: boolean }> {
  const files: WalkedFile[] = [];
  const maxFiles = opts.maxFiles ?? 200_000;
  let truncated = false;

  const visit = async (dirAbs: string, scopes: Scope[]): Promise<void> => {
    let entries: Dirent[];
    try {
      entries = await fsp.readdir(dirAbs, { withFileTypes: true });
    } catch {
      return; // unreadable folder: leave it out of the map
    }
    const dirRel = toPosix(relative(root, dirAbs));
    let here = scopes;
    if (entries.some((e) => e.name === '.gitignore' && e.isFile())) {
      try {
        const text = (await readRegularFile(join(dirAbs, '.gitignore'))).toString('utf8');
        here = [...scopes, { dirRel, ig: ignore().add(text) }];
      } catch {
        // unreadable .gitignore: ignore it
      }
    }
    const { subdirs, found } = splitEntries(entries, dirAbs, dirRel, here);
    const stats: Promise<void>[] = [];
    for (const f of found) {
      if (files.length >= maxFiles) {
        truncated = true;
        continue;
      }
      const slot = files.length;
      files.push({ ...f, size: 0, mtimeMs: 0 });
      stats.push(
        fsp.lstat(f.abs).then(
          (st) => {
            files[slot]!.size = st.isFile() ? st.size : -1; // replaced by a link or a FIFO since the readdir
            files[slot]!.mtimeMs = st.mtimeMs;
          },
          () => {
            files[slot]!.size = -1; // vanished between readdir and stat
          },
        ),
      );
    }
    await Promise.all(stats);
    for (const d of subdirs) await visit(d, here);
  };

  await visit(root, []);
  return { files: files.filter((f) => f.size >= 0), truncated };
}

/**
 * Synchronous twin of walkFiles: for warm refreshes of big folders, thousands of awaited stat() calls cost
 * far more than the stat system calls themselves (a 7,600-file walk: ~300 ms async vs ~50 ms sync).
 */
export function walkFilesSync(root: string, opts: { maxFiles?: number } = {}): { files: WalkedFile[]; truncated: boolean } {
  const walk = syncWalker(root, opts.maxFiles);
  const visit = (dirAbs: string, scopes: Scope[]): void => {
    const dir = walk.listDir(dirAbs, scopes);
    if (!dir) return;
    for (const f of dir.found) walk.stat(f);
    for (const d of dir.subdirs) visit(d, dir.here);
  };
  visit(root, []);
  return { files: walk.files, truncated: walk.truncated };
}

/**
 * walkFilesSync in slices that yield to the event loop (util/slices.ts): the speed of synchronous stat calls (a
 * warm walk of 200,000 files held the loop 8.6 s in one block) without holding the loop past a slice.
 */
export async function walkFilesSliced(root: string, opts: { maxFiles?: number } = {}): Promise<{ files: WalkedFile[]; truncated: boolean }> {
  const walk = syncWalker(root, opts.maxFiles);
  const slices = new Slices();
  const visit = async (dirAbs: string, scopes: Scope[]): Promise<void> => {
    const dir = walk.listDir(dirAbs, scopes);
    if (!dir) return;
    for (const f of dir.found) {
      walk.stat(f);
      const due = slices.tick();
      if (due) await due;
    }
    for (const d of dir.subdirs) {
      const due = slices.tick();
      if (due) await due;
      await visit(d, dir.here);
    }
  };
  await visit(root, []);
  return { files: walk.files, truncated: walk.truncated };
}

/** The synchronous steps both walkFilesSync and walkFilesSliced take: list a folder (its .gitignore), stat a file. */
function syncWalker(root: string, maxFiles = 200_000) {
  const w = {
    files: [] as WalkedFile[],
    truncated: false,
    listDir(dirAbs: string, scopes: Scope[]): { subdirs: string[]; found: { abs: string; rel: string }[]; here: Scope[] } | undefined {
      let entries: Dirent[];
      try {
        entries = readdirSync(dirAbs, { withFileTypes: true });
      } catch {
        return undefined;
      }
      const dirRel = toPosix(relative(root, dirAbs));
      let here = scopes;
      if (entries.some((e) => e.name === '.gitignore' && e.isFile())) {
        try {
          here = [...scopes, { dirRel, ig: ignore().add(readRegularFileSync(join(dirAbs, '.gitignore')).toString('utf8')) }];
        } catch {
          // unreadable .gitignore: ignore it
        }
      }
      return { ...splitEntries(entries, dirAbs, dirRel, here), here };
    },
    stat(f: { abs: string; rel: string }): void {
      if (w.files.length >= maxFiles) {
        w.truncated = true;
        return;
      }
      try {
        const st = lstatSync(f.abs);
        if (st.isFile()) w.files.push({ abs: f.abs, rel: f.rel, size: st.size, mtimeMs: st.mtimeMs });
      } catch {
        // vanished between readdir and stat
      }
    },
  };
  return w;
}

/**
 * Would walkFiles(root) list `rel`? Checks the skip lists and the .gitignore files of its folders only, so that a
 * watcher-reported new file can join the index without a walk.
 */
export function isWalkedPath(root: string, rel: string): boolean {
  const parts = rel.split('/');
  const name = parts[parts.length - 1]!;
  if (isSkippedFileName(name)) return false;
  if (parts.slice(0, -1).some((p) => SKIP_DIRS.has(p))) return false;
  const scopes: Scope[] = [];
  for (let depth = 0; depth < parts.length; depth++) {
    const dirRel = parts.slice(0, depth).join('/');
    if (depth > 0 && ignoredBy(scopes, dirRel, true)) return false;
    try {
      scopes.push({ dirRel, ig: ignore().add(readRegularFileSync(join(root, dirRel, '.gitignore')).toString('utf8')) });
    } catch {
      // no .gitignore in this folder
    }
  }
  return !ignoredBy(scopes, rel, false);
}

/** The FileWalker port on disk, as the ContextService gives it to every repository map. */
export const diskWalker: FileWalker = {
  skipDirs: SKIP_DIRS,
  walk: (root) => walkFiles(root),
  walkSync: (root) => walkFilesSync(root),
  walkSliced: (root) => walkFilesSliced(root),
  isWalkedPath,
  lstat: lstatOrUndefined,
};
