/**
 * Walks a folder the way a repository map should see it: honours `.gitignore` files (nested ones too,
 * via the `ignore` package), skips VCS/dependency/build folders, lockfiles and binary extensions.
 * Lists regular files only and never follows a link (lstat): a link to a file or folder outside the root, a
 * FIFO or a device is not part of the map, and nothing that is not a regular file is opened.
 */
import { readdirSync, lstatSync, type Dirent } from 'node:fs';
import { join, relative, sep } from 'node:path';
import ignore, { type Ignore } from 'ignore';
import { isOwnTransientName } from '../../files/ownNames';
import { readRegularFileSync } from '../../files/regularFile';
import type { FileWalker, WalkedFile, WalkFilter } from '../mapPorts';
import { lstatOrUndefined } from './readWalked';
import { Slices } from '../../util/slices';
import { flatCopy } from '../nameCounts';

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

/**
 * All candidate text files under `root`, in a stable order, with synchronous readdir and lstat calls in slices that
 * yield to the event loop (util/slices.ts): an awaited stat per file cost several times the call, and one
 * synchronous walk of 200,000 files held the loop 8.6 s. `keep`: only the files it returns true for are listed
 * (a warm walk keeps the changed ones: 200,000 records of unchanged files were garbage at once); the limit still
 * counts every file.
 */
export async function walkFilesSliced(root: string, opts: { maxFiles?: number; keep?: WalkFilter } = {}): Promise<{ files: WalkedFile[]; truncated: boolean }> {
  const maxFiles = opts.maxFiles ?? 200_000;
  const keep = opts.keep;
  const files: WalkedFile[] = [];
  let listed = 0;
  let truncated = false;
  const slices = new Slices();
  const visit = async (dirAbs: string, scopes: Scope[]): Promise<void> => {
    const dir = listDir(root, dirAbs, scopes);
    if (!dir) return;
    for (const [k, f] of dir.found.entries()) {
      if (listed >= maxFiles) {
        truncated = true;
        break;
      }
      const st = lstatSync(f.abs, { throwIfNoEntry: false }); // undefined: vanished between readdir and stat
      if (st?.isFile()) {
        listed++;
        // the path a record keeps as one flat string: `${dir}/${name}` is a pair of strings, ~90 bytes a file
        if (!keep || keep(f.rel, f.abs, st.size, st.mtimeMs)) files.push({ abs: f.abs, rel: flatCopy(f.rel), size: st.size, mtimeMs: st.mtimeMs });
      }
      const due = k % 64 === 0 && slices.tick();
      if (due) await due;
    }
    for (const d of dir.subdirs) {
      const due = slices.tick();
      if (due) await due;
      await visit(d, dir.here);
    }
  };
  await visit(root, []);
  return { files, truncated };
}

/** One folder's entries to walk (its .gitignore read first); undefined when it cannot be listed. */
function listDir(root: string, dirAbs: string, scopes: Scope[]): { subdirs: string[]; found: { abs: string; rel: string }[]; here: Scope[] } | undefined {
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
}

/**
 * Would walkFilesSliced(root) list `rel`? Checks the skip lists and the .gitignore files of its folders only, so that a
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
  walkSliced: (root, keep) => walkFilesSliced(root, { keep }),
  isWalkedPath,
  lstat: lstatOrUndefined,
};
