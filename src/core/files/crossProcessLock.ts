/**
 * A per-file lock shared by every server process on the machine (the VS Code host, stdio CLIs for other agents,
 * a Flatpak or container build with another HOME), so one read-modify-write cycle of a file runs at a time.
 *
 * The lock of `dir/name` is `dir/.name.be-lock`, beside the file, in the folder the staged temp is written to:
 * every process that can edit the file agrees on it whatever its environment (an earlier version kept it under
 * the user's cache folder, so two servers with different XDG_CACHE_HOME did not exclude each other). It is created
 * exclusively (O_EXCL, which fails when the lock exists), its record written at once, and removed on release. It holds the owner's pid, process start time, pid
 * namespace, host and a random token; a live owner touches it every second (the heartbeat).
 *
 * A crash leaves the lock behind. A waiter breaks it when its owner is provably dead (same host and pid namespace,
 * no such process, or one started later). A record that cannot be checked (another host or pid namespace, a live
 * pid without a start time, pid 1) counts as abandoned once its heartbeat is `staleMs` old (default 10 s, far above the 1 s beat).
 * Breaking is claimed first (`<lock>.break-<token>`, created exclusively), and the lock is re-read before it is
 * removed, so exactly one waiter removes it and never a newer owner's lock. Anything but a regular file at the
 * lock path (a FIFO, a link, a folder) is refused from lstat, before any open, with the command that clears it.
 *
 * The locks one batch takes in one folder (a LockGroup) share one lock file: the first is made as above, each next
 * one is a hard link to it under its own name. link() fails when the name exists, as the exclusive create does, and
 * the name is born with its record; any server reads, waits for and breaks each name as any lock. One inode, one
 * descriptor and one heartbeat per folder and batch instead of one each per file (the create is a lock's costliest
 * call: an inode allocated, freed again at release). Where hard links fail, each name is a lock file of its own.
 */
import { promises as fsp, constants as fsc, readlinkSync, type Stats } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createHash } from 'node:crypto';
import { randomHex } from '../util/ids';
import { ToolError } from '../errors';
import { isLockFileName, LOCK_SUFFIX } from './ownNames';
import { currentOwner, isOwnerAlive } from './processIdentity';
import { fileKind, READ_FLAGS } from './regularFile';
import { sweepDeadTemps } from './tempFiles';
import { releaseHeldFile } from './heldFile';
import { poolCalls, type FsCalls, type Handle } from './fsCalls';

export interface LockRecord {
  pid: number;
  start: number;
  host: string;
  token: string;
  /** The locked file (so whoever breaks the lock of a crashed writer can remove its temp files). */
  path: string;
  /** Epoch ms when it was taken (shown in the timeout error). */
  since: number;
  /** The owner's pid namespace (Linux, `pid:[…]`), '' when unknown: a pid of another namespace cannot be checked. */
  pidns?: string;
}

export interface CrossProcessLockOptions {
  /** The lock folder of earlier versions: `recover()` breaks dead owners' locks left there. */
  dir?: string;
  /** How long a writer waits for a live owner before giving up with a clear error (default 15 s). */
  timeoutMs?: number;
  /** A lock whose owner cannot be checked is abandoned once its heartbeat is this old (default 10 s). */
  staleMs?: number;
  /** How often a holder touches its lock (default 1 s). */
  heartbeatMs?: number;
  /** Called with the record of a dead owner before its lock is removed (to clean up after it). */
  onAbandoned?: (owner: LockRecord) => Promise<void>;
}

/** A lock that cannot be parsed is one being written, or a torn one: broken only once it is this old. */
const UNREADABLE_GRACE_MS = 5_000;
const MAX_POLL_MS = 20;
const MAX_RECORD_BYTES = 64 * 1024;
const MAX_BASE_BYTES = 100;

type Seen = { kind: 'missing' } | { kind: 'owner'; record: LockRecord; ageMs: number } | { kind: 'unreadable'; identity: string; ageMs: number };
type Verdict = 'alive' | 'dead' | 'unknown' | 'stale';
type Attempt =
  | { kind: 'taken'; release: () => Promise<void> }
  | { kind: 'retry' | 'broken' }
  | { kind: 'busy'; last?: { record: LockRecord; verdict: Verdict }; unreadableMs?: number };

