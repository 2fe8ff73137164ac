/**
 * A lock shared by every process that uses one directory: a lock file created with O_EXCL ('wx').
 * Creating a file exclusively is atomic on local file systems, so exactly one holder at a time.
 * The file holds "<pid> <token>"; a lock whose holder process is gone (or that is older than
 * `staleMs`) is broken, after re-reading it to make sure it is still the same stale lock. The holder keeps the
 * lock file open until it releases it, and removes it only if the file at the path is still that one (the same
 * inode, which cannot be reused while it is open): two calls, where reading the token back took six.
 */
import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { errnoCode, errorText, ToolError } from '../../errors';
import { fileKind } from '../../files/regularFile';
import { readStateFile } from '../../files/stateFile';
import { releaseHeldFile } from '../../files/heldFile';

export interface DirLockOptions {
  timeoutMs?: number;
  staleMs?: number;
  /** Told when something that is not a lock file was found at the lock path and removed. */
  log?: (message: string) => void;
}

/** A lock file holds "<pid> <token>": a few dozen bytes. */
const MAX_LOCK_FILE_BYTES = 4096;

export async function withDirLock<T>(lockPath: string, fn: () => Promise<T>, opts: DirLockOptions = {}): Promise<T> {
  const timeoutMs = opts.timeoutMs ?? 10_000;
  const staleMs = opts.staleMs ?? 30_000;
  const token = `${process.pid} ${randomBytes(8).toString('hex')}`;
  const deadline = Date.now() + timeoutMs;
  let delay = 2;
  let removals = 0; // bounded: something re-creating a directory there must not keep us looping
  let held: FileHandle;
  for (;;) {
    const made = await createLock(lockPath, token);
    if (made) {
      held = made;
      break;
    }
    // Not a regular file (a directory, a FIFO, a link): never a holder's lock, and never released by one;
    // waiting for it would time out every save.
    if (removals < 3 && (await removeIfNotALockFile(lockPath, opts.log))) {
      removals++;
      continue;
    }
    await breakIfStale(lockPath, staleMs);
    if (Date.now() > deadline) {
      const read = await readStateFile(lockPath, MAX_LOCK_FILE_BYTES);
      const holder = read.ok ? read.text : '?';
      throw new ToolError(
        'io',
        `Timed out after ${timeoutMs} ms waiting for the lock ${lockPath} (held by process ${holder.split(' ')[0]}). ` +
          `If no other better-edit-tools process is running, delete that file and retry.`,
      );
    }
    await sleep(delay + Math.random() * delay);
    delay = Math.min(delay * 2, 50);
  }
  try {
    return await fn();
  } finally {
    // removed only if still ours (it may have been broken as stale, and made anew, by someone else)
    await releaseHeldFile(lockPath, held);
  }
}

/** The lock file made exclusively, with its token written; undefined when it exists. */
async function createLock(lockPath: string, token: string): Promise<FileHandle | undefined> {
  const cannot = (err: unknown) => new ToolError('io', `Cannot create the lock file ${lockPath}: ${errorText(err)}. Check that the directory is writable.`);
  let fh: FileHandle;
  try {
    fh = await fs.open(lockPath, 'wx', 0o600);
  } catch (err) {
    if (errnoCode(err) === 'EEXIST') return undefined;
    throw cannot(err);
  }
  try {
    await fh.write(token);
    return fh;
  } catch (err) {
    await fh.close().catch(() => undefined);
    await fs.unlink(lockPath).catch(() => undefined);
    throw cannot(err);
  }
}


/**
 * Returns true when the lock path held something we never create and it was removed (retry at once). An empty
 * directory, a FIFO, a socket or a symbolic link (the link itself) carries nothing: removed, with a warning.
 * A directory with entries may hold someone's files: a clear error that says what to do, at once.
 */
async function removeIfNotALockFile(lockPath: string, log: ((m: string) => void) | undefined): Promise<boolean> {
  let st;
  try {
    st = await fs.lstat(lockPath);
  } catch {
    return false; // released meanwhile
  }
  if (st.isFile()) return false;
  const what = fileKind(st);
  try {
    if (st.isDirectory()) await fs.rmdir(lockPath);
    else await fs.unlink(lockPath);
  } catch (err) {
    if (errnoCode(err) === 'ENOENT') return true;
    throw new ToolError(
      'io',
      `The lock path ${lockPath} is ${what}, not a lock file, and could not be removed (${errorText(err)}). ` +
        `Nothing was saved. Move it away (it is not used by better-edit-tools) and retry.`,
    );
  }
  log?.(`removed ${what} found at the lock path ${lockPath} (not a lock file; it blocked every save)`);
  return true;
}

async function breakIfStale(lockPath: string, staleMs: number): Promise<void> {
  let content: string;
  let mtimeMs: number;
  try {
    const read = await readStateFile(lockPath, MAX_LOCK_FILE_BYTES);
    if (!read.ok) return; // released meanwhile, or not a lock file (handled by the caller's next round)
    content = read.text;
    mtimeMs = (await fs.lstat(lockPath)).mtimeMs;
  } catch {
    return; // released meanwhile
  }
  const pid = Number.parseInt(content.split(' ')[0] ?? '', 10);
  // An empty file is a holder between create and write: give it time, unless it is old.
  const holderGone = Number.isInteger(pid) && pid > 0 && !processAlive(pid);
  if (!holderGone && Date.now() - mtimeMs < staleMs) return;
  const again = await readStateFile(lockPath, MAX_LOCK_FILE_BYTES);
  if (again.ok && again.text === content) await fs.unlink(lockPath).catch(() => undefined);
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return errnoCode(err) === 'EPERM'; // exists, owned by someone else
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
