/**
 * Runs a CommonJS bundle through V8's code cache. MCP clients start one CLI process per session, and
 * parsing + compiling the 0.7 MB bundle was the largest single cost of a start (~23 ms of ~100 ms in a
 * CPU profile of spawn → first reply). The first start compiles as usual and saves V8's compiled code
 * once the process has served its first requests (so the functions that ran are in it too); later starts
 * hand that back to V8 and skip the work. Node >= 22.1 has this built in (module.enableCompileCache);
 * this works on Node 20 as well, and falls back to a plain require() whenever anything is off.
 */
import { isAscii } from 'node:buffer';
import * as fs from 'node:fs';
import { createRequire, Module } from 'node:module';
import * as path from 'node:path';
import * as vm from 'node:vm';
import { READ_FLAGS } from './regularFile';

export interface CodeCacheOptions {
  /** The bundle to run (CommonJS, no shebang). */
  file: string;
  /** Private cache folder (created 0700); one file per bundle build and Node version. */
  cacheDir: string;
  /** Save this long after the start (default 1500 ms), or at exit if that comes first. */
  saveAfterMs?: number;
  /** Part of the cache file's name: starts that differ in it keep a cache each (see nodeOptionsKey). */
  variant?: string;
}

/** Where the running bundle finds its loader's refresh (the loader and the bundle are two bundles). */
const REFRESH_KEY = Symbol.for('better-edit-tools.code-cache-refresh');
/** A cache is saved again only when it would grow by more than this share of its size. */
const REFRESH_GROWTH = 1 / 32;
/** Where a module that changes a V8 flag at run time puts how to undo it while a cache is read or made (two bundles share it). */
const DEFAULT_FLAGS_KEY = Symbol.for('better-edit-tools.code-cache-default-flags');

/** Runs `fn` with V8's flags as a fresh process has them, and returns what it returned. */
export type AtDefaultFlags = <T>(fn: () => T) => T;

/**
 * V8 stamps a code cache with a hash of its flags and rejects it in a process whose flags differ. A process that
 * changes a flag after its start (the CLI's young-generation cap, src/cli/youngGeneration.ts) saved caches that no
 * later start, with V8's defaults, accepted: each compiled the whole bundle again (~35 ms on Node 24) and saved
 * another such cache. Such a module registers here how to put its flags back while a cache is read or made (a vendor
 * file loads after the flag changed); undefined unregisters.
 */
export function registerDefaultFlags(atDefaults: AtDefaultFlags | undefined): void {
  (globalThis as Record<symbol, unknown>)[DEFAULT_FLAGS_KEY] = atDefaults;
}

/** Runs `fn` with V8's default flags, as registered (none registered: as it is). */
function atDefaultFlags<T>(fn: () => T): T {
  const atDefaults = (globalThis as Record<symbol, unknown>)[DEFAULT_FLAGS_KEY] as AtDefaultFlags | undefined;
  return atDefaults ? atDefaults(fn) : fn();
}

/**
 * Saves the code cache of each file run through runWithCodeCache (the bundle, its vendor files) again if it would now
 * hold notably more compiled code than the one it was
 * loaded with or last saved (createCachedData: ~10-30 ms of the main thread, so for an idle moment). A cache saved
 * 1.5 s into a first start (all a client leaves that ends its server with a signal, before any exit handler) held
 * no read or edit path: every later start compiled them again in its first read and first edit. False: nothing
 * saved (not grown, or the bundle was not loaded through runWithCodeCache).
 */
export function refreshCodeCache(): boolean {
  const refresh = (globalThis as Record<symbol, unknown>)[REFRESH_KEY];
  // one per file loaded through runWithCodeCache (the bundle, its vendor files); a loader of an older build left one function
  const savers = typeof refresh === 'function' ? [refresh] : Array.isArray(refresh) ? refresh : [];
  let saved = false;
  for (const save of savers as (() => boolean)[]) saved = save() || saved;
  return saved;
}

/**
 * Where the CLI's loader puts how its bundle loads a vendor file (esbuild.mjs vendor-zod: dist/vendor/zod.js) through
 * the same code cache folder: `(file) => exports`. The bundle falls back to require() when it is absent.
 */
export const LOAD_VENDOR_KEY = Symbol.for('better-edit-tools.load-vendor');

/** The cache file of `file` for this Node: a rebuilt bundle or another Node never reads a stale cache. */
export function cacheFileFor(file: string, cacheDir: string, stat: fs.Stats = fs.statSync(file), variant = ''): string {
  const stem = path.basename(file, '.js');
  const tail = variant ? `-${variant}` : '';
  return path.join(cacheDir, `${stem}-${process.version}-${process.arch}-${stat.size}-${Math.trunc(stat.mtimeMs)}${tail}.v8`);
}

/**
 * A short key of the options a process was started with (`node` flags, NODE_OPTIONS), '' for none. V8 rejects a cache
 * made under other flags, and a machine's clients start the CLI in different environments: a shell whose
 * NODE_OPTIONS says --max-old-space-size=8192 (a V8 flag to Node 20) and an editor whose does not. With one file for
 * both, each start rejected the other's cache, compiled afresh and replaced it. FNV-1a, not a digest: node:crypto
 * costs a start ~5 ms to load, and a collision only shares a file as before.
 */
export function nodeOptionsKey(execArgv: readonly string[], nodeOptions: string | undefined): string {
  const text = [...execArgv, (nodeOptions ?? '').trim()].filter(Boolean).join('\0');
  if (!text) return '';
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return (h >>> 0).toString(16).padStart(8, '0');
}

