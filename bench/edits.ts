/**
 * Edit latency benchmark (npm run bench:edits; not part of the test suite).
 * Per-call latency of be-replace / be-insert / be-delete on 1 MB and 10 MB files over stdio (real SDK client →
 * node dist/cli.js, be-trx snapshots on), against @modelcontextprotocol/server-filesystem's edit_file making the
 * same change to its own copy of the same file, and against the floor: read + splice + write + fsync + rename in
 * this process. Also each server's peak RSS (VmHWM) above its idle RSS, relative to the file size.
 * BENCH_SIZES=1,10 (MB), BENCH_RUNS=15, BENCH_WARMUP=3, BENCH_OURS_ARGS="--no-memory" (extra CLI flags for ours).
 */
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

const REPO = path.resolve(__dirname, '..');
const OUR_CLI = path.join(REPO, 'dist/cli.js');
const FS_SERVER = path.join(REPO, 'node_modules/@modelcontextprotocol/server-filesystem/dist/index.js');
const SIZES = (process.env.BENCH_SIZES ?? '1,10').split(',').map((s) => Number(s) * 1_000_000);
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

type Who = 'ours' | 'edit_file' | 'floor';
/** CPU ms spent per contestant and op over the measured calls (robust to a loaded machine, unlike wall time). */
const cpuTotals: Record<Who, Record<Op, number>> = {
  ours: { replace: 0, insert: 0, delete: 0 },
  edit_file: { replace: 0, insert: 0, delete: 0 },
  floor: { replace: 0, insert: 0, delete: 0 },
};
let pids: Record<'ours' | 'edit_file', number> = { ours: 0, edit_file: 0 };

