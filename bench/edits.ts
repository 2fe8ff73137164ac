/**
 * Edit latency benchmark (npm run bench:edits; not part of the test suite).
 * Per-call latency of be-replace / be-insert / be-delete on 4 KiB, 1 MiB and 10 MiB files over stdio (real SDK
 * client → node dist/cli.js, be-trx snapshots on), against @modelcontextprotocol/server-filesystem's edit_file making
 * the same change to its own copy of the same file, against the same core called in this process (no stdio), and
 * against the floor: read + splice + write + fsync + rename in this process, all four interleaved. Then a be-trx
 * rollback of one edit of the largest file against that edit, and a be-apply of 100 one-line edits of 100 small
 * files against the floor rewriting them in parallel (with the reply's size in tokens). Each figure is printed with
 * its goal. Also each server's peak RSS (VmHWM) above its idle RSS, relative to the file size.
 * BENCH_SIZES=4k,1m,10m (k: KiB, m: MiB; a bare number: MB), BENCH_RUNS=15, BENCH_WARMUP=3,
 * BENCH_OURS_ARGS="--no-memory" (extra CLI flags for ours), BENCH_APPLY=0 (only the single-edit rows and the rollback),
 * BENCH_ONLY=apply (only the be-apply rows), BENCH_CLI=path/to/cli.js (ours from another build, to compare two builds
 * in the same conditions), BENCH_BEFORE_CLI=path/to/cli.js (a second build of ours, e.g. the last commit's, as one more
 * contestant interleaved with the others: before/after in one run), BENCH_APPLY_RUNS=7 (be-apply batches per contestant).
 */
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { createServices, type Services } from '../src/mcp/services';
import { getTokenizer } from '../src/core/memory/node/tokenizer';

const REPO = path.resolve(__dirname, '..');
const OUR_CLI = process.env.BENCH_CLI ? path.resolve(process.env.BENCH_CLI) : path.join(REPO, 'dist/cli.js');
const BEFORE_CLI = process.env.BENCH_BEFORE_CLI ? path.resolve(process.env.BENCH_BEFORE_CLI) : undefined;
const FS_SERVER = path.join(REPO, 'node_modules/@modelcontextprotocol/server-filesystem/dist/index.js');
const ONLY_APPLY = process.env.BENCH_ONLY === 'apply';
const SIZES = ONLY_APPLY ? [] : (process.env.BENCH_SIZES ?? '4k,1m,10m').split(',').map(parseSize);
function parseSize(s: string): number {
  const m = /^([\d.]+)([km]?)$/i.exec(s.trim());
  if (!m) throw new Error(`BENCH_SIZES: not a size: ${s}`);
  const unit = m[2]!.toLowerCase();
  return Math.round(Number(m[1]) * (unit === 'k' ? 1024 : unit === 'm' ? 1024 * 1024 : 1_000_000));
}
function sizeLabel(n: number): string {
  if (n % (1024 * 1024) === 0) return `${n / 1024 / 1024} MiB`;
  if (n % 1024 === 0) return `${n / 1024} KiB`;
  return `${n / 1e6} MB`;
}
const WARMUP = Number(process.env.BENCH_WARMUP ?? 3);
const RUNS = Number(process.env.BENCH_RUNS ?? 15);
const OPS = ['replace', 'insert', 'delete'] as const;
type Op = (typeof OPS)[number];

function lineText(n: number): string {
  return `const value_${String(n).padStart(7, '0')} = compute(${n}, "abcdefghijklmnop");`;
}

async function makeFile(p: string, bytes: number): Promise<number> {
  const lines: string[] = [];
  let size = 0;
  for (let n = 1; size < bytes; n++) {
    const l = lineText(n) + '\n';
    lines.push(l);
    size += l.length;
  }
  await fs.writeFile(p, lines.join(''));
  return lines.length;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

async function rss(pid: number): Promise<{ rss: number; hwm: number }> {
  const status = await fs.readFile(`/proc/${pid}/status`, 'utf8');
  const kb = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN) * 1024;
  return { rss: kb('VmRSS'), hwm: kb('VmHWM') };
}