let ownPidns: string | undefined;
function pidNamespace(): string {
  if (ownPidns !== undefined) return ownPidns;
  try {
    ownPidns = process.platform === 'linux' ? readlinkSync('/proc/self/ns/pid') : '';
  } catch {
    ownPidns = '';
  }
  return ownPidns;
}

/** The lock file of `target`: `.<name>.be-lock` beside it (a long name is shortened and told apart by a hash). */
export function lockFileOf(target: string): string {
  const name = path.basename(target);
  let base = name;
  if (Buffer.byteLength(name) > MAX_BASE_BYTES) {
    base = '';
    for (const ch of name) {
      if (Buffer.byteLength(base + ch) > MAX_BASE_BYTES) break;
      base += ch;
    }
    base += `~${createHash('sha256').update(name).digest('hex').slice(0, 12)}`;
  }
  return path.join(path.dirname(target), `.${base}${LOCK_SUFFIX}`);
}

export { isLockFileName };

/**
 * The locks of one batch in one folder (acquire's and tryAcquire's `group`): the names held, all links to one lock
 * file, its descriptor kept open (its inode cannot be reused meanwhile, so a name holding it is ours) and its heartbeat.
 */
interface SharedLock {
  names: Set<string>;
  fh: Handle;
  ino: number;
  dev: number;
  beat: ReturnType<typeof setInterval>;
}

export class LockGroup {
  /** @internal */
  shared?: SharedLock;
  /** @internal no more links: they failed here (a file system without them), or a name of the group was made anew by another writer */
  noLinks = false;
  /** @internal the group's first lock file being made */
  first?: Promise<void>;
}

export class CrossProcessLocks {
  readonly dir?: string;
  private readonly timeoutMs: number;
  private readonly staleMs: number;
  private readonly heartbeatMs: number;
  private readonly onAbandoned?: (owner: LockRecord) => Promise<void>;
  private readonly host = os.hostname();
  /**
   * The lock files this process holds, by the path it took each by: its own sweep of a folder skips them (a look at
   * one cost the first edit in a folder ~3 ms, and a lock held here is never abandoned, whatever its record says).
   */
  private readonly heldFiles = new Set<string>();

  constructor(opts: CrossProcessLockOptions = {}) {
    if (opts.dir !== undefined && !path.isAbsolute(opts.dir)) throw new ToolError('invalid_argument', `the lock folder must be an absolute path: ${opts.dir}`);
    this.dir = opts.dir;
    this.timeoutMs = opts.timeoutMs ?? 15_000;
    this.staleMs = opts.staleMs ?? 10_000;
    this.heartbeatMs = opts.heartbeatMs ?? 1_000;
    this.onAbandoned = opts.onAbandoned;
  }

  lockFileOf(target: string): string {
    return lockFileOf(target);
  }

  /**
   * Waits until this process holds the lock of `target`; resolves to the function that releases it (never throws).
   * `folder`: the path to reach the target's folder by (a pinned descriptor path, so a folder swapped for a link
   * meanwhile cannot put the lock elsewhere; it must stay valid until release). Messages show the plain path.
   * `calls`: how that folder's entries are reached (fsCalls.ts: direct on a local file system).
   */
  async acquire(target: string, folder?: string, calls: FsCalls = poolCalls, group?: LockGroup): Promise<() => Promise<void>> {
    const attempt = this.attempt(target, folder, true, calls, group);
    const deadline = performance.now() + this.timeoutMs;
    let pause = 1;
    let last: { record: LockRecord; verdict: Verdict } | undefined;
    let unreadableMs: number | undefined;
    for (;;) {
      const r = await attempt();
      if (r.kind === 'taken') return r.release;
      if (r.kind === 'broken' || (r.kind === 'retry' && performance.now() <= deadline)) continue;
      if (r.kind === 'busy') {
        last = r.last ?? last;
        unreadableMs = r.unreadableMs;
      }
      if (performance.now() > deadline) throw this.timeout(target, lockFileOf(target), last, unreadableMs);
      await sleep(pause + Math.random() * pause);
      pause = Math.min(MAX_POLL_MS, pause * 2);
    }
  }

