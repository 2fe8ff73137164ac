/**
 * The be-apply journal: first written before any temp file of a batch exists, naming each target's temp (the
 * staging journal: a crash while staging leaves no temp it does not name), then replaced, synced, once every temp
 * is staged and before the first rename, and deleted after the last one. It names each target, its staged temp, the hashes of its bytes before and after and
 * the inverse splice that turns the new bytes back into the old ones. A server that finds the journal of a dead
 * process at start (recover) finishes the batch when every missing rename still has its temp, else undoes the
 * renames that happened: all old files or all new ones, never a mix. Kept outside the workspace, 0600 in 0700.
 * At recovery a journal is untrusted input (journalFormat.ts): every path in it goes through the sandbox at the
 * moment of use, and a journal naming files outside this server's roots belongs to another root's server (a shared
 * history folder): it is left in place for that server.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { writeFileAtomic } from '../../../files/atomicWrite';
import { errnoCode, errorText, isToolError, ToolError } from '../../../errors';
import type { FileStore, StagedWrite } from '../../../files/fileStore';
import { currentOwner, isOwnerAlive, type ProcessOwner } from '../../../files/processIdentity';
import type { Sandbox } from '../../../files/sandbox';
import { applyInverse, spliceBetween } from '../../../history/splice';
import { sha256Hex } from '../../../util/sha256';
import { randomHex } from '../../../util/ids';
import { readRegularFile } from '../../../files/regularFile';
import { readStateFile } from '../../../files/stateFile';
import { tempPathFor } from '../../../files/tempFiles';
import type { BatchJournal, JournalHandle, JournalIntent } from '../commit';
import { withLocks } from '../locks';
import { isOwnTemp, JOURNAL_NAME_RE, MAX_JOURNAL_BYTES, parseJournal, type JournalFile, type JournalFileEntry, type StagingJournal } from './journalFormat';

export interface RecoveryReport {
  completed: number;
  undone: number;
  /** files left as they were because they match neither the old nor the new bytes (changed by someone else) */
  skipped: string[];
}

export interface RecoveryPorts {
  /** The raw disk store (no decoding): journal hashes and splices are of the bytes on disk. */
  files: FileStore;
  sandbox: Sandbox;
  log?: (message: string) => void;
  /** Is the journal's writer still running (default: its pid and start time)? Tests recover their own. */
  isAlive?: (owner: ProcessOwner) => Promise<boolean>;
}

export class ApplyJournal implements BatchJournal {
  constructor(readonly dir: string) {}

  /**
   * Before staging: the journal names the temp each target will be staged to (not synced: a kill keeps it in the
   * page cache, and a temp a power cut orphans is a dead writer's, which the next write in its folder removes).
   */
  async intend(targets: readonly string[]): Promise<JournalIntent> {
    await fs.mkdir(this.dir, { recursive: true, mode: 0o700 });
    const id = randomHex(6);
    const temps = targets.map((t) => tempPathFor(t));
    const body: StagingJournal = { v: 1, id, owner: currentOwner(), created_ms: Date.now(), staging: true, files: targets.map((target, i) => ({ target, temp: temps[i] })) };
    const file = this.fileOf(id);
    await writeFileAtomic(file, JSON.stringify(body), { mode: 0o600, fsync: false });
    return { temps, begin: (staged) => this.write(id, staged), drop: () => removeJournal(file) };
  }

  private fileOf(id: string): string {
    return path.join(this.dir, `apply-${id}.json`);
  }

  private async write(id: string, staged: readonly StagedWrite[]): Promise<JournalHandle> {
    const files = staged.map((s): JournalFileEntry => {
      if (s.before === undefined) throw new ToolError('invalid_argument', `apply: ${s.target} was staged without its expected content`);
      const undo = spliceBetween(s.before ?? new Uint8Array(0), s.after);
      return {
        target: s.target,
        ...(s.tempPath ? { temp: s.tempPath } : {}),
        before_sha256: s.before === null ? null : sha256Hex(s.before),
        after_sha256: sha256Hex(s.after),
        offset: undo.offset,
        inserted_length: undo.insertedLength,
        removed_b64: undo.removed.toString('base64'),
      };
    });
    const body: JournalFile = { v: 1, id, owner: currentOwner(), created_ms: Date.now(), files };
    const file = this.fileOf(id);
    await writeFileAtomic(file, JSON.stringify(body), { mode: 0o600, fsync: true });
    return { id, finish: () => removeJournal(file) };
  }

  /** Does a journal of `owner` (a dead writer) remain? Its temps are then kept for the recovery that needs them. */
  async hasJournalOf(owner: ProcessOwner): Promise<boolean> {
    const names = await fs.readdir(this.dir).catch(() => [] as string[]);
    for (const name of names) {
      if (!JOURNAL_NAME_RE.test(name)) continue;
      const read = await readStateFile(path.join(this.dir, name), MAX_JOURNAL_BYTES);
      const j = read.ok ? parseJournal(read.text, name) : undefined;
      if (j && typeof j !== 'string' && j.owner.pid === owner.pid && (owner.start === 0 || j.owner.start === owner.start)) return true;
    }
    return false;
  }

