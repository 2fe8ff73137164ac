/**
 * Every safety step of an edit, seen in the calls it makes to the file system (a spy on node:fs's promises and
 * file handles, in this process): the lock file created exclusively and removed after; the temp written and
 * fsynced before the rename; the file read again under the lock (the byte-compare) before the rename; the folder
 * fsynced and the file read back after it. The edit path is tuned for fewer calls: these fail if a step is lost
 * in that tuning, and the budget fails if calls creep back. Single edits and a be-apply batch.
 */
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createRequire } from 'node:module';
import { createServices, type Services } from '../../../src/mcp/services';
import { usePoolOnly } from '../../../src/core/files/fsCalls';

interface Call {
  op: string;
  /** the path named, or the path the descriptor was opened at */
  at: string;
  flags?: number;
  /** a trip through the thread pool (node:fs's promises and callbacks), or a call made at once (its Sync form) */
  via: 'pool' | 'direct';
}

interface Spy {
  calls: Call[];
  on: () => void;
  off: () => void;
}

/** A descriptor opened before the spy (one kept open between edits): its path as /proc tells it, on Linux. */
function openedBefore(fd: number): string {
  try {
    return fs.readlinkSync(`/proc/self/fd/${fd}`);
  } catch {
    return `fd ${fd}`;
  }
}

/**
 * Records fs calls (at their start) while on; `off()` stops and restores everything. Both kinds: node:fs's promises
 * and file handles (trips through the thread pool), and the direct calls of a local file system (fsCalls.ts: the Sync
 * forms, and the callback forms it sends through the pool), named alike (`open`, `fh.read`, ...) with `via`.
 */
async function spy(): Promise<Spy> {
  const calls: Call[] = [];
  let recording = false;
  // a Sync call made by another (writeFileSync's writeSync) is not a call of its own
  let inside = 0;
  const fdPath = new Map<number, string>();
  const restore: (() => void)[] = [];
  const fsp = fs.promises as unknown as Record<string, unknown>;
  // the module itself (the namespace import's properties are getters of it)
  const fsm = createRequire(__filename)('node:fs') as Record<string, unknown>;
  const wrap = (obj: Record<string, unknown>, name: string, via: Call['via'], describe: (self: { fd?: number }, args: unknown[]) => Omit<Call, 'via'>) => {
    const orig = obj[name] as (...a: unknown[]) => unknown;
    obj[name] = function (this: { fd?: number }, ...args: unknown[]) {
      if (recording && inside === 0) calls.push({ ...describe(this, args), via });
      // a handle's calls are named by the path it was opened at
      if (obj === fsm && name === 'open') {
        const cb = args[args.length - 1] as (e: unknown, fd?: number) => void;
        args[args.length - 1] = (e: unknown, fd?: number) => {
          if (fd !== undefined) fdPath.set(fd, String(args[0]));
          cb(e, fd);
        };
      }
      inside++;
      let result: unknown;
      try {
        result = orig.apply(this, args);
      } finally {
        inside--;
      }
      if (obj === fsp && name === 'open') void (result as Promise<{ fd: number }>).then((fh) => fdPath.set(fh.fd, String(args[0])), () => undefined);
      if (obj === fsm && name === 'openSync') fdPath.set(result as number, String(args[0]));
      return result;
    };
    restore.push(() => (obj[name] = orig));
  };
  const opened = (_: unknown, a: unknown[]) => ({ op: 'open', at: String(a[0]), flags: typeof a[1] === 'number' ? a[1] : undefined });
  const atFd = (fd: unknown) => fdPath.get(fd as number) ?? openedBefore(fd as number);
  wrap(fsp, 'open', 'pool', opened);
  for (const n of ['rename', 'unlink', 'lstat', 'realpath', 'readlink', 'readdir', 'mkdir', 'stat', 'statfs']) wrap(fsp, n, 'pool', (_, a) => ({ op: n, at: String(a[0]) }));
  // a link is named by the name it makes
  wrap(fsp, 'link', 'pool', (_, a) => ({ op: 'link', at: String(a[1]) }));
  // the FileHandle class is not exported: its prototype from a handle
  const h = await fs.promises.open(os.devNull, 'r');
  const proto = Object.getPrototypeOf(h) as Record<string, unknown>;
  await h.close();
  for (const n of ['sync', 'datasync', 'read', 'write', 'writev', 'writeFile', 'stat', 'chmod', 'close']) {
    wrap(proto, n, 'pool', (self) => ({ op: `fh.${n}`, at: atFd(self.fd ?? -1) }));
  }
  // the direct calls (closes aside, as a handle's are not seen either)
  wrap(fsm, 'openSync', 'direct', opened);
  for (const n of ['rename', 'unlink', 'lstat', 'readdir']) wrap(fsm, `${n}Sync`, 'direct', (_, a) => ({ op: n, at: String(a[0]) }));
  wrap(fsm, 'linkSync', 'direct', (_, a) => ({ op: 'link', at: String(a[1]) }));
  const byFd: Record<string, string> = { readSync: 'read', writeSync: 'write', writevSync: 'writev', writeFileSync: 'writeFile', fstatSync: 'stat', fchmodSync: 'chmod', fchownSync: 'chown' };
  for (const [n, op] of Object.entries(byFd)) wrap(fsm, n, 'direct', (_, a) => (typeof a[0] === 'number' ? { op: `fh.${op}`, at: atFd(a[0]) } : { op, at: String(a[0]) }));
  // and what they send through the pool
  wrap(fsm, 'open', 'pool', opened);
  for (const n of ['rename', 'unlink']) wrap(fsm, n, 'pool', (_, a) => ({ op: n, at: String(a[0]) }));
  const byFdPool: Record<string, string> = { fsync: 'sync', read: 'read', write: 'write', writev: 'writev', fchmod: 'chmod', fchown: 'chown' };
  for (const [n, op] of Object.entries(byFdPool)) wrap(fsm, n, 'pool', (_, a) => ({ op: `fh.${op}`, at: atFd(a[0]) }));
  return {
    calls,
    on: () => void (recording = true),
    off: () => {
      recording = false;
      for (const r of restore.splice(0).reverse()) r();
    },
  };
}