  /**
   * One attempt without waiting (a batch takes its locks at once, then waits in order only for the busy ones): the
   * release function, or undefined while another live writer holds the lock. A dead or stale owner's lock is
   * broken and tried again, as acquire does.
   */
  async tryAcquire(target: string, folder?: string, calls: FsCalls = poolCalls, group?: LockGroup): Promise<(() => Promise<void>) | undefined> {
    const attempt = this.attempt(target, folder, false, calls, group);
    for (let i = 0; i < 3; i++) {
      const r = await attempt();
      if (r.kind === 'taken') return r.release;
      if (r.kind === 'busy') return undefined;
    }
    return undefined;
  }

  /**
   * One round of taking the lock of `target` with one record (acquire and tryAcquire): taken; `retry` at once when
   * it was released meanwhile, `broken` when an abandoned one was broken; or `busy` (a live or not yet checkable
   * owner, a lock being written, or an unreadable one unless `breakUnreadable`), with the owner's verdict when read.
   */
  private attempt(target: string, folder: string | undefined, breakUnreadable: boolean, calls: FsCalls, group?: LockGroup): () => Promise<Attempt> {
    const shown = lockFileOf(target);
    const file = folder === undefined ? shown : path.join(folder, path.basename(shown));
    const me = currentOwner();
    const record: LockRecord = { pid: me.pid, start: me.start, host: this.host, token: randomHex(12), path: target, since: Date.now(), pidns: pidNamespace() };
    const body = JSON.stringify(record);
    return async () => {
      const made = group ? await this.tryJoin(group, file, body, shown, calls) : await this.tryCreate(file, body, shown, calls);
      if (made === 'no-folder') return { kind: 'taken', release: async () => undefined }; // a new folder (mkdirs): nothing there to exclude on yet
      if (made) {
        this.heldFiles.add(file);
        const release = 'names' in made ? this.holdingIn(group!, made, file, calls) : this.holding(file, made, calls);
        let held = true;
        // once: a second call of an idempotent release must not forget a later hold of the same name
        const forget = () => {
          if (!held) return;
          held = false;
          this.heldFiles.delete(file);
        };
        return { kind: 'taken', release: () => release().finally(forget) };
      }
      const seen = await this.look(file, shown);
      if (seen.kind === 'missing') return { kind: 'retry' }; // released meanwhile: try again at once
      if (seen.kind === 'owner') {
        const verdict = await this.verdict(seen.record, seen.ageMs);
        if (verdict !== 'dead' && verdict !== 'stale') return { kind: 'busy', last: { record: seen.record, verdict } };
        await this.breakAbandoned(file, seen.record.token, verdict === 'dead' ? seen.record : undefined);
        return { kind: 'broken' };
      }
      if (breakUnreadable && seen.ageMs > UNREADABLE_GRACE_MS) {
        await this.breakAbandoned(file, seen.identity);
        return { kind: 'broken' };
      }
      return { kind: 'busy', unreadableMs: seen.ageMs };
    };
  }

  /**
   * Breaks the abandoned locks in one folder (dead owners, stale unverifiable ones). Bounded by `maxEntries`
   * folder entries; `listed`: the folder's names, read already. Never throws. Returns how many it broke.
   */
  async sweepDir(dir: string, maxEntries = 20_000, listed?: readonly string[]): Promise<number> {
    let broken = 0;
    let seen = 0;
    let names: readonly string[];
    try {
      names = listed ?? (await fsp.readdir(dir));
    } catch {
      return 0;
    }
    for (const name of names) {
      if (++seen > maxEntries) break;
      if (!name.startsWith('.') || !isLockFileName(name)) continue;
      const file = path.join(dir, name);
      if (this.heldFiles.has(file)) continue;
      try {
        if (name.includes(`${LOCK_SUFFIX}.break-`)) {
          await this.removeIfDead(file);
          continue;
        }
        const s = await this.look(file);
        if (s.kind === 'owner') {
          const v = await this.verdict(s.record, s.ageMs);
          if ((v === 'dead' || v === 'stale') && (await this.breakAbandoned(file, s.record.token, v === 'dead' ? s.record : undefined))) broken++;
        } else if (s.kind === 'unreadable' && s.ageMs > UNREADABLE_GRACE_MS) {
          if (await this.breakAbandoned(file, s.identity)) broken++;
        }
      } catch {
        // not a regular file, or unreadable: the next edit of that file reports it
      }
    }
    return broken;
  }