/** Loads `opts.file` like require() would and returns its exports. */
export function runWithCodeCache(opts: CodeCacheOptions): unknown {
  const importer = vm.constants?.USE_MAIN_CONTEXT_DEFAULT_LOADER; // Node >= 20.12: import() inside a vm.Script
  let script: vm.Script;
  let cacheFile: string;
  let hadCache: boolean;
  let savedBytes = 0;
  try {
    if (importer === undefined) throw new Error('no main-context loader for vm scripts');
    const source = readSource(opts.file);
    cacheFile = cacheFileFor(opts.file, opts.cacheDir, fs.statSync(opts.file), opts.variant);
    const cachedData = readIfPresent(cacheFile);
    hadCache = cachedData !== undefined;
    script = atDefaultFlags(() => new vm.Script(Module.wrap(source), { filename: opts.file, cachedData, importModuleDynamically: importer }));
    if (cachedData && !script.cachedDataRejected) savedBytes = cachedData.length;
  } catch {
    return require(opts.file) as unknown; // eslint-disable-line @typescript-eslint/no-require-imports
  }
  const save = (): boolean => {
    let data: Buffer;
    try {
      data = atDefaultFlags(() => script.createCachedData());
    } catch {
      return false;
    }
    if (data.length <= savedBytes * (1 + REFRESH_GROWTH)) return false;
    savedBytes = data.length;
    saveCache(data, cacheFile, opts.cacheDir);
    return true;
  };
  if (!hadCache || script.cachedDataRejected) {
    setTimeout(save, opts.saveAfterMs ?? 1500).unref();
    process.once('exit', save);
  }
  const refreshers = (globalThis as Record<symbol, unknown>)[REFRESH_KEY];
  (globalThis as Record<symbol, unknown>)[REFRESH_KEY] = Array.isArray(refreshers) ? [...(refreshers as unknown[]), save] : [save];
  const mod = new Module(opts.file, require.main);
  mod.filename = opts.file;
  const run = script.runInThisContext() as (...args: unknown[]) => void;
  run.call(mod.exports, mod.exports, createRequire(opts.file), mod, opts.file, path.dirname(opts.file));
  mod.loaded = true;
  return mod.exports;
}

/**
 * The bundle's text. The bundles are ASCII (a test keeps them so), and an ASCII file read as latin1 is the same
 * string without UTF-8 decoding: ~1 ms less of a ~60 ms start for the 0.9 MB CLI bundle (Node 20). A file with any
 * other byte is decoded as UTF-8, as require() would.
 */
export function readSource(file: string): string {
  const bytes = fs.readFileSync(file);
  return bytes.toString(isAscii(bytes) ? 'latin1' : 'utf8');
}

/**
 * O_NOFOLLOW | O_NONBLOCK, then fstat of what was opened: a FIFO or link planted in the cache folder never blocks a
 * start. A code cache is compiled code that V8 runs as it is: only one this user wrote and nobody else may change is used.
 */
function readIfPresent(file: string): Buffer | undefined {
  let fd: number;
  try {
    fd = fs.openSync(file, READ_FLAGS);
  } catch {
    return undefined;
  }
  try {
    return privateFile(fs.fstatSync(fd)) ? fs.readFileSync(fd) : undefined;
  } catch {
    return undefined;
  } finally {
    fs.closeSync(fd);
  }
}

/** A regular file of this user that neither its group nor others may write (POSIX; elsewhere the folder's ACL). */
export function privateFile(st: fs.Stats): boolean {
  if (!st.isFile()) return false;
  if (process.platform === 'win32' || typeof process.getuid !== 'function') return true;
  return st.uid === process.getuid() && (st.mode & 0o022) === 0;
}

/**
 * Caches kept per bundle, the one being saved included. One machine's clients start the CLI under several Nodes and
 * from several installs (an editor's extension host on Node 22, a terminal agent on the system's Node 20, a global
 * npm install beside the extension's copy): with one cache per bundle, each start removed the other's and compiled
 * afresh (first tools/call ~1.5x as late). Four such files are ~5 MB.
 */
export const KEPT_CACHES = 4;

/**
 * Removes the bundle's caches beyond the newest KEPT_CACHES - 1 others (by the time each was saved), so that earlier
 * builds do not pile up. Only regular files named as this bundle's caches are touched; a link is removed, never followed.
 */
function removeOldCaches(cacheDir: string, keep: string): void {
  const stem = keep.split(`-${process.version}-`)[0]!;
  const others: { name: string; saved: number }[] = [];
  for (const name of fs.readdirSync(cacheDir)) {
    if (!name.startsWith(`${stem}-v`) || !name.endsWith('.v8') || name === keep) continue;
    const st = fs.lstatSync(path.join(cacheDir, name), { throwIfNoEntry: false });
    if (st && (st.isFile() || st.isSymbolicLink())) others.push({ name, saved: st.mtimeMs });
  }
  others.sort((a, b) => b.saved - a.saved);
  for (const { name } of others.slice(KEPT_CACHES - 1)) fs.rmSync(path.join(cacheDir, name), { force: true });
}

/** Atomic (temp file + rename, so concurrent starts never read half a file), private, and best effort. */
function saveCache(data: Buffer, cacheFile: string, cacheDir: string): void {
  try {
    fs.mkdirSync(cacheDir, { recursive: true, mode: 0o700 });
    try {
      removeOldCaches(cacheDir, path.basename(cacheFile));
    } catch {
      // an entry that cannot be read or removed only leaves a file behind
    }
    const tmp = `${cacheFile}.${process.pid}.tmp`;
    // 'wx' after removing the name: a FIFO or a link planted as the temp is never opened for writing
    fs.rmSync(tmp, { force: true });
    fs.writeFileSync(tmp, data, { mode: 0o600, flag: 'wx' });
    fs.renameSync(tmp, cacheFile);
  } catch {
    // a read-only or full cache folder only costs the next start its compile time
  }
}