/** CPU time (user + system, all threads) of a process, in ms; clock ticks are 10 ms. */
async function cpuMs(pid: number): Promise<number> {
  const stat = await fs.readFile(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10; // utime, stime (fields 14, 15)
}

/** Waits until the process used no CPU for 300 ms (at most 15 s). */
async function quiet(pid: number): Promise<void> {
  let last = await cpuMs(pid);
  for (let i = 0; i < 50; i++) {
    await new Promise((r) => setTimeout(r, 300));
    const now = await cpuMs(pid);
    if (now === last) return;
    last = now;
  }
}

async function connect(command: string, args: string[], cwd: string): Promise<{ client: Client; pid: number }> {
  const transport = new StdioClientTransport({ command, args, cwd, stderr: 'ignore' });
  const client = new Client({ name: 'bench', version: '1' });
  await client.connect(transport);
  await client.listTools();
  return { client, pid: transport.pid! };
}

type Who = 'ours' | 'edit_file' | 'floor' | 'core' | 'before';
/** CPU ms spent per contestant and op over the measured calls (robust to a loaded machine, unlike wall time). */
const cpuTotals: Record<Who, Record<Op, number>> = {
  ours: { replace: 0, insert: 0, delete: 0 },
  edit_file: { replace: 0, insert: 0, delete: 0 },
  floor: { replace: 0, insert: 0, delete: 0 },
  core: { replace: 0, insert: 0, delete: 0 },
  before: { replace: 0, insert: 0, delete: 0 },
};
let pids: Record<'ours' | 'edit_file' | 'before', number> = { ours: 0, edit_file: 0, before: 0 };

async function timed(f: () => Promise<void>, who?: Who, op?: Op, measured = false): Promise<number> {
  const inProcess = who === 'floor' || who === 'core';
  const c0 = inProcess ? process.cpuUsage() : who ? await cpuMs(pids[who]) : 0;
  const t = performance.now();
  await f();
  const ms = performance.now() - t;
  if (who && op && measured) {
    if (inProcess) {
      const d = process.cpuUsage(c0 as NodeJS.CpuUsage);
      cpuTotals[who][op] += (d.user + d.system) / 1000;
    } else {
      cpuTotals[who][op] += (await cpuMs(pids[who as 'ours' | 'edit_file' | 'before'])) - (c0 as number);
    }
  }
  return ms;
}

async function callOk(client: Client, name: string, args: Record<string, unknown>): Promise<void> {
  const r = (await client.callTool({ name, arguments: args }, undefined, { timeout: 600_000 })) as CallToolResult;
  if (r.isError) throw new Error(`${name} failed: ${JSON.stringify(r.content).slice(0, 300)}`);
}

/**
 * The floor: what any correct atomic edit has to do at least, done as cheaply as Node allows — one read of the
 * whole file into a buffer of its size (fs.promises.readFile reads in 512 KiB chunks and would flatter us), the
 * three slices written without joining them, fsync, rename. No directory fsync, no history, no chip.
 */
async function floorEdit(file: string, needle: string, replacement: string): Promise<void> {
  const src = await fs.open(file, 'r');
  let bytes: Buffer;
  try {
    const { size } = await src.stat();
    bytes = Buffer.allocUnsafe(size);
    let off = 0;
    while (off < size) {
      const { bytesRead } = await src.read(bytes, off, size - off, off);
      if (bytesRead === 0) break;
      off += bytesRead;
    }
  } finally {
    await src.close();
  }
  const at = bytes.indexOf(needle);
  if (at < 0) throw new Error(`floor: needle not found: ${needle}`);
  const tmp = `${file}.floor.tmp`;
  const fh = await fs.open(tmp, 'w');
  try {
    await fh.writev([bytes.subarray(0, at), Buffer.from(replacement), bytes.subarray(at + Buffer.byteLength(needle))]);
    await fh.sync();
  } finally {
    await fh.close();
  }
  await fs.rename(tmp, file);
}

type Contestant = 'ours' | 'edit_file' | 'floor' | 'core' | 'before';
const CONTESTANTS: readonly Contestant[] = ['ours', 'edit_file', 'floor', 'core', ...(BEFORE_CLI ? (['before'] as const) : [])];

interface SizeResult {
  size: number;
  ms: Record<Contestant, Record<Op, number>>;
  cpu: Record<Contestant, Record<Op, number>>;
  /** be-trx rollback of one be-replace of this file (median ms), and that be-replace (median ms) */
  rollback: { ms: number; edit: number };
  peakAboveIdle: { ours: number; edit_file: number };
  cold: { ours: number; edit_file: number };
  idle: { ours: number; edit_file: number };
}

/** The same core the server runs (services, file store, history, chips), called in this process: no stdio, no SDK. */
async function inProcessCore(dir: string): Promise<{ edits: Services['edits']; close: () => Promise<void> }> {
  const services = await createServices({
    roots: [dir],
    chipDir: path.join(dir, '.cache/core-chips'),
    historyDir: path.join(dir, '.cache/core-history'),
    lockDir: path.join(dir, '.cache/core-locks'),
  });
  return { edits: services.edits, close: () => services.close() };
}

async function coreOk(r: Promise<{ status?: string }>): Promise<void> {
  const res = await r;
  if (res.status !== 'ok') throw new Error(`core edit failed: ${JSON.stringify(res).slice(0, 300)}`);
}

async function benchSize(dir: string, size: number): Promise<SizeResult> {
  const label = sizeLabel(size).replace(' ', '').toLowerCase();
  const files: Partial<Record<Contestant, string>> & Record<'ours' | 'edit_file' | 'floor' | 'core', string> = {
    ours: `ours-${label}.txt`,
    edit_file: `fs-${label}.txt`,
    floor: `floor-${label}.txt`,
    core: `core-${label}.txt`,
    ...(BEFORE_CLI ? { before: `before-${label}.txt` } : {}),
  };
  const lines = await makeFile(path.join(dir, files.ours), size);
  for (const f of Object.values(files)) if (f !== files.ours) await fs.copyFile(path.join(dir, files.ours), path.join(dir, f));
  const L = Math.floor(lines / 2);
  const lineL = lineText(L);

  const oursArgs = (cli: string, cache: string) => [cli, ...(process.env.BENCH_OURS_ARGS ?? '').split(' ').filter(Boolean), '--root', dir, '--chip-dir', path.join(dir, cache, 'chips'), '--history-dir', path.join(dir, cache, 'history')];
  const ours = await connect(process.execPath, oursArgs(OUR_CLI, '.cache'), dir);
  const before = BEFORE_CLI ? await connect(process.execPath, oursArgs(BEFORE_CLI, '.cache/before'), dir) : undefined;
  const fsServer = await connect(process.execPath, [FS_SERVER, dir], dir);
  const core = await inProcessCore(dir);
  const cold = { ours: (await rss(ours.pid)).rss, edit_file: (await rss(fsServer.pid)).rss };
  // one trivial call each, so one-time initialisation (lazy modules, tokenizer tables) counts as idle
  await fs.writeFile(path.join(dir, 'tiny.txt'), 'a\nb\n');
  await callOk(ours.client, 'be-read', { file: 'tiny.txt' });
  if (before) await callOk(before.client, 'be-read', { file: 'tiny.txt' });
  await callOk(fsServer.client, 'read_text_file', { path: path.join(dir, 'tiny.txt') });
  await coreOk(core.edits.replace({ file: 'tiny.txt:1', content: 'a\n' }));
  // work a server does after answering (ours records the call into ChatMemory then) belongs to idle too
  await quiet(ours.pid);
  if (before) await quiet(before.pid);
  await quiet(fsServer.pid);
  const idle = { ours: (await rss(ours.pid)).rss, edit_file: (await rss(fsServer.pid)).rss };
  pids = { ours: ours.pid, edit_file: fsServer.pid, before: before?.pid ?? 0 };
  for (const who of Object.values(cpuTotals)) for (const op of OPS) who[op] = 0;

  const total = WARMUP + RUNS;
  const samples = Object.fromEntries(CONTESTANTS.map((c) => [c, { replace: [] as number[], insert: [] as number[], delete: [] as number[] }])) as Record<
    Contestant,
    Record<Op, number[]>
  >;
  const run = async (who: Contestant, op: Op, i: number, f: () => Promise<void>) => {
    const ms = await timed(f, who, op, i >= WARMUP);
    if (i >= WARMUP) samples[who][op].push(ms);
  };

  // replace line L with a new text each time (the four contestants interleaved, so drift hits all alike)
  let current = lineL;
  for (let i = 0; i < total; i++) {
    const next = `${lineL} // v${i}`;
    await run('ours', 'replace', i, () => callOk(ours.client, 'be-replace', { file: `${files.ours}:${L}`, content: next + '\n' }));
    await run('edit_file', 'replace', i, () =>
      callOk(fsServer.client, 'edit_file', { path: path.join(dir, files.edit_file), edits: [{ oldText: current, newText: next }] }),
    );
    await run('floor', 'replace', i, () => floorEdit(path.join(dir, files.floor), current + '\n', next + '\n'));
    await run('core', 'replace', i, () => coreOk(core.edits.replace({ file: `${files.core}:${L}`, content: next + '\n' })));
    if (before) await run('before', 'replace', i, () => callOk(before.client, 'be-replace', { file: `${files.before}:${L}`, content: next + '\n' }));
    current = next;
  }
  // insert a line after L
  for (let i = 0; i < total; i++) {
    const ins = `// inserted ${i}`;
    await run('ours', 'insert', i, () => callOk(ours.client, 'be-insert', { file: `${files.ours}:${L}`, content: ins + '\n' }));
    await run('edit_file', 'insert', i, () =>
      callOk(fsServer.client, 'edit_file', { path: path.join(dir, files.edit_file), edits: [{ oldText: current, newText: `${current}\n${ins}` }] }),
    );
    await run('floor', 'insert', i, () => floorEdit(path.join(dir, files.floor), current + '\n', `${current}\n${ins}\n`));
    await run('core', 'insert', i, () => coreOk(core.edits.insert({ file: `${files.core}:${L}`, content: ins + '\n' })));
    if (before) await run('before', 'insert', i, () => callOk(before.client, 'be-insert', { file: `${files.before}:${L}`, content: ins + '\n' }));
  }
  // delete the line after L (the latest inserted one)
  for (let i = 0; i < total; i++) {
    const gone = `// inserted ${total - 1 - i}`;
    await run('ours', 'delete', i, () => callOk(ours.client, 'be-delete', { file: `${files.ours}:${L + 1}` }));
    await run('edit_file', 'delete', i, () =>
      callOk(fsServer.client, 'edit_file', { path: path.join(dir, files.edit_file), edits: [{ oldText: `${current}\n${gone}\n`, newText: `${current}\n` }] }),
    );
    await run('floor', 'delete', i, () => floorEdit(path.join(dir, files.floor), `${gone}\n`, ''));
    await run('core', 'delete', i, () => coreOk(core.edits.delete({ file: `${files.core}:${L + 1}` })));
    if (before) await run('before', 'delete', i, () => callOk(before.client, 'be-delete', { file: `${files.before}:${L + 1}` }));
  }

  // all of them must have made the same change
  const [a, ...rest] = await Promise.all(Object.values(files).map((f) => fs.readFile(path.join(dir, f))));
  if (!rest.every((b) => a!.equals(b))) throw new Error(`the contestants' files differ after the ${label} run`);

  // a rollback of one edit, against that edit (each pair interleaved); the file ends as it was
  const rb: number[] = [];
  const ed: number[] = [];
  for (let i = 0; i < Math.max(3, Math.min(RUNS, 7)); i++) {
    ed.push(await timed(() => callOk(ours.client, 'be-replace', { file: `${files.ours}:${L}`, content: `${lineL} // rollback ${i}\n` })));
    rb.push(await timed(() => callOk(ours.client, 'be-trx', { action: 'rollback' })));
  }
  const after = await fs.readFile(path.join(dir, files.ours));
  if (!after.equals(a!)) throw new Error(`the rollbacks of the ${label} run did not restore the file`);

  const peak = { ours: (await rss(ours.pid)).hwm, edit_file: (await rss(fsServer.pid)).hwm };
  await ours.client.close();
  await before?.client.close();
  await fsServer.client.close();
  await core.close();
  const med = (k: Contestant) => Object.fromEntries(OPS.map((op) => [op, median(samples[k][op])])) as Record<Op, number>;
  return {
    size,
    ms: Object.fromEntries(CONTESTANTS.map((c) => [c, med(c)])) as SizeResult['ms'],
    cpu: Object.fromEntries(CONTESTANTS.map((w) => [w, Object.fromEntries(OPS.map((op) => [op, cpuTotals[w][op] / RUNS]))])) as SizeResult['cpu'],
    rollback: { ms: median(rb), edit: median(ed) },
    peakAboveIdle: { ours: peak.ours - idle.ours, edit_file: peak.edit_file - idle.edit_file },
    cold,
    idle,
  };
}

interface ApplyResult {
  files: number;
  ours: number;
  floor: number;
  /** CPU ms per batch: our server process (all threads), the floor (this process) */
  oursCpu: number;
  floorCpu: number;
  replyTokens: number;
  replyChars: number;
  /** BENCH_BEFORE_CLI's build, the same batches interleaved with ours (median ms, CPU ms per batch) */
  before?: { ms: number; cpu: number };
}

/** be-apply of one one-line edit in each of APPLY_FILES small files, against the floor rewriting them all in parallel. */
async function benchApply(dir: string): Promise<ApplyResult> {
  const APPLY_FILES = 100;
  const sub = path.join(dir, 'apply');
  await fs.mkdir(path.join(sub, 'ours'), { recursive: true });
  await fs.mkdir(path.join(sub, 'floor'), { recursive: true });
  if (BEFORE_CLI) await fs.mkdir(path.join(sub, 'before'), { recursive: true });
  for (let f = 0; f < APPLY_FILES; f++) {
    const text = Array.from({ length: 40 }, (_, i) => lineText(f * 100 + i)).join('\n') + '\n';
    await fs.writeFile(path.join(sub, 'ours', `f${f}.ts`), text);
    await fs.writeFile(path.join(sub, 'floor', `f${f}.ts`), text);
    if (BEFORE_CLI) await fs.writeFile(path.join(sub, 'before', `f${f}.ts`), text);
  }
  const server = (cli: string, cache: string) =>
    connect(process.execPath, [cli, '--root', sub, '--chip-dir', path.join(dir, `.cache/${cache}-chips`), '--history-dir', path.join(dir, `.cache/${cache}-history`)], sub);
  const ours = await server(OUR_CLI, 'apply');
  const before = BEFORE_CLI ? await server(BEFORE_CLI, 'apply-before') : undefined;
  for (const [s, folder] of [[ours, 'ours'], ...(before ? [[before, 'before'] as const] : [])] as const) {
    await callOk(s.client, 'be-read', { file: `${folder}/f0.ts:1` });
    await quiet(s.pid);
  }
  const o: number[] = [];
  const fl: number[] = [];
  const oc: number[] = [];
  const fc: number[] = [];
  const bo: number[] = [];
  const bc: number[] = [];
  let reply = '';
  const batch = async (s: { client: Client; pid: number }, folder: string, r: number, ms: number[], cpu: number[]) => {
    const edits = Array.from({ length: APPLY_FILES }, (_, f) => ({ file: `${folder}/f${f}.ts:20`, content: `${lineText(f * 100 + 19)} // r${r}` }));
    const c0 = await cpuMs(s.pid);
    ms.push(
      await timed(async () => {
        const res = (await s.client.callTool({ name: 'be-apply', arguments: { edits } }, undefined, { timeout: 600_000 })) as CallToolResult;
        if (res.isError) throw new Error(`be-apply failed: ${JSON.stringify(res.content).slice(0, 300)}`);
        if (s === ours) reply = res.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
      }),
    );
    cpu.push((await cpuMs(s.pid)) - c0);
  };
  const rounds = Number(process.env.BENCH_APPLY_RUNS ?? Math.max(3, Math.min(RUNS, 7)));
  for (let r = 0; r < rounds; r++) {
    // who goes first alternates: neither build always runs right after the floor's burst of writes
    if (before && r % 2 === 1) await batch(before, 'before', r, bo, bc);
    await batch(ours, 'ours', r, o, oc);
    if (before && r % 2 === 0) await batch(before, 'before', r, bo, bc);
    const prev = r === 0 ? '' : ` // r${r - 1}`;
    const f0 = process.cpuUsage();
    fl.push(
      await timed(() =>
        Promise.all(
          Array.from({ length: APPLY_FILES }, (_, f) =>
            floorEdit(path.join(sub, 'floor', `f${f}.ts`), `${lineText(f * 100 + 19)}${prev}\n`, `${lineText(f * 100 + 19)} // r${r}\n`),
          ),
        ).then(() => undefined),
      ),
    );
    const fd = process.cpuUsage(f0);
    fc.push((fd.user + fd.system) / 1000);
  }
  await ours.client.close();
  await before?.client.close();
  return {
    files: APPLY_FILES,
    ours: median(o),
    floor: median(fl),
    oursCpu: median(oc),
    floorCpu: median(fc),
    replyTokens: getTokenizer().count(reply),
    replyChars: reply.length,
    ...(before ? { before: { ms: median(bo), cpu: median(bc) } } : {}),
  };
}

/** `value` against its goal, as one line of the report. */
function goal(name: string, value: number, max: number, unit = '×'): string {
  const ok = value <= max;
  return `  ${name.padEnd(58)} ${value.toFixed(2).padStart(7)}${unit}  goal ≤ ${max}${unit}  ${ok ? 'met' : 'NOT MET'}`;
}

async function main(): Promise<void> {
  const dir = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'bet-bench-')));
  try {
    const results: SizeResult[] = [];
    for (const size of SIZES) {
      process.stderr.write(`benchmarking ${sizeLabel(size)} (${WARMUP} warm-up + ${RUNS} calls per op and contestant)...\n`);
      results.push(await benchSize(dir, size));
    }
    const withApply = process.env.BENCH_APPLY !== '0';
    if (withApply) process.stderr.write('benchmarking be-apply of 100 small edits...\n');
    const apply = withApply ? await benchApply(dir) : undefined;
    const f = (n: number) => n.toFixed(1).padStart(8);
    const r = (n: number) => `${n.toFixed(2)}×`.padStart(9);
    const head = `size      op          ours edit_file    floor     core   ours/floor ours/edit_file ours/core${BEFORE_CLI ? '   before ours/before before/floor' : ''}`;
    const rows = (pick: (res: SizeResult) => SizeResult['ms']) => {
      for (const res of results) {
        for (const op of OPS) {
          const m = pick(res);
          const o = m.ours[op];
          console.log(
            `${sizeLabel(res.size).padEnd(9)} ${op.padEnd(7)} ${f(o)} ${f(m.edit_file[op])} ${f(m.floor[op])} ${f(m.core[op])} ` +
              `${r(o / m.floor[op]).padStart(12)} ${r(o / m.edit_file[op]).padStart(14)} ${r(o / m.core[op]).padStart(9)}` +
              (BEFORE_CLI ? ` ${f(m.before[op])} ${r(o / m.before[op]).padStart(11)} ${r(m.before[op] / m.floor[op]).padStart(12)}` : ''),
          );
        }
      }
    };
    console.log(`\nmedian ms per call, ${RUNS} calls each after ${WARMUP} warm-up, interleaved (node ${process.version}, ${os.cpus().length} cpus)`);
    console.log('ours: dist/cli.js over stdio; edit_file: server-filesystem over stdio; floor: read, write, fsync, rename in this process;');
    console.log(`core: our edit core called in this process (no stdio)${BEFORE_CLI ? `; before: ${path.relative(REPO, BEFORE_CLI)} over stdio, the same calls` : ''}`);
    console.log(head);
    rows((res) => res.ms);
    console.log('\nCPU ms per call (user+system of the server process, all threads; floor and core: this process)');
    console.log(head);
    rows((res) => res.cpu);
    console.log('\npeak RSS above idle (VmHWM - VmRSS after one trivial call), as a multiple of the file size');
    for (const res of results) {
      const mb = (n: number) => `${(n / 1e6).toFixed(1)} MB`;
      console.log(
        `${sizeLabel(res.size).padEnd(9)} ours ${mb(res.peakAboveIdle.ours)} (${(res.peakAboveIdle.ours / res.size).toFixed(1)}×)` +
          `   edit_file ${mb(res.peakAboveIdle.edit_file)} (${(res.peakAboveIdle.edit_file / res.size).toFixed(1)}×)` +
          `   [RSS at start → after one call: ours ${mb(res.cold.ours)} → ${mb(res.idle.ours)}, edit_file ${mb(res.cold.edit_file)} → ${mb(res.idle.edit_file)}]`,
      );
    }
    console.log('\nrollback (be-trx rollback of one be-replace, median ms) against that edit');
    for (const res of results) console.log(`${sizeLabel(res.size).padEnd(9)} rollback ${f(res.rollback.ms)}   edit ${f(res.rollback.edit)}   ${r(res.rollback.ms / res.rollback.edit)}`);
    if (apply) {
      console.log(
        `\nbe-apply of ${apply.files} one-line edits in ${apply.files} files: ours ${apply.ours.toFixed(1)} ms, floor (the same rewrites in parallel) ` +
          `${apply.floor.toFixed(1)} ms: ${(apply.ours / apply.floor).toFixed(2)}×; reply ${apply.replyTokens} tokens (${apply.replyChars} characters)`,
      );
      console.log(
        `  CPU ms per batch: ours ${apply.oursCpu.toFixed(0)} (server process, all threads), floor ${apply.floorCpu.toFixed(0)}: ` +
          `${(apply.oursCpu / apply.floorCpu).toFixed(2)}×`,
      );
      if (apply.before) {
        console.log(
          `  before: ${apply.before.ms.toFixed(1)} ms (${(apply.before.ms / apply.floor).toFixed(2)}× the floor; ours/before ${(apply.ours / apply.before.ms).toFixed(2)}×), ` +
            `CPU ${apply.before.cpu.toFixed(0)} ms per batch`,
        );
      }
    }

    console.log('\ngoals (issue: a lean edit path)');
    for (const res of results) {
      const small = res.size < 1024 * 1024;
      for (const op of OPS) {
        console.log(goal(`${sizeLabel(res.size)} ${op}: ours / floor`, res.ms.ours[op] / res.ms.floor[op], 1.2));
        console.log(goal(`${sizeLabel(res.size)} ${op}: ours / server-filesystem`, res.ms.ours[op] / res.ms.edit_file[op], small ? 1.0 : 0.2));
      }
    }
    const largest = results[results.length - 1];
    if (largest) console.log(goal(`${sizeLabel(largest.size)} rollback / edit`, largest.rollback.ms / largest.rollback.edit, 1.5));
    if (apply) console.log(goal(`be-apply of ${apply.files} edits / floor's parallel rewrite`, apply.ours / apply.floor, 2));
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