async function timed(f: () => Promise<void>, who?: Who, op?: Op, measured = false): Promise<number> {
  const c0 = who === 'floor' ? process.cpuUsage() : who ? await cpuMs(pids[who]) : 0;
  const t = performance.now();
  await f();
  const ms = performance.now() - t;
  if (who && op && measured) {
    if (who === 'floor') {
      const d = process.cpuUsage(c0 as NodeJS.CpuUsage);
      cpuTotals.floor[op] += (d.user + d.system) / 1000;
    } else {
      cpuTotals[who][op] += (await cpuMs(pids[who])) - (c0 as number);
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

interface SizeResult {
  size: number;
  ms: Record<'ours' | 'edit_file' | 'floor', Record<Op, number>>;
  cpu: Record<'ours' | 'edit_file' | 'floor', Record<Op, number>>;
  peakAboveIdle: { ours: number; edit_file: number };
  cold: { ours: number; edit_file: number };
  idle: { ours: number; edit_file: number };
}

async function benchSize(dir: string, size: number): Promise<SizeResult> {
  const label = `${size / 1_000_000}mb`;
  const files = { ours: `ours-${label}.txt`, edit_file: `fs-${label}.txt`, floor: `floor-${label}.txt` };
  const lines = await makeFile(path.join(dir, files.ours), size);
  await fs.copyFile(path.join(dir, files.ours), path.join(dir, files.edit_file));
  await fs.copyFile(path.join(dir, files.ours), path.join(dir, files.floor));
  const L = Math.floor(lines / 2);
  const lineL = lineText(L);

  const ours = await connect(
    process.execPath,
    [OUR_CLI, ...(process.env.BENCH_OURS_ARGS ?? '').split(' ').filter(Boolean), '--root', dir, '--chip-dir', path.join(dir, '.cache/chips'), '--history-dir', path.join(dir, '.cache/history')],
    dir,
  );
  const fsServer = await connect(process.execPath, [FS_SERVER, dir], dir);
  const cold = { ours: (await rss(ours.pid)).rss, edit_file: (await rss(fsServer.pid)).rss };
  // one trivial call each, so one-time initialisation (lazy modules, tokenizer tables) counts as idle
  await fs.writeFile(path.join(dir, 'tiny.txt'), 'a\nb\n');
  await callOk(ours.client, 'be-read', { file: 'tiny.txt' });
  await callOk(fsServer.client, 'read_text_file', { path: path.join(dir, 'tiny.txt') });
  // work a server does after answering (ours records the call into ChatMemory then) belongs to idle too
  await quiet(ours.pid);
  await quiet(fsServer.pid);
  const idle = { ours: (await rss(ours.pid)).rss, edit_file: (await rss(fsServer.pid)).rss };
  pids = { ours: ours.pid, edit_file: fsServer.pid };
  for (const who of Object.values(cpuTotals)) for (const op of OPS) who[op] = 0;

  const total = WARMUP + RUNS;
  const samples = {
    ours: { replace: [] as number[], insert: [] as number[], delete: [] as number[] },
    edit_file: { replace: [] as number[], insert: [] as number[], delete: [] as number[] },
    floor: { replace: [] as number[], insert: [] as number[], delete: [] as number[] },
  };
  const keep = (arr: number[], i: number, ms: number) => {
    if (i >= WARMUP) arr.push(ms);
  };

  // replace line L with a new text each time (the three contestants interleaved, so drift hits all alike)
  let current = lineL;
  for (let i = 0; i < total; i++) {
    const next = `${lineL} // v${i}`;
    keep(samples.ours.replace, i, await timed(() => callOk(ours.client, 'be-replace', { file: `${files.ours}:${L}`, content: next + '\n' }), 'ours', 'replace', i >= WARMUP));
    keep(samples.edit_file.replace, i, await timed(() =>
      callOk(fsServer.client, 'edit_file', { path: path.join(dir, files.edit_file), edits: [{ oldText: current, newText: next }] }),
    'edit_file', 'replace', i >= WARMUP));
    keep(samples.floor.replace, i, await timed(() => floorEdit(path.join(dir, files.floor), current + '\n', next + '\n'), 'floor', 'replace', i >= WARMUP));
    current = next;
  }
  // insert a line after L
  for (let i = 0; i < total; i++) {
    const ins = `// inserted ${i}`;
    keep(samples.ours.insert, i, await timed(() => callOk(ours.client, 'be-insert', { file: `${files.ours}:${L}`, content: ins + '\n' }), 'ours', 'insert', i >= WARMUP));
    keep(samples.edit_file.insert, i, await timed(() =>
      callOk(fsServer.client, 'edit_file', { path: path.join(dir, files.edit_file), edits: [{ oldText: current, newText: `${current}\n${ins}` }] }),
    'edit_file', 'insert', i >= WARMUP));
    keep(samples.floor.insert, i, await timed(() => floorEdit(path.join(dir, files.floor), current + '\n', `${current}\n${ins}\n`), 'floor', 'insert', i >= WARMUP));
  }
  // delete the line after L (the latest inserted one)
  for (let i = 0; i < total; i++) {
    const gone = `// inserted ${total - 1 - i}`;
    keep(samples.ours.delete, i, await timed(() => callOk(ours.client, 'be-delete', { file: `${files.ours}:${L + 1}` }), 'ours', 'delete', i >= WARMUP));
    keep(samples.edit_file.delete, i, await timed(() =>
      callOk(fsServer.client, 'edit_file', { path: path.join(dir, files.edit_file), edits: [{ oldText: `${current}\n${gone}\n`, newText: `${current}\n` }] }),
    'edit_file', 'delete', i >= WARMUP));
    keep(samples.floor.delete, i, await timed(() => floorEdit(path.join(dir, files.floor), `${gone}\n`, ''), 'floor', 'delete', i >= WARMUP));
  }

  // all three must have made the same change
  const [a, b, c] = await Promise.all(Object.values(files).map((f) => fs.readFile(path.join(dir, f))));
  if (!a.equals(b) || !a.equals(c)) throw new Error(`the three files differ after the ${label} run`);

  const peak = { ours: (await rss(ours.pid)).hwm, edit_file: (await rss(fsServer.pid)).hwm };
  await ours.client.close();
  await fsServer.client.close();
  const med = (k: keyof typeof samples) =>
    Object.fromEntries(OPS.map((op) => [op, median(samples[k][op])])) as Record<Op, number>;
  return {
    size,
    ms: { ours: med('ours'), edit_file: med('edit_file'), floor: med('floor') },
    cpu: Object.fromEntries(
      (['ours', 'edit_file', 'floor'] as const).map((w) => [w, Object.fromEntries(OPS.map((op) => [op, cpuTotals[w][op] / RUNS]))]),
    ) as SizeResult['cpu'],
    peakAboveIdle: { ours: peak.ours - idle.ours, edit_file: peak.edit_file - idle.edit_file },
    cold,
    idle,
  };
}

async function main(): Promise<void> {
  const dir = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'bet-bench-')));
  try {
    const results: SizeResult[] = [];
    for (const size of SIZES) {
      process.stderr.write(`benchmarking ${size / 1_000_000} MB (${WARMUP} warm-up + ${RUNS} calls per op)...\n`);
      results.push(await benchSize(dir, size));
    }
    const f = (n: number) => n.toFixed(1).padStart(8);
    const r = (n: number) => `${n.toFixed(2)}×`.padStart(9);
    console.log(`\nmedian ms per call, ${RUNS} calls each after ${WARMUP} warm-up (node ${process.version}, ${os.cpus().length} cpus)`);
    console.log('size    op        ours  edit_file    floor  ours/edit_file  ours/floor');
    for (const res of results) {
      for (const op of OPS) {
        const o = res.ms.ours[op];
        console.log(
          `${(res.size / 1_000_000 + ' MB').padEnd(7)} ${op.padEnd(7)} ${f(o)} ${f(res.ms.edit_file[op])} ${f(res.ms.floor[op])} ` +
            `${r(o / res.ms.edit_file[op]).padStart(15)} ${r(o / res.ms.floor[op]).padStart(11)}`,
        );
      }
    }
    console.log('\nCPU ms per call (user+system of the server process, all threads; floor: this process)');
    console.log('size    op        ours  edit_file    floor  ours/edit_file  ours/floor');
    for (const res of results) {
      for (const op of OPS) {
        const o = res.cpu.ours[op];
        console.log(
          `${(res.size / 1_000_000 + ' MB').padEnd(7)} ${op.padEnd(7)} ${f(o)} ${f(res.cpu.edit_file[op])} ${f(res.cpu.floor[op])} ` +
            `${r(o / res.cpu.edit_file[op]).padStart(15)} ${r(o / res.cpu.floor[op]).padStart(11)}`,
        );
      }
    }
    console.log('\npeak RSS above idle (VmHWM - VmRSS after one trivial call), as a multiple of the file size');
    for (const res of results) {
      const mb = (n: number) => `${(n / 1e6).toFixed(1)} MB`;
      console.log(
        `${(res.size / 1_000_000 + ' MB').padEnd(7)} ours ${mb(res.peakAboveIdle.ours)} (${(res.peakAboveIdle.ours / res.size).toFixed(1)}×)` +
          `   edit_file ${mb(res.peakAboveIdle.edit_file)} (${(res.peakAboveIdle.edit_file / res.size).toFixed(1)}×)` +
          `   [RSS at start → after one call: ours ${mb(res.cold.ours)} → ${mb(res.idle.ours)}, edit_file ${mb(res.cold.edit_file)} → ${mb(res.idle.edit_file)}]`,
      );
    }
    console.log('\ngoals: ours ≤ 0.5× edit_file, ≤ 1.5× floor, peak ≤ 5× file size above idle');
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
