/**
 * Overview and outline speed at scale, each figure beside its goal: the services built as the hosts
 * build them (createServices), in this process, with an event-loop probe on the same loop.
 *
 *  - a 4 MB C file's outline (be-read structure): wall ≤ 1 s, in process and as the first call of a fresh built
 *    stdio server (stdioOutline.ts; BENCH_OUTLINE_RUNS=3 of them, the median), and on the pool's fresh workers
 *    after its idle ones ended; a 4 MB TypeScript data module's (one table of records), and a 4 MB file's of code in
 *    each other language with an outline (languageSources.ts), as that first call too;
 *  - a generated ~1M-line TypeScript folder: cold overview ≤ 3 s, in process and as the first call of a fresh built
 *    stdio server (median of BENCH_OUTLINE_RUNS); warm after one file changed (with and without the file watcher)
 *    ≤ 100 ms;
 *  - 200,000 small files (in a child process, so that its peak RSS is its own): cold ≤ 60 s with peak RSS
 *    ≤ 600 MB, warm ≤ 2 s, a query ≤ 3 s (with the file watcher, and without it: the mtime walk);
 *  - the overview size for a ~20,000-line folder (≤ 1,024 tokens).
 *
 *   npm run bench:context -- --scale           (BENCH_LINES=200000 BENCH_FILES=20000 for a quicker run;
 *                                              BENCH_ONLY=fresh,lines for some of the rows)
 *   node --import tsx bench/context/scale.ts   (the same, without building first)
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, watch, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getHeapSpaceStatistics } from 'node:v8';
import { performance } from 'node:perf_hooks';
import { getTokenizer } from '../../src/core/memory/node/tokenizer';
import { createServices, type Services } from '../../src/mcp/services';
import { OutlinePool } from '../../src/core/context/node/outlinePool';
import { cSource, dataSource, generateFolder, generateManyFiles, goSource, javaSource, rustSource } from './generate';
import { bashSource, cppSource, csharpSource, phpSource, pythonSource, rubySource, typescriptSource } from './languageSources';
import { firstCallOverStdio, firstOutlineOverStdio } from './stdioOutline';
import { fmt } from './report';
import { loopProbe } from './loopProbe';

type Row = (string | number)[];
const tk = getTokenizer();
const cpuMs = (u: NodeJS.CpuUsage) => (u.user + u.system) / 1000;

/** Wall and CPU time of `fn`, and the longest event-loop block while it runs (loopProbe.ts). */
async function timed<T>(fn: () => Promise<T>): Promise<{ value: T; wall: number; cpu: number; block: number; gap: number }> {
  const probe = loopProbe();
  const t = performance.now();
  const c = process.cpuUsage();
  const value = await fn();
  const wall = performance.now() - t;
  const cpu = cpuMs(process.cpuUsage(c));
  const { blockMs, wallMs } = probe.stop();
  return { value, wall, cpu, block: blockMs, gap: wallMs };
}

const verdict = (value: number, goal: number) => (value <= goal ? 'PASS' : 'FAIL');

async function services(root: string, watch = false): Promise<Services> {
  const cache = mkdtempSync(join(tmpdir(), 'bench-ctx-state-'));
  return createServices({ roots: [root], chipDir: join(cache, 'chips'), historyDir: join(cache, 'history'), context: { watch } });
}

