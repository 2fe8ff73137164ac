/**
 * A per-file lock shared by every server process of this user (the VS Code host and stdio CLIs for other agents
 * edit the same files), so one read-modify-write cycle of a file runs at a time across processes.
 *
 * The lock of a file is `<dir>/<sha256(path)>.lock`, created whole (written to a temp, then hard-linked into
 * place, which fails when the lock exists), holding the owner's pid, process start time, host and a random
 * token. It lives in a private per-user folder the composition root chooses, never in the workspace.
 *
 * A crash leaves the lock file behind; a waiter that finds its owner dead breaks it. Breaking is claimed first:
 * `<lock>.break-<token>` is created exclusively, so of all the waiters that saw the same dead owner exactly one
 * removes the lock, and it re-reads the lock before removing it, so it never removes a newer owner's lock.
 */
import { promises as fsp, constants as fsc } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createHash, randomBytes } from 'node:crypto';
import { ToolError } from '../errors';
import { currentOwner, isOwnerAlive } from './processIdentity';
import { sweepDeadTemps, tempBaseName } from './tempFiles';

export interface LockRecord {
  pid: number;
  start: number;
  host: string;
  token: string;
  /** The locked file (so whoever breaks the lock of a crashed writer can remove its temp files). */
  path: string;
  /** Epoch ms when it was taken (shown in the timeout error). */
  since: number;
}

export interface CrossProcessLockOptions {
  /** A private folder (created 0700) outside every workspace. */
  dir: string;
  /** How long a writer waits for a live owner before giving up with a clear error (default 15 s). */
  timeoutMs?: number;
  /** Called with the record of a dead owner before its lock is removed (to clean up after it). */
  onAbandoned?: (owner: LockRecord) => Promise<void>;
}

/** A lock that cannot be parsed is one being written, or a torn one: broken only once it is this old. */
const UNREADABLE_GRACE_MS = 5_000;
const MAX_POLL_MS = 20;

type Seen = { kind: 'missing' } | { kind: 'owner'; record: LockRecord } | { kind: 'unreadable'; identity: string; ageMs: number };

export class CrossProcessLocks {
  readonly dir: string;
  private readonly timeoutMs: number;
  private readonly onAbandoned?: (owner: LockRecord) => Promise<void>;
  private ready?: Promise<void>;
  private readonly host = os.hostname();

  constructor(opts: CrossProcessLockOptions) {
    if (!path.isAbsolute(opts.dir)) throw new ToolError('invalid_argument', `the lock folder must be an absolute path: ${opts.dir}`);
    this.dir = opts.dir;
    this.timeoutMs = opts.timeoutMs ?? 15_000;
    this.onAbandoned = opts.onAbandoned;
  }

  lockFileOf(target: string): string {
    return path.join(this.dir, `${createHash('sha256').update(target).digest('hex').slice(0, 40)}.lock`);
  }

  /** Waits until this process holds the lock of `target`; resolves to the function that releases it. */
  async acquire(target: string): Promise<() => Promise<void>> {
    await this.ensureDir();
    const file = this.lockFileOf(target);
    const me = currentOwner();
    const record: LockRecord = {
      pid: me.pid,
      start: me.start,
      host: this.host,
      token: randomBytes(12).toString('hex'),
      path: target,
      since: Date.now(),
    };
    const body = JSON.stringify(record);
    const deadline = performance.now() + this.timeoutMs;
    let pause = 1;
    let last: LockRecord | undefined;
    for (;;) {
      if (await this.tryCreate(file, body)) return () => this.release(file, record.token);
      const seen = await this.look(file);
      if (seen.kind === 'missing' && performance.now() <= deadline) continue; // released meanwhile: try again at once
      if (seen.kind === 'owner') {
        last = seen.record;
        if (seen.record.host === this.host && !(await isOwnerAlive(seen.record))) {
          await this.breakAbandoned(file, seen.record.token, seen.record);
          continue;
        }
      } else if (seen.kind === 'unreadable' && seen.ageMs > UNREADABLE_GRACE_MS) {
        await this.breakAbandoned(file, seen.identity);
        continue;
      }
      if (performance.now() > deadline) throw this.timeout(target, last);
      await sleep(pause + Math.random() * pause);
      pause = Math.min(MAX_POLL_MS, pause * 2);
    }
  }

