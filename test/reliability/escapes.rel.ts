/**
 * Escapes from the roots through be-trx rollback and the overview readers, raced against links put on the
 * path: after the edit / after the first overview (every kind of swap, with and without force), and while a
 * child process flips a folder or a file between the real one and a link to an outside one. Outside files are
 * watched three ways: their bytes and mtime (writes), inotify events on the folder (even a temp file that came
 * and went), and their atime, set older than their mtime so that any read of their bytes moves it (relatime).
 * Also: two real servers sharing one history folder never roll back each other's project.
 *
 *   npm run test:reliability -- --grep escapes
 */
import assert from 'node:assert/strict';
import { fork, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { RepoMap } from '../../src/core/context/repoMap';
import { NodeFileStore } from '../../src/core/files/nodeFileStore';
import { Sandbox } from '../../src/core/files/sandbox';
import { HistoryStore } from '../../src/core/history/node/store';
import { spliceBetween } from '../../src/core/history/splice';
import { sha256Hex } from '../../src/core/util/sha256';
import { call, stdioClient, tmpWorkspace, type Connected, type Workspace } from '../mcp/helpers';
import { figure } from './figures';
import { getTokenizer } from '../../src/core/memory/node/tokenizer';
import { diskReader } from '../../src/core/context/node/readWalked';
import { diskWalker } from '../../src/core/context/node/walk';

const posixOnly = process.platform === 'win32' ? describe.skip : describe;
const OUTSIDE_DATA = 'IMPORTANT OUTSIDE DATA\n';
const MARKER = 'outsideMarkerFunction';
const OLD_ATIME = new Date(1_000_000);

/** Deterministic races per kind of swap and force value; concurrent races per flipper mode. Bounded in time too. */
const ROLLBACK_RUNS = 40;
const OVERVIEW_RUNS = 25;
const FLIP_RUNS = 150;
/** Each test's own time budget, counted from its start; the first MIN_RUNS races of a loop run whatever the clock. */
const TIME_BUDGET_MS = 40_000;
const MIN_RUNS = 6;

/** An outside folder whose files must neither be read nor written, and the evidence if they were. */
class OutsideGuard {
  private events = 0;
  private watcher: fs.FSWatcher | undefined;
  private reads = 0;
  private readonly expected = new Map<string, { hash: string; mtimeMs: number }>();

  constructor(readonly dir: string) {}

  /** Writes the files (bytes by name), makes their atime older than their mtime, starts watching. */
  arm(files: Record<string, string>): void {
    fs.mkdirSync(this.dir, { recursive: true });
    for (const [name, text] of Object.entries(files)) {
      const p = path.join(this.dir, name);
      fs.mkdirSync(path.dirname(p), { recursive: true });
      fs.writeFileSync(p, text);
      fs.utimesSync(p, OLD_ATIME, new Date());
      const st = fs.statSync(p);
      this.expected.set(name, { hash: createHash('sha256').update(text).digest('hex'), mtimeMs: st.mtimeMs });
    }
    this.watch();
  }

  private watch(): void {
    this.watcher = fs.watch(this.dir, { recursive: true }, () => this.events++);
  }

  /** Between two races: true when an outside file was read since the last look (its atime is reset, unwatched). */
  readSinceLastLook(): boolean {
    let read = false;
    for (const name of this.expected.keys()) {
      const p = path.join(this.dir, name);
      const st = fs.lstatSync(p, { throwIfNoEntry: false });
      if (st && st.atimeMs !== OLD_ATIME.getTime()) {
        read = true;
        this.watcher?.close();
        fs.utimesSync(p, OLD_ATIME, st.mtime);
      }
    }
    if (read) {
      this.reads++;
      return true;
    }
    return false;
  }

  /** Restart the watch after readSinceLastLook() reset an atime (its own event is not a write). */
  async rewatch(): Promise<void> {
    await new Promise((r) => setTimeout(r, 30));
    this.watcher?.close();
    this.watch();
  }

  /** What happened outside since arm(): reads (atime moved), writes (bytes, mtime, names, inotify events). */
  async verdict(): Promise<{ reads: number; writes: number; details: string[] }> {
    await new Promise((r) => setTimeout(r, 30)); // let inotify deliver
    const details: string[] = [];
    let reads = 0;
    let writes = 0;
    const names = (fs.readdirSync(this.dir, { recursive: true }) as string[]).filter((n) => fs.lstatSync(path.join(this.dir, n)).isFile()).sort();
    if (names.join('/') !== [...this.expected.keys()].sort().join('/')) {
      writes++;
      details.push(`names changed: ${names.join(', ')}`);
    }
    for (const [name, want] of this.expected) {
      const p = path.join(this.dir, name);
      const st = fs.lstatSync(p, { throwIfNoEntry: false });
      if (!st) continue; // counted with the names
      if (st.atimeMs !== OLD_ATIME.getTime()) {
        reads++;
        details.push(`${name} was read`);
      }
      if (st.mtimeMs !== want.mtimeMs) {
        writes++;
        details.push(`${name} mtime changed`);
      }
    }
    // bytes last: reading them moves the atime (checked above)
    for (const [name, want] of this.expected) {
      const p = path.join(this.dir, name);
      if (!fs.existsSync(p)) continue;
      if (createHash('sha256').update(fs.readFileSync(p)).digest('hex') !== want.hash) {
        writes++;
        details.push(`${name} bytes changed to ${JSON.stringify(fs.readFileSync(p, 'utf8').slice(0, 40))}`);
      }
    }
    if (this.events > 0) {
      writes++;
      details.push(`${this.events} inotify event(s) in the outside folder`);
    }
    this.watcher?.close();
    return { reads, writes, details };
  }
}

/** An edit as EditService records one (write, then the inverse splice of the real path). */
async function recordEdit(store: HistoryStore, file: string, next: string): Promise<void> {
  const before = fs.existsSync(file) ? fs.readFileSync(file) : undefined;
  const after = Buffer.from(next);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, after);
  await store.record({
    tool: 'be-write',
    file,
    summary: 'race',
    created: before === undefined,
    ...spliceBetween(before ?? Buffer.alloc(0), after),
    afterHash: sha256Hex(after),
    afterSize: after.length,
  });
}