async function outlineRows(): Promise<Row[]> {
  const root = mkdtempSync(join(tmpdir(), 'bench-ctx-c-'));
  writeFileSync(join(root, 'big.c'), cSource(4_000_000));
  const s = await services(root);
  try {
    const m = await timed(() => s.context!.read({ file: 'big.c', mode: 'structure' }));
    const again = await timed(() => s.context!.read({ file: 'big.c', mode: 'structure' }));
    const big = join(root, 'big.c');
    writeFileSync(big, readFileSync(big, 'utf8').replace('Module 7:', 'Module seven:'));
    const edited = await timed(() => s.context!.read({ file: 'big.c', mode: 'structure' }));
    const runs: { wall: number; cpu: number }[] = [];
    for (let i = 0; i < Number(process.env.BENCH_OUTLINE_RUNS ?? 3); i++) {
      const r = await firstOutlineOverStdio();
      if (r) runs.push(r);
    }
    const mid = <T>(xs: T[], key: (x: T) => number) => xs.map(key).sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    // the same for a 4 MB TypeScript data module (one declaration that no part cut splits) and code in the other
    // languages with an outline (Java, C#, C++, Ruby: one class, namespace or module around everything)
    const more = async (file: string, text: () => string) => {
      const rs: { wall: number; cpu: number }[] = [];
      for (let i = 0; i < runs.length; i++) {
        const r = await firstOutlineOverStdio(file, text);
        if (r) rs.push(r);
      }
      return rs;
    };
    const others: [string, string, () => string][] = [
      ['TypeScript data file', 'items.ts', () => dataSource(4_000_000)],
      ['TypeScript file', 'big.ts', () => typescriptSource(4_000_000)],
      ['Python file', 'big.py', () => pythonSource(4_000_000)],
      ['Go file', 'big.go', () => goSource(4_000_000)],
      ['Rust file', 'big.rs', () => rustSource(4_000_000)],
      ['Java file', 'Big.java', () => javaSource(4_000_000)],
      ['C# file', 'Big.cs', () => csharpSource(4_000_000)],
      ['C++ file', 'big.cpp', () => cppSource(4_000_000)],
      ['PHP file', 'big.php', () => phpSource(4_000_000)],
      ['Ruby file', 'big.rb', () => rubySource(4_000_000)],
      ['Bash file', 'big.sh', () => bashSource(4_000_000)],
    ];
    const otherRuns: [string, { wall: number; cpu: number }[]][] = [];
    for (const [what, file, text] of others) otherRuns.push([what, await more(file, text)]);
    const stdioRow = (what: string, rs: { wall: number; cpu: number }[]): Row => [
      `outline of a 4 MB ${what}, first call of a fresh stdio server (built)`,
      `${fmt(mid(rs, (r) => r.wall))} ms wall, ${fmt(mid(rs, (r) => r.cpu))} ms CPU (all threads)`,
      `median of ${rs.length}: ${rs.map((r) => fmt(r.wall)).join(' / ')} ms`,
      'goal ≤ 1,000 ms',
      verdict(mid(rs, (r) => r.wall), 1000),
    ];
    const stdio: Row[] = runs.length
      ? [stdioRow('C file', runs), ...otherRuns.filter(([, rs]) => rs.length).map(([what, rs]) => stdioRow(what, rs))]
      : [['outline of a 4 MB C file, first call of a fresh stdio server', 'no dist/cli.js (npm run build)', '', 'goal ≤ 1,000 ms', '-']];
    return [
      ...stdio,
      ['outline of a 4 MB C file (in process, first, grammar loads)', `${fmt(m.wall)} ms wall, ${fmt(m.cpu)} ms CPU`, `block ${fmt(m.block)} ms (≤ 100; timer gap ${fmt(m.gap)})`, 'goal ≤ 1,000 ms', verdict(m.wall, 1000)],
      ['outline of a 4 MB C file (again)', `${fmt(again.wall)} ms wall`, `block ${fmt(again.block)} ms (≤ 100; timer gap ${fmt(again.gap)})`, 'goal ≤ 1,000 ms', verdict(again.wall, 1000)],
      ['outline of a 4 MB C file (after an edit)', `${fmt(edited.wall)} ms wall, ${fmt(edited.cpu)} ms CPU`, `block ${fmt(edited.block)} ms (≤ 100; timer gap ${fmt(edited.gap)})`, 'goal ≤ 1,000 ms', verdict(edited.wall, 1000)],
    ];
  } finally {
    await s.close();
    rmSync(root, { recursive: true, force: true });
  }
}

/**
 * The outline pool alone (idle workers end after 200 ms here, 60 s in the servers; the compiled modules go 2 s after
 * the last worker, 10 min in the servers): a 4 MB C file's outline on the
 * first workers of this process, then on fresh workers after those ended idle, which start with the .wasm modules
 * (and the optimised code) the first ones compiled. Median of BENCH_OUTLINE_RUNS of the latter, each on new text.
 */