  /**
   * At start: breaks the locks of dead owners (cleaning up after each) and removes dead processes' temp files
   * in the lock folder. Bounded by `maxEntries` folder entries. Returns how many locks were broken.
   */
  async recover(maxEntries = 10_000): Promise<number> {
    try {
      await this.ensureDir();
    } catch {
      return 0;
    }
    await sweepDeadTemps(this.dir, { maxEntries });
    let broken = 0;
    let seen = 0;
    let names: string[];
    try {
      names = await fsp.readdir(this.dir);
    } catch {
      return 0;
    }
    for (const name of names) {
      if (++seen > maxEntries) break;
      const file = path.join(this.dir, name);
      const claim = /^[0-9a-f]+\.lock\.break-/.exec(name);
      if (claim) {
        await this.removeIfDead(file);
        continue;
      }
      if (!name.endsWith('.lock')) continue;
      const s = await this.look(file);
      if (s.kind === 'owner' && s.record.host === this.host && !(await isOwnerAlive(s.record))) {
        if (await this.breakAbandoned(file, s.record.token, s.record)) broken++;
      } else if (s.kind === 'unreadable' && s.ageMs > UNREADABLE_GRACE_MS) {
        if (await this.breakAbandoned(file, s.identity)) broken++;
      }
    }
    return broken;
  }

  private ensureDir(): Promise<void> {
    this.ready ??= (async () => {
      try {
        await fsp.mkdir(this.dir, { recursive: true, mode: 0o700 });
        const st = await fsp.lstat(this.dir);
        if (!st.isDirectory()) throw new Error('it is not a directory');
        const uid = process.getuid?.();
        if (uid !== undefined && st.uid !== uid) throw new Error(`it belongs to uid ${st.uid}, not to this user (${uid})`);
        if (process.platform !== 'win32' && (st.mode & 0o077) !== 0) await fsp.chmod(this.dir, 0o700);
      } catch (e) {
        this.ready = undefined;
        throw new ToolError('io', `cannot use the lock folder ${this.dir}: ${(e as Error).message}. Nothing was changed.`);
      }
    })();
    return this.ready;
  }