  /**
   * At start: breaks dead owners' locks (cleaning up after each) left in the lock folder of earlier versions and
   * removes dead processes' temps there. Returns how many locks were broken.
   */
  async recover(maxEntries = 10_000): Promise<number> {
    if (!this.dir) return 0;
    await sweepDeadTemps(this.dir, { maxEntries });
    let broken = 0;
    let names: string[];
    try {
      names = await fsp.readdir(this.dir);
    } catch {
      return 0;
    }
    for (const name of names.slice(0, maxEntries)) {
      if (!/^[0-9a-f]+\.lock(\.break-.*)?$/.test(name)) continue;
      const file = path.join(this.dir, name);
      try {
        const s = await this.look(file);
        if (s.kind !== 'owner' || (await this.verdict(s.record, s.ageMs)) !== 'dead') continue;
        if (!name.includes('.break-') && this.onAbandoned) await this.onAbandoned(s.record).catch(() => undefined);
        await fsp.unlink(file);
        broken++;
      } catch {
        // gone already, or not ours
      }
    }
    return broken;
  }

  /** Alive/dead when the record can be checked here; else stale once its heartbeat is `staleMs` old. */
  private async verdict(r: LockRecord, ageMs: number): Promise<Verdict> {
    const here = r.host === this.host && r.pid > 1 && (!r.pidns || !pidNamespace() || r.pidns === pidNamespace());
    if (here) {
      const alive = await isOwnerAlive(r);
      if (!alive) return 'dead'; // no such process (or a zombie, or one started later than the record says)
      // without a start time a live pid may be a reused one: only the heartbeat tells
      if (process.platform !== 'linux' || r.start > 0) return 'alive';
    }
    return ageMs > this.staleMs ? 'stale' : 'unknown';
  }

  /** The lock is ours: a heartbeat keeps it fresh until release, which removes it (if it is still ours). */
  private holding(file: string, fh: Handle, calls: FsCalls): () => Promise<void> {
    const beat = setInterval(() => {
      const now = new Date();
      fh.utimes(now, now).catch(() => undefined);
    }, this.heartbeatMs);
    beat.unref();
    let released = false;
    return async () => {
      if (released) return;
      released = true;
      clearInterval(beat);
      // only our own lock: the same inode we hold open (it is ours unless someone judged us abandoned)
      await releaseHeldFile(file, fh, calls);
    };
  }

  /**
   * `file` taken as a name of the group's lock file (the group's SharedLock): a hard link to a name the group holds,
   * else (the group's first lock, or no hard links here) a lock file of its own, the group's when it has none.
   */
  private async tryJoin(group: LockGroup, file: string, body: string, shown: string, calls: FsCalls): Promise<Handle | SharedLock | undefined | 'no-folder'> {
    // the batch's locks are tried several at once: the others wait for the first lock file, then link to it
    while (!group.shared && group.first) await group.first;
    const s = group.shared;
    if (s && !group.noLinks) {
      try {
        await calls.link(s.names.values().next().value!, file);
        // ours unless the group's name was broken as abandoned and made anew by another writer just before the link
        const there = await calls.lstat(file).catch(() => undefined);
        if (there?.ino === s.ino && there.dev === s.dev && group.shared === s) {
          s.names.add(file);
          return s;
        }
        // the link just made, to another writer's lock or to the group's released meanwhile (while the name exists,
        // no one else removes it or makes it anew); the group's next names are lock files of their own
        if (there) await calls.unlink(file).catch(() => undefined);
        group.noLinks = true;
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code;
        if (code === 'EEXIST') return undefined;
        if (code !== 'ENOENT') group.noLinks = true; // EPERM, ENOTSUP, EMLINK, ...: no hard links on this file system
      }
    }
    if (group.shared || group.noLinks) return this.tryCreate(file, body, shown, calls);
    let made: Handle | undefined | 'no-folder' = undefined;
    let done = () => {};
    group.first = new Promise<void>((resolve) => (done = resolve));
    try {
      made = await this.tryCreate(file, body, shown, calls);
      const st = typeof made === 'object' ? await made.stat().catch(() => undefined) : undefined;
      if (typeof made !== 'object' || !st) return made;
      const fh = made;
      const beat = setInterval(() => {
        const now = new Date();
        fh.utimes(now, now).catch(() => undefined);
      }, this.heartbeatMs);
      beat.unref();
      group.shared = { names: new Set([file]), fh, ino: st.ino, dev: st.dev, beat };
      return group.shared;
    } finally {
      group.first = undefined;
      done();
    }
  }