async function freshWorkerRow(): Promise<Row> {
  const pool = new OutlinePool({ grammarsDir: join(__dirname, '../..'), idleMs: 200, keepCompiledMs: 2_000 });
  try {
    const text = cSource(4_000_000);
    const first = await timed(() => pool.outline(text, 'c'));
    const fresh: number[] = [];
    for (let i = 0; i < Number(process.env.BENCH_OUTLINE_RUNS ?? 3); i++) {
      while (pool.workers) await new Promise((r) => setTimeout(r, 50));
      fresh.push((await timed(() => pool.outline(text.replace('Module 7:', `Module ${i}:`), 'c'))).wall);
    }
    const mid = [...fresh].sort((a, b) => a - b)[Math.floor(fresh.length / 2)]!;
    // the modules' share of the process: its RSS with them, the workers ended, and after they went (keepCompiledMs)
    const gc = (globalThis as { gc?: () => void }).gc; // node --expose-gc: the RSS without this bench's garbage
    const rss = () => (gc?.(), process.memoryUsage().rss / 2 ** 20);
    while (pool.workers) await new Promise((r) => setTimeout(r, 50));
    const withModules = rss();
    while (pool.compiledFiles.length) await new Promise((r) => setTimeout(r, 50));
    const without = rss();
    return [
      'outline of a 4 MB C file on fresh workers, after the idle ones ended (the pool alone)',
      `${fmt(mid)} ms wall (${(mid / first.wall).toFixed(2)}× the first workers' ${fmt(first.wall)} ms)`,
      `median of ${fresh.length}: ${fresh.map(fmt).join(' / ')} ms; ${pool.compiles} modules compiled in all; RSS once the workers ended ${fmt(withModules)} MiB, ${fmt(without)} once the modules went${gc ? ' (each after a GC)' : ''}`,
      'goal ≤ 1,000 ms',
      verdict(mid, 1000),
    ];
  } finally {
    await pool.close();
  }
}

async function sizeRow(): Promise<Row> {
  const small = generateFolder(20_000);
  const s = await services(small.root);
  try {
    const r = await s.context!.overview();
    return [`overview of a ${fmt(small.lines)}-line folder (${small.files} files)`, `${fmt(tk.count(r.overview))} tokens`, `${r.shown_files} key files shown`, 'goal ≤ 1,024 tokens', verdict(tk.count(r.overview), 1024)];
  } finally {
    await s.close();
    rmSync(small.root, { recursive: true, force: true });
  }
}

/** The same cold overview as the first call of a fresh built stdio server (its workers from the bundle), median of 3. */
async function coldOverStdio(root: string, lines: number): Promise<Row> {
  const label = `cold overview, ${fmt(lines)} lines, first call of a fresh stdio server (built)`;
  if (!existsSync(join(__dirname, '../../dist/cli.js'))) return [label, 'no dist/cli.js (npm run build)', '', 'goal ≤ 3 s', '-'];
  const runs: { wall: number; cpu: number }[] = [];
  for (let i = 0; i < Number(process.env.BENCH_OUTLINE_RUNS ?? 3); i++) {
    const cache = mkdtempSync(join(tmpdir(), 'bench-ctx-stdio-state-'));
    try {
      runs.push(await firstCallOverStdio(root, cache, 'be-overview', {}));
    } finally {
      rmSync(cache, { recursive: true, force: true });
    }
  }
  const mid = (key: (r: { wall: number; cpu: number }) => number) => runs.map(key).sort((a, b) => a - b)[Math.floor(runs.length / 2)]!;
  return [label, `${(mid((r) => r.wall) / 1000).toFixed(2)} s wall, ${(mid((r) => r.cpu) / 1000).toFixed(2)} s CPU (all threads)`, `median of ${runs.length}: ${runs.map((r) => (r.wall / 1000).toFixed(2)).join(' / ')} s`, 'goal ≤ 3 s', verdict(mid((r) => r.wall), 3000)];
}