  /** createExclusive, with the folder made again if someone removed it meanwhile (a cache clean-up). */
  private async tryCreate(file: string, body: string): Promise<boolean> {
    try {
      return await this.createExclusive(file, body);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') {
        throw new ToolError('io', `cannot take the edit lock in ${this.dir}: ${(e as Error).message}. Nothing was changed.`);
      }
      this.ready = undefined;
      await this.ensureDir();
      return this.createExclusive(file, body);
    }
  }

  /** Creates `file` with `body` unless it exists; never leaves a partly written lock behind. */
  private async createExclusive(file: string, body: string): Promise<boolean> {
    const tmp = path.join(this.dir, tempBaseName(path.basename(file)));
    await fsp.writeFile(tmp, body, { mode: 0o600, flag: 'wx' });
    try {
      await fsp.link(tmp, file);
      return true;
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'EEXIST') return false;
      if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EOPNOTSUPP' && code !== 'ENOSYS') throw e;
      // no hard links here (some file systems): exclusive create, written after (readers allow for that)
      return this.createExclusiveWithoutLink(file, body);
    } finally {
      await fsp.unlink(tmp).catch(() => undefined);
    }
  }

  private async createExclusiveWithoutLink(file: string, body: string): Promise<boolean> {
    let fh;
    try {
      fh = await fsp.open(file, fsc.O_CREAT | fsc.O_EXCL | fsc.O_WRONLY, 0o600);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'EEXIST') return false;
      throw e;
    }
    try {
      await fh.writeFile(body);
    } finally {
      await fh.close();
    }
    return true;
  }

  private async look(file: string): Promise<Seen> {
    let text: string;
    let st;
    try {
      [text, st] = await Promise.all([fsp.readFile(file, 'utf8'), fsp.stat(file)]);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { kind: 'missing' };
      throw new ToolError('io', `cannot read the lock ${file}: ${(e as Error).message}. Nothing was changed.`);
    }
    const record = parseRecord(text);
    if (record) return { kind: 'owner', record };
    return { kind: 'unreadable', identity: `u${st.ino}-${Math.floor(st.mtimeMs)}`, ageMs: Date.now() - st.mtimeMs };
  }

  private async identityOf(file: string): Promise<string | undefined> {
    const s = await this.look(file).catch(() => ({ kind: 'missing' }) as const);
    if (s.kind === 'owner') return s.record.token;
    if (s.kind === 'unreadable') return s.identity;
    return undefined;
  }

  /** Removes the lock `file` if it is still the one identified by `identity`. True when this call removed it. */
  private async breakAbandoned(file: string, identity: string, owner?: LockRecord): Promise<boolean> {
    const claim = `${file}.break-${identity.replace(/[^0-9a-z-]/gi, '')}`;
    const me = currentOwner();
    const claimBody = JSON.stringify({ pid: me.pid, start: me.start, host: this.host, token: 'claim', path: file, since: Date.now() });
    if (!(await this.createExclusive(claim, claimBody))) {
      // another waiter is breaking it; if that waiter died while doing so, clear its claim and claim it ourselves
      if (!(await this.removeIfDead(claim)) || !(await this.createExclusive(claim, claimBody))) return false;
    }
    try {
      if ((await this.identityOf(file)) !== identity) return false;
      if (owner && this.onAbandoned) await this.onAbandoned(owner).catch(() => undefined);
      await fsp.unlink(file).catch(() => undefined);
      return true;
    } finally {
      await fsp.unlink(claim).catch(() => undefined);
    }
  }

  /** True when `claim` was a dead breaker's and is gone now. */
  private async removeIfDead(claim: string): Promise<boolean> {
    const s = await this.look(claim).catch(() => ({ kind: 'missing' }) as const);
    const dead =
      (s.kind === 'owner' && s.record.host === this.host && !(await isOwnerAlive(s.record))) ||
      (s.kind === 'unreadable' && s.ageMs > UNREADABLE_GRACE_MS);
    if (dead) await fsp.unlink(claim).catch(() => undefined);
    return dead;
  }

  private async release(file: string, token: string): Promise<void> {
    // only our own lock (it is ours unless someone judged us dead, which a live process never is)
    if ((await this.identityOf(file)) === token) await fsp.unlink(file).catch(() => undefined);
  }

  private timeout(target: string, owner: LockRecord | undefined): ToolError {
    const who = owner
      ? `process ${owner.pid}${owner.host !== this.host ? ` on ${owner.host}` : ''} (holding it for ${Math.round((Date.now() - owner.since) / 1000)} s)`
      : 'another process';
    return new ToolError(
      'conflict',
      `${target} is being edited by ${who}; waited ${Math.round(this.timeoutMs / 1000)} s for it, nothing was changed. ` +
        'Retry in a moment; if that process hangs, end it (its lock is released when it exits).',
      { lock: this.lockFileOf(target), owner_pid: owner?.pid },
    );
  }
}

function parseRecord(text: string): LockRecord | undefined {
  try {
    const r = JSON.parse(text) as Partial<LockRecord>;
    if (typeof r.pid === 'number' && typeof r.token === 'string' && typeof r.host === 'string' && typeof r.path === 'string') {
      return { pid: r.pid, start: Number(r.start) || 0, host: r.host, token: r.token, path: r.path, since: Number(r.since) || 0 };
    }
  } catch {
    // not JSON: being written, or torn
  }
  return undefined;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
