/**
 * A lock shared by every process that uses one directory: a lock file created with O_EXCL ('wx').
 * Creating a file exclusively is atomic on local file systems, so exactly one holder at a time.
 * The file holds "<pid> <token>"; a lock whose holder process is gone (or that is older than
 * `staleMs`) is broken, after re-reading it to make sure it is still the same stale lock.
 */
import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import { ToolError } from '../errors';
import { errnoCode, errorText } from './atomicFile';

export interface DirLockOptions {
  timeoutMs?: number;
  staleMs?: number;
}

export async function withDirLock<T>(lockPath: string, fn: () => Promise<T>, opts: DirLockOptions = {}): Promise<T> {
  const timeoutMs = opts.timeoutMs ?? 10_000;
  const staleMs = opts.staleMs ?? 30_000;
  const token = `${process.pid} ${randomBytes(8).toString('hex')}`;
  const deadline = Date.now() + timeoutMs;
  let delay = 2;
  for (;;) {
    try {
      await fs.writeFile(lockPath, token, { flag: 'wx', mode: 0o600 });
      break;
    } catch (err) {
      if (errnoCode(err) !== 'EEXIST') {
        throw new ToolError('io', `Cannot create the lock file ${lockPath}: ${errorText(err)}. Check that the directory is writable.`);
      }
    }
    await breakIfStale(lockPath, staleMs);
    if (Date.now() > deadline) {
      const holder = await fs.readFile(lockPath, 'utf8').catch(() => '?');
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
    // Only remove the lock if it is still ours (it may have been broken as stale by someone else).
    const content = await fs.readFile(lockPath, 'utf8').catch(() => undefined);
    if (content === token) await fs.unlink(lockPath).catch(() => undefined);
  }
}

async function breakIfStale(lockPath: string, staleMs: number): Promise<void> {
  let content: string;
  let mtimeMs: number;
  try {
    content = await fs.readFile(lockPath, 'utf8');
    mtimeMs = (await fs.stat(lockPath)).mtimeMs;
  } catch {
    return; // released meanwhile
  }
  const pid = Number.parseInt(content.split(' ')[0] ?? '', 10);
  // An empty file is a holder between create and write: give it time, unless it is old.
  const holderGone = Number.isInteger(pid) && pid > 0 && !processAlive(pid);
  if (!holderGone && Date.now() - mtimeMs < staleMs) return;
  const again = await fs.readFile(lockPath, 'utf8').catch(() => undefined);
  if (again === content) await fs.unlink(lockPath).catch(() => undefined);
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

/** Serialises async work inside one process (so a process does not spin on its own lock file). */
export class Mutex {
  private tail: Promise<unknown> = Promise.resolve();

  run<T>(fn: () => Promise<T>): Promise<T> {
    const result = this.tail.then(fn, fn);
    this.tail = result.catch(() => undefined);
    return result;
  }
}