async function linesRows(): Promise<Row[]> {
  const rows: Row[] = [];
  const big = generateFolder(Number(process.env.BENCH_LINES ?? 1_000_000));
  const s = await services(big.root);
  const ctx = s.context!;
  try {
    const cold = await timed(() => ctx.overview());
    const map = ctx.repoMapFor(big.root);
    rows.push([`cold overview, ${fmt(big.lines)} lines / ${fmt(big.files)} files`, `${(cold.wall / 1000).toFixed(2)} s wall, ${(cold.cpu / 1000).toFixed(2)} s CPU`, `block ${fmt(cold.block)} ms (gap ${fmt(cold.gap)})`, 'goal ≤ 3 s', verdict(cold.wall, 3000)]);
    rows.push(await coldOverStdio(big.root, big.lines));
    const parsedCold = map.stats.parsed;
    const changed = join(big.root, 'pkg0/src/core/context/tags.ts');
    const original = readFileSync(changed, 'utf8');
    const edits: [string, string][] = [
      ['a body changed', original.replace(/\n/, '\n// bench: touched\n')],
      ['a new export', original + '\nexport const benchTouched = 1;\n'],
    ];
    // 1. No watcher: every warm refresh stats every file and compares mtimes (the fallback).
    for (const [what, text] of edits) {
      writeFileSync(changed, text);
      const m = await timed(() => ctx.overview());
      rows.push([`warm overview, ${what}, mtime walk (no watcher)`, `${fmt(m.wall)} ms wall, ${fmt(m.cpu)} ms CPU`, `block ${fmt(m.block)} ms (gap ${fmt(m.gap)})`, 'goal ≤ 100 ms', verdict(m.wall, 100)]);
    }
    // 2. With a watcher as the CLI attaches it (fs.watch recursive → invalidate): only reported paths are looked at.
    const events: string[] = [];
    const watcher = watch(big.root, { recursive: true }, (_e, name) => {
      if (name) events.push(name.toString());
      ctx.invalidate(name ? join(big.root, name.toString()) : big.root);
    });
    ctx.setWatched(true);
    try {
      for (const [what, text] of [['a body changed back', original] as [string, string], ...edits]) {
        events.length = 0;
        writeFileSync(changed, text);
        for (let i = 0; i < 200 && !events.length; i++) await new Promise((r) => setTimeout(r, 5));
        const parsed = map.stats.parsed;
        const m = await timed(() => ctx.overview());
        rows.push([`warm overview, ${what}, file watcher`, `${fmt(m.wall)} ms wall, ${fmt(m.cpu)} ms CPU`, `re-read ${map.stats.parsed - parsed} file(s); block ${fmt(m.block)} ms (gap ${fmt(m.gap)})`, 'goal ≤ 100 ms', verdict(m.wall, 100)]);
      }
    } finally {
      watcher.close();
    }
    const q = await timed(() => ctx.overview({ query: 'tokenizer ranks' }));
    rows.push(['overview with a query', `${fmt(q.wall)} ms wall`, `block ${fmt(q.block)} ms (gap ${fmt(q.gap)}); ${map.stats.parsed - parsedCold} re-reads in all`, 'goal ≤ 3 s', verdict(q.wall, 3000)]);
  } finally {
    await s.close();
    rmSync(big.root, { recursive: true, force: true });
  }
  return rows;
}

/**
 * Run in a child process: `count` small files, cold, warm and a query; prints JSON rows. The services watch the root
 * as the CLI does (VS Code feeds the same invalidations from its own watcher); the last rows turn the watcher off
 * and measure the fallback, a walk that stats every file.
 */