/**
 * Each mode: `direct`, this machine's temp folder on a local file system, where an edit's calls but the temp's create,
 * writes and fsyncs are made at once (fsCalls.ts); `pool`, as on a file system not recognised as local (every call a
 * trip through the thread pool). The budgets: all calls, and the trips through the pool.
 */
const MODES = [
  { mode: 'direct', single: { calls: 23, pool: 6 }, apply: { calls: 19, pool: 4.5 } },
  { mode: 'pool', single: { calls: 22, pool: 22 }, apply: { calls: 19, pool: 19 } },
] as const;

for (const { mode, single, apply: applyBudget } of MODES)
describe(`core/edits: the safety steps of an edit, in its file-system calls (${mode} calls)`, () => {
  let base: string;
  let root: string;
  let services: Services;
  let s: Spy;

  before(function () {
    // direct calls are made only on Linux, in a folder on a local file system
    if (mode === 'direct' && process.platform !== 'linux') this.skip();
    usePoolOnly(mode === 'pool');
  });
  after(() => usePoolOnly(false));

  beforeEach(async () => {
    base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'bet-safety-')));
    root = path.join(base, 'ws');
    fs.mkdirSync(path.join(root, 'sub'), { recursive: true });
    const text = Array.from({ length: 60 }, (_, i) => `line ${i + 1}`).join('\n') + '\n';
    fs.writeFileSync(path.join(root, 'f.txt'), text);
    for (let i = 0; i < 3; i++) fs.writeFileSync(path.join(root, 'sub', `g${i}.txt`), text);
    services = await createServices({ roots: [root], chipDir: path.join(base, 'chips'), historyDir: path.join(base, 'history'), lockDir: path.join(base, 'locks') });
    // warm: the first edit sweeps the folder and starts the history
    await services.edits.replace({ file: 'f.txt:1', content: 'warm\n' });
    await services.apply.apply({ edits: [0, 1, 2].map((i) => ({ file: `sub/g${i}.txt:1`, content: 'warm\n' })) });
    s = await spy();
  });
  afterEach(async () => {
    s.off();
    await services.close();
    fs.rmSync(base, { recursive: true, force: true });
  });

  /** The index of the first call matching, from `from` on (-1 when none). */
  const find = (calls: Call[], pred: (c: Call) => boolean, from = 0) => calls.findIndex((c, i) => i >= from && pred(c));
  const named = (c: Call, name: string) => path.basename(c.at) === name;

  /** Asserts the steps around the rename of one file `name` in the recorded calls. */
  function assertSteps(calls: Call[], name: string): void {
    // created exclusively, or (a batch's next file in a folder) a hard link to the batch's lock file there, which
    // fails as an exclusive create does when the name exists
    const lock = find(calls, (c) => named(c, `.${name}.be-lock`) && ((c.op === 'open' && ((c.flags ?? 0) & fs.constants.O_EXCL) !== 0) || c.op === 'link'));
    assert.ok(lock >= 0, `the lock file of ${name} is created exclusively (or linked exclusively to the batch's)`);
    const temp = find(calls, (c) => c.op === 'open' && path.basename(c.at).startsWith(`.${name}.be-`) && c.at.endsWith('.tmp'), lock);
    assert.ok(temp > lock, `the temp of ${name} is made under the lock`);
    const tempPath = calls[temp]!.at;
    const rename = find(calls, (c) => c.op === 'rename' && c.at === tempPath, temp);
    assert.ok(rename > temp, `the temp of ${name} is renamed over it`);
    const synced = find(calls, (c) => c.op === 'fh.sync' && c.at === tempPath, temp);
    assert.ok(synced > temp && synced < rename, `the temp of ${name} is fsynced before the rename`);
    // the byte-compare, after the temp was written and before the rename: the entry looked at through the pinned
    // folder and the file's bytes read through the load's descriptor (or, where the entry is another inode, reopened)
    const viaPin = (c: Call) => named(c, name) && c.at.startsWith('/proc/self/fd/');
    const between = (i: number, from: number, to: number) => i > from && i < to;
    const looked = find(calls, (c) => (c.op === 'lstat' || c.op === 'open') && viaPin(c), temp);
    assert.ok(between(looked, temp, rename), `${name}'s entry is looked at again under the lock before the rename (byte-compare)`);
    const compared = find(calls, (c) => c.op === 'fh.read' && named(c, name), temp);
    assert.ok(between(compared, temp, rename), `the compare reads ${name}'s bytes before the rename`);
    // the read-back, after the rename: the entry looked at again and the bytes read (through the staged temp's
    // descriptor, whose inode the entry must be)
    const back = find(calls, (c) => (c.op === 'lstat' || c.op === 'open') && viaPin(c), rename + 1);
    assert.ok(back > rename, `${name}'s entry is looked at after the rename (read-back)`);
    assert.ok(find(calls, (c) => c.op === 'fh.read' && (c.at === tempPath || named(c, name)), rename + 1) > rename, `the read-back reads ${name}'s bytes`);
    const released = find(calls, (c) => c.op === 'unlink' && named(c, `.${name}.be-lock`), rename);
    assert.ok(released > rename, `the lock of ${name} is removed after the rename`);
  }

  /** The folder's fsync after the rename: a sync of a descriptor opened on the folder (pinned) itself. */
  function assertFolderSync(calls: Call[], dir: string): void {
    // the edited files' renames go through the pinned folder's descriptor (the history's through plain paths)
    const lastRename = calls.map((c) => (c.op === 'rename' && c.at.startsWith('/proc/self/fd/') ? 'edit' : '')).lastIndexOf('edit');
    assert.ok(lastRename >= 0, 'the edit renames its temp');
    const dirSync = find(calls, (c) => c.op === 'fh.sync' && c.at === dir, 0);
    assert.ok(dirSync >= 0, `the folder ${dir} is fsynced`);
    assert.ok(calls.slice(lastRename).some((c) => c.op === 'fh.sync' && c.at === dir), `the folder ${dir} is fsynced after the last rename`);
  }

  for (const op of ['replace', 'insert', 'delete'] as const) {
    it(`be-${op}: lock, temp fsynced, byte-compare, rename, folder fsync, read-back; within a call budget`, async () => {
      s.on();
      const r =
        op === 'replace'
          ? await services.edits.replace({ file: 'f.txt:30', content: 'changed\n' })
          : op === 'insert'
            ? await services.edits.insert({ file: 'f.txt:30', content: 'inserted\n' })
            : await services.edits.delete({ file: 'f.txt:30' });
      s.off();
      assert.equal((r as { status: string }).status, 'ok');
      assertSteps(s.calls, 'f.txt');
      assertFolderSync(s.calls, root);
      // the file's own calls (the history's and the chips' folders aside): 22 after the tuning (the compare and the read-back through the load's and the temp's descriptors, the load's stat reused for the entry the write replaces, HEAD alone asked of a folder without it, no look-up of the path itself in the git-shape check, no stat for a byte-compare that matches; closes are not seen, nor a descriptor's real path, asked of /proc synchronously)
      const own = s.calls.filter((c) => !c.at.startsWith(path.join(base, 'history')) && !c.at.startsWith(path.join(base, 'chips')));
      const listed = own.map((c) => `${c.via} ${c.op} ${c.at}`).join('\n');
      assert.ok(own.length <= single.calls, `${own.length} calls for one be-${op}:\n${listed}`);
      // direct: 6 trips through the pool (the sandbox's two look-ups, the folder's open and statfs, the temp's fsync
      // and the folder's) where every one of the 22 calls was a trip; a be-delete stages beside its chip's save and
      // fsync, as a batch stages: its temp's create and write through the pool too, 8
      const trips = own.filter((c) => c.via === 'pool').length;
      assert.ok(trips <= single.pool + (mode === 'direct' && op === 'delete' ? 2 : 0), `${trips} trips through the pool for one be-${op}:\n${listed}`);
      // the history's: a readdir, the snapshot (open, write, rename), the landed-edit log's line (a write and a stat
      // through its descriptor kept open): 6, where opening the log each time made it 7 (and a close, not seen here)
      const history = s.calls.filter((c) => c.at.startsWith(path.join(base, 'history')));
      const historyListed = history.map((c) => `${c.via} ${c.op} ${c.at}`).join('\n');
      if (process.platform === 'linux') assert.ok(history.length <= 6, `${history.length} history calls for one be-${op}:\n${historyListed}`);
      // direct: the history folder is on a local file system too, its calls made at once (none through the pool)
      const historyTrips = history.filter((c) => c.via === 'pool').length;
      assert.ok(historyTrips <= (mode === 'direct' ? 0 : 6), `${historyTrips} history trips through the pool for one be-${op}:\n${historyListed}`);
    });
  }

  it('be-apply: each file locked, compared, renamed and read back; each folder fsynced once after its renames', async () => {
    s.on();
    const r = await services.apply.apply({ edits: [0, 1, 2].map((i) => ({ file: `sub/g${i}.txt:5`, content: `batch ${i}\n` })) });
    s.off();
    assert.equal(r.files, 3);
    for (let i = 0; i < 3; i++) assertSteps(s.calls, `g${i}.txt`);
    // one lock file for the folder, each next file's lock a link to it
    assert.equal(s.calls.filter((c) => c.op === 'open' && c.at.endsWith('.be-lock')).length, 1);
    assert.equal(s.calls.filter((c) => c.op === 'link' && c.at.endsWith('.be-lock')).length, 2);
    assertFolderSync(s.calls, path.join(root, 'sub'));
    const historyWrites = s.calls.filter((c) => c.op === 'open' && c.at.startsWith(path.join(base, 'history')) && c.at.includes('.tmp-snap-'));
    assert.equal(historyWrites.length, 1, 'one history record for the batch');
  });

  it('be-apply: within a budget of calls per file (the folder resolved once, the load\'s descriptor and the temp\'s reused)', async () => {
    const FILES = 20;
    const text = Array.from({ length: 40 }, (_, i) => `line ${i + 1}`).join('\n') + '\n';
    fs.mkdirSync(path.join(root, 'many'));
    for (let i = 0; i < FILES; i++) fs.writeFileSync(path.join(root, 'many', `m${i}.txt`), text);
    const batch = (content: string) => services.apply.apply({ edits: Array.from({ length: FILES }, (_, i) => ({ file: `many/m${i}.txt:20`, content })) });
    await batch('warm\n'); // the folder's first write sweeps it
    s.on();
    const r = await batch('counted\n');
    s.off();
    assert.equal(r.files, FILES);
    // the files' own calls: the history's, the chips' and the journal's folders aside (one each per batch)
    const own = s.calls.filter((c) => c.at.startsWith(root) || c.at.startsWith('/proc/self/fd/'));
    // 23.55 a file before (a realpath per file, a reopen each for the stat, the compare and the read-back); 19.3 with
    // a lock file per file (a create and its record's write), 18.4 with a link to the folder's one (and its lstat)
    const perFile = own.length / FILES;
    const listed = own.slice(0, 40).map((c) => `${c.via} ${c.op} ${c.at}`).join('\n');
    assert.ok(perFile <= applyBudget.calls, `${perFile} calls per file:\n${listed}`);
    // direct: 4.4 trips a file (the temp's create, write and fsync, its rename beside the batch's others; the folder's
    // look-ups and statfs shared)
    const trips = own.filter((c) => c.via === 'pool').length / FILES;
    assert.ok(trips <= applyBudget.pool, `${trips} trips through the pool per file:\n${listed}`);
  });
});