  /** A name of the group's lock file is held until release removes it (if it is still the group's inode). */
  private holdingIn(group: LockGroup, s: SharedLock, file: string, calls: FsCalls): () => Promise<void> {
    let released = false;
    return async () => {
      if (released) return;
      released = true;
      try {
        const there = await calls.lstat(file);
        if (there.ino === s.ino && there.dev === s.dev) await calls.unlink(file);
      } catch {
        // gone already: nothing to release
      }
      s.names.delete(file);
      if (s.names.size > 0) return;
      clearInterval(s.beat);
      if (group.shared === s) group.shared = undefined;
      await s.fh.close().catch(() => undefined);
    };
  }

  /** createExclusive; 'no-folder' when the target's folder does not exist (yet). */
  private async tryCreate(file: string, body: string, shown: string, calls: FsCalls): Promise<Handle | undefined | 'no-folder'> {
    try {
      return await this.createExclusive(file, body, calls);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') return 'no-folder';
      if (e instanceof ToolError) throw e;
      throw new ToolError('io', `cannot take the edit lock ${shown}: ${(e as Error).message}. Nothing was changed.`, { lock: shown });
    }
  }

  /**
   * Creates `file` with `body` unless it exists (undefined then): one exclusive create, then the write (a temp
   * hard-linked into place cost two more calls and two more changes of the folder that its fsync then commits).
   * Readers allow for the instant between the two: a lock without a record yet is busy, and is broken only once
   * it is UNREADABLE_GRACE_MS old (a writer that died in that instant). A failed write removes the lock again.
   */
  private async createExclusive(file: string, body: string, calls: FsCalls = poolCalls): Promise<Handle | undefined> {
    let fh;
    try {
      fh = await calls.open(file, CREATE_FLAGS, 0o644);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'EEXIST') return undefined;
      throw e;
    }
    try {
      await fh.writeFile(body);
      return fh;
    } catch (e) {
      await fh.close().catch(() => undefined);
      await calls.unlink(file).catch(() => undefined);
      throw e;
    }
  }

  /** The lock at `file`: lstat first (a FIFO or a link is refused before any open), then a bounded read. */
  private async look(file: string, shown = file): Promise<Seen> {
    let fh: fsp.FileHandle | undefined;
    try {
      const before = await fsp.lstat(file);
      if (!before.isFile()) throw notALock(shown, before);
      fh = await fsp.open(file, READ_FLAGS);
      const st = await fh.stat();
      if (!st.isFile()) throw notALock(shown, st);
      const buf = Buffer.alloc(Math.min(st.size, MAX_RECORD_BYTES));
      const { bytesRead } = await fh.read(buf, 0, buf.length, 0);
      const ageMs = Date.now() - st.mtimeMs;
      const record = parseRecord(buf.subarray(0, bytesRead).toString('utf8'));
      if (record) return { kind: 'owner', record, ageMs };
      return { kind: 'unreadable', identity: `u${st.ino}-${Math.floor(st.mtimeMs)}`, ageMs };
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') return { kind: 'missing' };
      if (e instanceof ToolError) throw e;
      if (code === 'ELOOP') throw notALock(shown);
      throw new ToolError('io', `cannot read the edit lock ${shown}: ${(e as Error).message}. Nothing was changed.`, { lock: shown });
    } finally {
      await fh?.close().catch(() => undefined);
    }
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
    const claimBody = JSON.stringify({ pid: me.pid, start: me.start, host: this.host, token: 'claim', path: file, since: Date.now(), pidns: pidNamespace() });
    const take = async () => {
      const fh = await this.createExclusive(claim, claimBody).catch(() => undefined);
      await fh?.close().catch(() => undefined);
      return fh !== undefined;
    };
    if (!(await take())) {
      // another waiter is breaking it; if that waiter died while doing so, clear its claim and claim it ourselves
      if (!(await this.removeIfDead(claim)) || !(await take())) return false;
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

  /** True when `claim` was a dead (or stale) breaker's and is gone now. */
  private async removeIfDead(claim: string): Promise<boolean> {
    const s = await this.look(claim).catch(() => ({ kind: 'missing' }) as const);
    let dead = s.kind === 'unreadable' && s.ageMs > UNREADABLE_GRACE_MS;
    if (s.kind === 'owner') {
      const v = await this.verdict(s.record, s.ageMs);
      dead = v === 'dead' || v === 'stale';
    }
    if (dead) await fsp.unlink(claim).catch(() => undefined);
    return dead;
  }

  private timeout(target: string, file: string, last: { record: LockRecord; verdict: Verdict } | undefined, unreadableMs?: number): ToolError {
    const waited = `waited ${Math.round(this.timeoutMs / 1000)} s for it, nothing was changed`;
    const details = { lock: file, owner_pid: last?.record.pid };
    if (unreadableMs !== undefined) {
      // the last look found a lock without a record: one being written, or left by a writer killed as it took it
      const left = Math.max(1, Math.ceil((UNREADABLE_GRACE_MS - unreadableMs) / 1000));
      return new ToolError(
        'conflict',
        `${target} is locked by a lock file without an owner record yet (${file}); ${waited}. A writer killed as it ` +
          `took the lock leaves one, and it counts as abandoned ${UNREADABLE_GRACE_MS / 1000} s after it was made: retry in ${left} s.`,
        details,
      );
    }
    if (!last) return new ToolError('conflict', `${target} is being edited by another process; ${waited}. Retry in a moment.`, details);
    const r = last.record;
    const held = `holding it for ${Math.round((Date.now() - r.since) / 1000)} s`;
    if (last.verdict === 'alive') {
      return new ToolError(
        'conflict',
        `${target} is being edited by process ${r.pid} (${held}); ${waited}. Retry in a moment; if process ${r.pid} hangs, end it (its lock is released when it exits).`,
        details,
      );
    }
    const where = r.host !== this.host ? ` on host ${r.host}` : ' in another container (pid namespace) or of unknown start time';
    return new ToolError(
      'conflict',
      `${target} is locked by process ${r.pid}${where} (${held}), which this server cannot check; ${waited}. ` +
        `Retry in ${Math.ceil(this.staleMs / 1000)} s: such a lock counts as abandoned ${Math.ceil(this.staleMs / 1000)} s after its owner's last heartbeat.`,
      details,
    );
  }
}

const CREATE_FLAGS = fsc.O_WRONLY | fsc.O_CREAT | fsc.O_EXCL | (fsc.O_NOFOLLOW ?? 0);

function notALock(file: string, st?: Stats): ToolError {
  const kind = st ? fileKind(st) : 'a symbolic link';
  // a folder needs -r; a link is removed itself, never what it points at
  const rm = st?.isDirectory() ? 'rm -r' : 'rm';
  return new ToolError(
    'io',
    `cannot take the edit lock: ${file} is ${kind}, not a lock file; nothing was changed. Remove it (${rm} ${JSON.stringify(file)}) and retry.`,
    { lock: file, kind },
  );
}

function parseRecord(text: string): LockRecord | undefined {
  try {
    const r = JSON.parse(text) as Partial<LockRecord>;
    if (typeof r.pid === 'number' && typeof r.token === 'string' && typeof r.host === 'string' && typeof r.path === 'string') {
      return {
        pid: r.pid,
        start: Number(r.start) || 0,
        host: r.host,
        token: r.token,
        path: r.path,
        since: Number(r.since) || 0,
        pidns: typeof r.pidns === 'string' ? r.pidns : '',
      };
    }
  } catch {
    // not JSON: being written, or torn
  }
  return undefined;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