async function manyFiles(count: number): Promise<Row[]> {
  const t0 = performance.now();
  const many = generateManyFiles(count);
  const gen = performance.now() - t0;
  const s = await services(many.root, true);
  const ctx = s.context!;
  let closed = false;
  try {
    const rssBefore = process.memoryUsage().rss;
    let peak = rssBefore;
    // the peak in each phase: which of the calls makes the process's peak
    const phases: [string, number][] = [];
    let phasePeak = rssBefore;
    const sampler = setInterval(() => {
      const rss = process.memoryUsage().rss;
      peak = Math.max(peak, rss);
      phasePeak = Math.max(phasePeak, rss);
    }, 50);
    const phase = (name: string) => {
      phases.push([name, Math.max(phasePeak, process.memoryUsage().rss)]);
      phasePeak = 0;
    };
    const cold = await timed(() => ctx.overview());
    phase('cold');
    await s.watcher?.ready;
    await ctx.overview(); // the one catch-up walk after the watcher's start
    const changed = join(many.root, 'd0/s0/f7.ts');
    writeFileSync(changed, readFileSync(changed, 'utf8') + 'export const benchTouched = 1;\n');
    const map = ctx.repoMapFor(many.root);
    const lines = map.stats.parsed;
    await new Promise((r) => setTimeout(r, 200)); // the watcher's event
    phase('catch-up');
    const warm = await timed(() => ctx.overview({ budget: 1500 })); // another budget: not the memoised answer
    phase('warm');
    const reread = map.stats.parsed - lines;
    const watched = s.watching ? 'watched' : 'NOT watched: an mtime walk';
    const query = await timed(() => ctx.overview({ query: 'widget helper 4242' }));
    phase('query');
    ctx.setWatched(false);
    const walked = await timed(() => ctx.overview({ budget: 1400 }));
    phase('walk');
    const walkedQuery = await timed(() => ctx.overview({ query: 'widget helper 4343' }));
    phase('walk+query');
    clearInterval(sampler);
    const maxRss = Math.max(peak, process.resourceUsage().maxRSS * 1024) / 1048576;
    // V8 sizes the young generation from the heap limit (Node 24: up to 128 MB here, Node 20: 32 MB), and it stays in the RSS
    const young = (getHeapSpaceStatistics().find((sp) => sp.space_name === 'new_space')?.space_size ?? 0) / 1048576;
    const n = fmt(count);
    const cpu = (m: { cpu: number }) => `${(m.cpu / 1000).toFixed(1)} s CPU`;
    await s.close();
    closed = true;
    const stdio = await stdioManyFiles(many.root);
    // the same server with V8's own young-generation sizing (src/cli/youngGeneration.ts), for the cap's effect
    const v8Sized = stdio && (await stdioManyFiles(many.root, { BET_YOUNG_GENERATION_MB: '0' }));
    return [
      [`cold overview, ${n} files (generated in ${(gen / 1000).toFixed(0)} s)`, `${(cold.wall / 1000).toFixed(1)} s wall, ${cpu(cold)}`, `block ${fmt(cold.block)} ms (gap ${fmt(cold.gap)})`, 'goal ≤ 60 s', verdict(cold.wall, 60_000)],
      ...(stdio
        ? [
            [`cold overview, ${n} files, first call of a fresh built stdio server`, `${(stdio.wall / 1000).toFixed(1)} s wall, ${(stdio.cpu / 1000).toFixed(1)} s CPU (all threads)`, 'the shipped bundle and workers', 'goal ≤ 60 s', verdict(stdio.wall, 60_000)] as Row,
            [`peak RSS, ${n} files, that server`, `${fmt(stdio.peakRss)} MB`, `VmHWM of the server process after the cold call, one with another budget and two queries; ${v8Sized ? `with V8's own young-generation sizing (BET_YOUNG_GENERATION_MB=0) ${fmt(v8Sized.peakRss)} MB, cold ${(v8Sized.wall / 1000).toFixed(1)} s` : ''}`, 'goal ≤ 600 MB', verdict(stdio.peakRss, 600)] as Row,
          ]
        : []),
      [`peak RSS, ${n} files, in process from source`, `${fmt(maxRss)} MB`, `before the overview ${fmt(rssBefore / 1048576)} MB; young generation ${fmt(young)} MB; peak by call: ${phases.map(([k, v]) => `${k} ${fmt(v / 1048576)}`).join(', ')}`, 'goal ≤ 600 MB', verdict(maxRss, 600)],
      [`warm overview, ${n} files, one changed (file watcher)`, `${(warm.wall / 1000).toFixed(2)} s wall, ${cpu(warm)}`, `${watched}, re-read ${reread} file(s); block ${fmt(warm.block)} ms (gap ${fmt(warm.gap)})`, 'goal ≤ 2 s', verdict(warm.wall, 2000)],
      [`overview with a query, ${n} files (file watcher)`, `${(query.wall / 1000).toFixed(2)} s wall, ${cpu(query)}`, `block ${fmt(query.block)} ms (gap ${fmt(query.gap)})`, 'goal ≤ 3 s', verdict(query.wall, 3000)],
      [`warm overview, ${n} files (no watcher: mtime walk)`, `${(walked.wall / 1000).toFixed(2)} s wall, ${cpu(walked)}`, `block ${fmt(walked.block)} ms (gap ${fmt(walked.gap)})`, 'goal ≤ 2 s', verdict(walked.wall, 2000)],
      [`overview with a query, ${n} files (no watcher: mtime walk)`, `${(walkedQuery.wall / 1000).toFixed(2)} s wall, ${cpu(walkedQuery)}`, `block ${fmt(walkedQuery.block)} ms (gap ${fmt(walkedQuery.gap)})`, 'goal ≤ 3 s', verdict(walkedQuery.wall, 3000)],
    ];
  } finally {
    if (!closed) await s.close();
    rmSync(many.root, { recursive: true, force: true });
  }
}

/**
 * The same cold overview as the first call of a fresh built stdio server (dist/cli.js), for its wall time and its
 * peak RSS: the in-process rows run from source, with the workers through tsx and the tokenizer's ranks parsed from
 * js-tiktoken's module into a Map (~10 MB kept, more made and dropped), where the shipped bundle reads prebuilt
 * tables and starts bundled workers. Undefined without a build.
 */
async function stdioManyFiles(root: string, env: Record<string, string> = {}): Promise<{ wall: number; cpu: number; peakRss: number } | undefined> {
  if (!existsSync(join(__dirname, '../../dist/cli.js'))) return undefined;
  const cache = mkdtempSync(join(tmpdir(), 'bench-ctx-many-cache-'));
  try {
    // then the in-process rows' later calls: another budget (not the memoised answer) and two queries
    return await firstCallOverStdio(
      root,
      cache,
      'be-overview',
      {},
      [
        { name: 'be-overview', args: { budget: 1500 } },
        { name: 'be-overview', args: { query: 'widget helper 4242' } },
        { name: 'be-overview', args: { query: 'widget helper 4343' } },
      ],
      env,
    );
  } finally {
    rmSync(cache, { recursive: true, force: true });
  }
}

export async function scale(): Promise<Row[]> {
  const rows: Row[] = [];
  // BENCH_ONLY=outline,fresh,size,lines,files: only those rows (all by default)
  const only = new Set((process.env.BENCH_ONLY ?? 'outline,fresh,size,lines,files').split(','));
  if (only.has('outline')) rows.push(...(await outlineRows()));
  if (only.has('fresh')) rows.push(await freshWorkerRow());
  if (only.has('size')) rows.push(await sizeRow());
  if (only.has('lines')) rows.push(...(await linesRows()));
  if (!only.has('files')) return rows;
  const count = Number(process.env.BENCH_FILES ?? 200_000);
  const out = execFileSync(process.execPath, ['--import', 'tsx', __filename, '--many', String(count)], { encoding: 'utf8', maxBuffer: 1 << 24, stdio: ['ignore', 'pipe', 'inherit'] });
  rows.push(...(JSON.parse(out.trim().split('\n').pop()!) as Row[]));
  return rows;
}

export const SCALE_HEADER: Row = ['measure', 'value', 'detail', 'goal', 'verdict'];

if (require.main === module) {
  const at = process.argv.indexOf('--many');
  if (at >= 0) {
    manyFiles(Number(process.argv[at + 1]))
      .then((rows) => (console.log(JSON.stringify(rows)), process.exit(0)))
      .catch((e) => (console.error(e), process.exit(1)));
  } else {
    void import('./report').then(({ table }) =>
      scale()
        .then((rows) => (table([SCALE_HEADER, ...rows]), process.exit(0)))
        .catch((e) => (console.error(e), process.exit(1))),
    );
  }
}