/**
 * A child process that flips `target` between itself and a link to `link` as fast as it can while running;
 * paused, the real one is in place. Messages: run / pause (answered when the real one is back) / exit.
 */
const FLIPPER = `
const fs = require('fs');
const [target, link] = process.argv.slice(-2);
const away = target + '.away';
let running = false, flips = 0;
function restore() {
  if (!fs.existsSync(away)) return; // the real one is in place
  try { if (fs.lstatSync(target).isSymbolicLink()) fs.unlinkSync(target); } catch {}
  fs.renameSync(away, target);
}
function burst() {
  if (!running) return;
  for (let i = 0; i < 50; i++) {
    try { fs.renameSync(target, away); fs.symlinkSync(link, target); flips++; fs.unlinkSync(target); fs.renameSync(away, target); } catch {}
  }
  setImmediate(burst);
}
process.on('message', (m) => {
  if (m === 'run') { running = true; process.send('running'); setImmediate(burst); }
  else if (m === 'pause') { running = false; restore(); process.send({ paused: flips }); }
  else if (m === 'exit') { restore(); process.exit(0); }
});
process.send('ready');
`;

class Flipper {
  private constructor(private readonly child: ChildProcess) {}
  flips = 0;

  static async start(target: string, link: string, dir: string): Promise<Flipper> {
    const script = path.join(dir, 'flipper.cjs');
    fs.writeFileSync(script, FLIPPER);
    const child = fork(script, [target, link], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
    const f = new Flipper(child);
    await f.next();
    return f;
  }

  private next(): Promise<unknown> {
    return new Promise((resolve) => this.child.once('message', resolve));
  }

  async run(): Promise<void> {
    this.child.send('run');
    await this.next();
  }

  async pause(): Promise<void> {
    this.child.send('pause');
    const m = (await this.next()) as { paused: number };
    this.flips = m.paused;
  }

  async exit(): Promise<void> {
    const done = new Promise((r) => this.child.once('exit', r));
    this.child.send('exit');
    await done;
  }
}

posixOnly('escapes: rollback and overview raced against links (no byte outside the roots read or written)', function () {
  this.timeout(240_000);
  let base: string;
  const totals = { rollbackRaces: 0, overviewRaces: 0, reads: 0, writes: 0, otherProject: 0 };
  let failures: string[] = [];
  // Counted from each test's start: counted from the file's load, the suites run before this one used it up and a
  // loop could run no race at all (CI: 0 flips during the overview races).
  let started = Date.now();
  const inBudget = (i: number) => i < MIN_RUNS || Date.now() - started < TIME_BUDGET_MS;

  before(() => {
    base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'bet-escapes-')));
  });
  beforeEach(() => {
    failures = [];
    started = Date.now();
  });
  after(() => {
    fs.rmSync(base, { recursive: true, force: true });
    figure('escapes: rollback races', totals.rollbackRaces, '≥ 300 (with the overview ones: a few hundred)');
    figure('escapes: overview races', totals.overviewRaces, '≥ 150');
    figure('escapes: races that read outside bytes', totals.reads, '0');
    figure('escapes: races that wrote outside', totals.writes, '0');
  });

  function tally(kind: 'rollbackRaces' | 'overviewRaces', label: string, v: { reads: number; writes: number; details: string[] }): void {
    totals[kind]++;
    if (v.reads) totals.reads++;
    if (v.writes) totals.writes++;
    if (v.reads || v.writes) failures.push(`${label}: ${v.details.join('; ')}`);
  }

  let n = 0;
  function fresh(): { root: string; outside: string; history: string } {
    const dir = path.join(base, `r${n++}`);
    const root = path.join(dir, 'root');
    fs.mkdirSync(path.join(root, 'sub', 'deep'), { recursive: true });
    return { root, outside: path.join(dir, 'outside'), history: path.join(dir, 'history') };
  }

  /** Each swap: what it does to the workspace after the edit was recorded. */
  const SWAPS: { name: string; file: string; created: boolean; outsideFile?: string; swap: (root: string, outside: string) => void }[] = [
    { name: 'file replaced by a link to an outside file', file: 'a.txt', created: false, swap: (r, o) => (fs.rmSync(path.join(r, 'a.txt')), fs.symlinkSync(path.join(o, 'a.txt'), path.join(r, 'a.txt'))) },
    { name: 'folder replaced by a link', file: 'sub/a.txt', created: false, swap: (r, o) => (fs.rmSync(path.join(r, 'sub'), { recursive: true }), fs.symlinkSync(o, path.join(r, 'sub'))) },
    { name: 'grandparent folder replaced by a link', file: 'sub/deep/a.txt', created: false, outsideFile: 'deep/a.txt', swap: (r, o) => (fs.rmSync(path.join(r, 'sub'), { recursive: true }), fs.symlinkSync(o, path.join(r, 'sub'))) },
    { name: 'created file, folder replaced by a link', file: 'sub/a.txt', created: true, swap: (r, o) => (fs.rmSync(path.join(r, 'sub'), { recursive: true }), fs.symlinkSync(o, path.join(r, 'sub'))) },
    { name: 'file replaced by a link to an inside link to outside', file: 'a.txt', created: false, swap: (r, o) => (fs.rmSync(path.join(r, 'a.txt')), fs.symlinkSync(path.join(o, 'a.txt'), path.join(r, 'hop')), fs.symlinkSync(path.join(r, 'hop'), path.join(r, 'a.txt'))) },
  ];

  it('rollback after a link was put on the path, every swap, with and without force', async () => {
    const files = new NodeFileStore();
    for (const s of SWAPS) {
      for (const force of [false, true]) {
        for (let i = 0; i < ROLLBACK_RUNS && inBudget(i); i++) {
          const { root, outside, history } = fresh();
          const store = await HistoryStore.open({ dir: history, files, sandbox: new Sandbox([root]) });
          const file = path.join(root, s.file);
          if (!s.created) fs.writeFileSync(file, 'x0\n');
          await recordEdit(store, file, 'x1\n');
          // the outside file holds the edit's bytes when that makes the undo look valid (no force needed)
          const guard = new OutsideGuard(outside);
          guard.arm({ [s.outsideFile ?? 'a.txt']: force ? OUTSIDE_DATA : 'x1\n' });
          s.swap(root, outside);
          const r = await store.rollback(1, force);
          const v = await guard.verdict();
          if (r.rolled_back !== 0) v.details.push('the rollback went ahead');
          tally('rollbackRaces', `${s.name} (force ${force})`, v);
        }
      }
    }
    assert.deepEqual(failures, []);
  });

  it('rollback while a child process flips the folder (or the file) to a link and back', async () => {
    const files = new NodeFileStore();
    let flips = 0;
    let landed = 0;
    let readRaces = 0;
    for (const mode of ['folder', 'file'] as const) {
      const { root, outside, history } = fresh();
      const store = await HistoryStore.open({ dir: history, files, sandbox: new Sandbox([root]) });
      const guard = new OutsideGuard(outside);
      guard.arm({ 'a.txt': 'x1\n' });
      const target = mode === 'folder' ? path.join(root, 'sub') : path.join(root, 'sub', 'a.txt');
      const flipper = await Flipper.start(target, mode === 'folder' ? outside : path.join(outside, 'a.txt'), path.dirname(root));
      try {
        for (let i = 0; i < FLIP_RUNS / 2 && inBudget(i); i++) {
          const file = path.join(root, 'sub', 'a.txt');
          // every third race undoes a creation (a remove), the others an edit (a write)
          if (i % 3 === 2) fs.rmSync(file, { force: true });
          else fs.writeFileSync(file, 'x0\n');
          await recordEdit(store, file, 'x1\n');
          await flipper.run();
          const r = await store.rollback(1, i % 2 === 1);
          await flipper.pause();
          landed += r.rolled_back;
          if (r.rolled_back === 0) await store.commit(); // the next race starts from one snapshot
          totals.rollbackRaces++;
          if (guard.readSinceLastLook()) {
            readRaces++;
            await guard.rewatch();
          }
        }
        flips += flipper.flips;
      } finally {
        await flipper.exit();
      }
      const v = await guard.verdict();
      if (v.writes) totals.writes++;
      if (v.writes) failures.push(`flipping ${mode} during rollbacks: ${v.details.join('; ')}`);
    }
    totals.reads += readRaces;
    // The read is the FileStore's (NodeFileStore.read opens the path following links); the rollback refuses the bytes
    // afterwards. With a read that proves where it opened (readConfinedFile in core/files/regularFile.ts) this is 0.
    if (readRaces) failures.push(`${readRaces} rollback race(s) read outside bytes in FileStore.read (never used: the post-read check refused them)`);
    figure('escapes: rollbacks that landed while the flipper ran', landed, 'any (the rest refused)');
    figure('escapes: flips during rollback races', flips, '> 0');
    assert.ok(flips > 0);
    assert.deepEqual(failures, []);
  });

  it('overview after a link appeared since the first overview (watched and walked)', async () => {
    const outsideTs = `export function ${MARKER}(): string {\n  return 'secret';\n}\n`;
    const SETUPS: { name: string; change: (root: string, outside: string) => string }[] = [
      { name: 'new link to an outside file', change: (r, o) => (fs.symlinkSync(path.join(o, 'a.ts'), path.join(r, 'sub', 'leak.ts')), path.join(r, 'sub', 'leak.ts')) },
      { name: 'folder replaced by a link', change: (r, o) => (fs.rmSync(path.join(r, 'sub'), { recursive: true }), fs.symlinkSync(o, path.join(r, 'sub')), path.join(r, 'sub', 'a.ts')) },
      { name: 'known file replaced by a link', change: (r, o) => (fs.rmSync(path.join(r, 'sub', 'a.ts')), fs.symlinkSync(path.join(o, 'a.ts'), path.join(r, 'sub', 'a.ts')), path.join(r, 'sub', 'a.ts')) },
    ];
    for (const s of SETUPS) {
      for (const watched of [true, false]) {
        for (let i = 0; i < OVERVIEW_RUNS && inBudget(i); i++) {
          const { root, outside } = fresh();
          fs.writeFileSync(path.join(root, 'sub', 'a.ts'), 'export function insideOne(): number {\n  return 1;\n}\n');
          const map = new RepoMap(root, { tokenizer: getTokenizer(), reader: diskReader, walker: diskWalker });
          await map.overview();
          map.setWatched(watched);
          const guard = new OutsideGuard(outside);
          guard.arm({ 'a.ts': outsideTs });
          map.invalidate(s.change(root, outside));
          const o = await map.overview({ budget: 4000 });
          const v = await guard.verdict();
          if (o.text.includes(MARKER)) {
            v.reads++;
            v.details.push('outside function name in the overview');
          }
          tally('overviewRaces', `${s.name} (watched ${watched})`, v);
        }
      }
    }
    assert.deepEqual(failures, []);
  });

  it('overviews while a child process flips a folder (or a file) to a link and back', async () => {
    let flips = 0;
    for (const mode of ['folder', 'file'] as const) {
      const { root, outside } = fresh();
      fs.writeFileSync(path.join(root, 'sub', 'a.ts'), 'export function insideOne(): number {\n  return 1;\n}\n');
      const map = new RepoMap(root, { tokenizer: getTokenizer(), reader: diskReader, walker: diskWalker });
      await map.overview();
      const guard = new OutsideGuard(outside);
      guard.arm({ 'a.ts': `export function ${MARKER}(): void {}\n` });
      const target = mode === 'folder' ? path.join(root, 'sub') : path.join(root, 'sub', 'a.ts');
      const flipper = await Flipper.start(target, mode === 'folder' ? outside : path.join(outside, 'a.ts'), path.dirname(root));
      try {
        for (let i = 0; i < FLIP_RUNS / 2 && inBudget(i); i++) {
          map.setWatched(i % 2 === 0);
          // a newer mtime each time, so the walk re-reads the file as well as the watcher path
          fs.utimesSync(path.join(root, 'sub', 'a.ts'), new Date(), new Date(Date.now() + i * 1000));
          map.invalidate(path.join(root, 'sub', 'a.ts'));
          await flipper.run();
          const o = await map.overview({ budget: 4000 });
          await flipper.pause();
          totals.overviewRaces++;
          if (o.text.includes(MARKER)) {
            totals.reads++;
            failures.push(`flipping ${mode}: outside function name in the overview`);
          }
        }
        flips += flipper.flips;
      } finally {
        await flipper.exit();
      }
      const v = await guard.verdict();
      if (v.reads) totals.reads++;
      if (v.writes) totals.writes++;
      if (v.reads || v.writes) failures.push(`flipping ${mode} during overviews: ${v.details.join('; ')}`);
    }
    figure('escapes: flips during overview races', flips, '> 0');
    assert.ok(flips > 0);
    assert.deepEqual(failures, []);
  });

  it("two servers sharing one history folder never roll back each other's project", async function () {
    this.timeout(120_000);
    const wsA: Workspace = await tmpWorkspace();
    const wsB: Workspace = await tmpWorkspace();
    const shared = path.join(base, 'shared-history');
    wsA.historyDir = shared;
    wsB.historyDir = shared;
    let a: Connected | undefined;
    let b: Connected | undefined;
    const ROUNDS = 10;
    let crossed = 0;
    try {
      [a, b] = await Promise.all([stdioClient(wsA), stdioClient(wsB)]);
      for (let round = 0; round < ROUNDS; round++) {
        await wsA.write('a.txt', `a${round}\n`);
        await wsB.write('b.txt', `b${round}\n`);
        // both edit at once, then B rolls back everything it can (force): only B's file may change
        await Promise.all([
          call(a.client, 'be-write', { file: 'a.txt', content: `A${round}\n` }),
          call(b.client, 'be-write', { file: 'b.txt', content: `B${round}\n` }),
          call(b.client, 'be-write', { file: 'b-new.txt', content: 'created\n' }),
        ]);
        const rb = await call(b.client, 'be-trx', { action: 'rollback', step: 100, force: true });
        if ((await wsA.read('a.txt')).toString() !== `A${round}\n`) crossed++;
        assert.equal((await wsB.read('b.txt')).toString(), `b${round}\n`, JSON.stringify(rb));
        const st = await call(a.client, 'be-trx', { action: 'status' });
        if (st.queue.used !== 1) crossed++;
        await call(a.client, 'be-trx', { action: 'rollback', step: 100 });
        assert.equal((await wsA.read('a.txt')).toString(), `a${round}\n`);
        await call(b.client, 'be-trx', { action: 'commit' });
        if ((await call(a.client, 'be-trx', { action: 'status' })).queue.used !== 0) crossed++;
      }
    } finally {
      await Promise.all([a?.close(), b?.close()]);
      await Promise.all([wsA.dispose(), wsB.dispose()]);
    }
    totals.otherProject = crossed;
    figure('escapes: shared history folder, rounds', ROUNDS, '10');
    figure('escapes: rollbacks/statuses that touched the other project', crossed, '0');
    assert.equal(crossed, 0);
  });
});