  /** At start: finish or undo the batches of dead processes. A live owner's journal is left alone. */
  async recover(ports: RecoveryPorts): Promise<RecoveryReport> {
    const report: RecoveryReport = { completed: 0, undone: 0, skipped: [] };
    let names: string[];
    try {
      names = await fs.readdir(this.dir);
    } catch (e) {
      if (errnoCode(e) === 'ENOENT') return report;
      throw e;
    }
    for (const name of names) {
      const full = path.join(this.dir, name);
      if (name.startsWith('.tmp-')) {
        await fs.unlink(full).catch(() => undefined); // a journal that was never complete: its batch never renamed
        continue;
      }
      if (!JOURNAL_NAME_RE.test(name)) continue;
      // lstat + O_NOFOLLOW | O_NONBLOCK + fstat: a FIFO or a link planted here is never opened (startup never hangs)
      const read = await readStateFile(full, MAX_JOURNAL_BYTES);
      if (!read.ok) {
        if (read.kind !== 'missing') ports.log?.(`be-apply journal ${full} was not read: ${read.reason}; left in place`);
        continue;
      }
      const journal = parseJournal(read.text, name);
      if (typeof journal === 'string') {
        ports.log?.(`be-apply journal ${full} is not valid (${journal}); left in place, nothing touched`);
        continue;
      }
      if (await (ports.isAlive ?? isOwnerAlive)(journal.owner)) continue;
      let outcome: Outcome;
      try {
        outcome = await recoverOne(journal, ports);
      } catch (e) {
        ports.log?.(`be-apply journal ${full} could not be recovered (${errorText(e)}); left in place`);
        continue;
      }
      if (outcome.kind === 'foreign') continue; // another root's batch: its own server recovers it
      if (outcome.kind === 'completed') report.completed++;
      else if (outcome.kind === 'undone') report.undone++;
      report.skipped.push(...outcome.skipped);
      await fs.unlink(full).catch(() => undefined);
    }
    return report;
  }
}

async function removeJournal(file: string): Promise<void> {
  await fs.unlink(file).catch((e) => {
    if (errnoCode(e) !== 'ENOENT') throw e;
  });
}

type FileState = { entry: JournalFileEntry; bytes: Buffer | undefined; state: 'old' | 'new' | 'other' };

async function readOrUndefined(files: FileStore, abs: string): Promise<Buffer | undefined> {
  try {
    return (await files.read(abs)).bytes;
  } catch (e) {
    if (isToolError(e) && e.code === 'not_found') return undefined;
    throw e;
  }
}

/** The temp's bytes when it is one of ours, inside the roots now, a regular file (never followed) and intact. */
async function intactTemp(entry: JournalFileEntry, owner: ProcessOwner, sandbox: Sandbox): Promise<Buffer | undefined> {
  if (!entry.temp || !(await ownTempInside(entry, owner, sandbox))) return undefined;
  const bytes = await readRegularFile(entry.temp).catch(() => undefined);
  return bytes !== undefined && sha256Hex(bytes) === entry.after_sha256 ? bytes : undefined;
}

async function ownTempInside(entry: { target: string; temp?: string }, owner: ProcessOwner, sandbox: Sandbox): Promise<boolean> {
  if (!entry.temp || !isOwnTemp(entry.target, entry.temp, owner)) return false;
  return (await sandbox.resolveForWrite(entry.temp).catch(() => undefined)) === entry.temp;
}

type Outcome = { kind: 'completed' | 'undone' | 'foreign'; skipped: string[] };

async function recoverOne(journal: JournalFile | StagingJournal, ports: RecoveryPorts): Promise<Outcome> {
  const { files, sandbox } = ports;
  const targets: string[] = [];
  for (const e of journal.files) {
    // the Sandbox decides at the moment of use: a journal naming a path outside the roots touches nothing
    const abs = await sandbox.resolveForWrite(e.target).catch(() => undefined);
    if (abs !== e.target) {
      ports.log?.(`be-apply journal ${journal.id}: ${e.target} is not inside this server's roots; left for the server of its root`);
      return { kind: 'foreign', skipped: [] };
    }
    targets.push(abs);
  }
  // still staging: nothing was renamed; only its temps (ours, checked now) go
  if ('staging' in journal) {
    for (const e of journal.files) if (await ownTempInside(e, journal.owner, sandbox)) await fs.unlink(e.temp).catch(() => undefined);
    return { kind: 'undone', skipped: [] };
  }
  // The staged temps are read before the locks are taken: breaking the dead owner's locks sweeps its temps.
  const temps = new Map<JournalFileEntry, Buffer | undefined>();
  for (const e of journal.files) temps.set(e, await intactTemp(e, journal.owner, sandbox));
  return withLocks(files, targets, async () => {
    const states: FileState[] = [];
    for (const entry of journal.files) {
      const bytes = await readOrUndefined(files, entry.target);
      const hash = bytes === undefined ? null : sha256Hex(bytes);
      const state = hash === entry.after_sha256 ? 'new' : hash === entry.before_sha256 ? 'old' : 'other';
      states.push({ entry, bytes, state });
    }
    const skipped = states.filter((s) => s.state === 'other').map((s) => s.entry.target);
    const pending = states.filter((s) => s.state === 'old');
    let kind: 'completed' | 'undone' = 'completed';
    // finish the batch when every file not renamed yet still had its staged temp, intact
    if (pending.length > 0 && pending.every((s) => temps.get(s.entry) !== undefined)) {
      for (const s of pending) await files.write(s.entry.target, temps.get(s.entry)!, { expectedContent: s.bytes ?? null, mkdirs: true });
    } else if (pending.length > 0) {
      kind = 'undone';
      for (const s of states.filter((x) => x.state === 'new')) {
        if (s.entry.before_sha256 === null) {
          await files.remove(s.entry.target);
          continue;
        }
        const removed = Buffer.from(s.entry.removed_b64, 'base64');
        const old = applyInverse(s.bytes!, { offset: s.entry.offset, removed, insertedLength: s.entry.inserted_length });
        await files.write(s.entry.target, old, { expectedContent: s.bytes! });
      }
    }
    // only temps of ours, checked again now; unlink removes a name, never what a link points to
    for (const e of journal.files) if (await ownTempInside(e, journal.owner, sandbox)) await fs.unlink(e.temp!).catch(() => undefined);
    return { kind, skipped };
  });
}
