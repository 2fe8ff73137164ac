/**
 * Context-mode benchmark (npm run bench:context [folder]): what the three read levels save, measured with
 * the o200k_base tokenizer on what an agent would actually receive (the JSON of each tool result).
 *  1. overview tokens vs reading every source file in full;
 *  2. median structure/full token ratio for files over 200 lines;
 *  3. a scripted task replay ("find where the order amount is computed and reject negative amounts"):
 *     overview → structure → one function range → edit, vs reading whole files; total and peak tokens;
 *  4. a generated ~1M-line folder: cold overview time, warm time after one file changed;
 *     and the overview size for a ~20,000-line folder.
 */
import { cpSync, watch, mkdtempSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { performance } from 'node:perf_hooks';
import { ContextService } from '../src/core/context/service';
import { RepoMap } from '../src/core/context/repoMap';
import { getTokenizer } from '../src/core/memory/tokenizer';
import { createServices } from '../src/mcp/services';
import { walkFiles } from '../src/core/context/walk';
import { languageIdFromPath } from '../src/core/text/language';
import { isCodeLanguage } from '../src/core/context/tags';

const tk = getTokenizer();
const FIXTURE = join(__dirname, 'fixtures/order-service');
const json = (x: unknown) => JSON.stringify(x);
const fmt = (n: number) => n.toLocaleString('en-US');
const pct = (x: number) => `${(x * 100).toFixed(1)}%`;

const cpuMs = (u: NodeJS.CpuUsage) => (u.user + u.system) / 1000;

function table(rows: (string | number)[][]): void {
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => String(r[c]).length)));
  for (const [i, r] of rows.entries()) {
    console.log('| ' + r.map((v, c) => String(v).padEnd(widths[c]!)).join(' | ') + ' |');
    if (i === 0) console.log('|' + widths.map((w) => '-'.repeat(w + 2)).join('|') + '|');
  }
}

async function withWorkspace<T>(src: string, fn: (root: string, ctx: ContextService, svc: Awaited<ReturnType<typeof createServices>>) => Promise<T>): Promise<T> {
  const base = mkdtempSync(join(tmpdir(), 'bench-ctx-'));
  const root = join(base, 'ws');
  cpSync(src, root, { recursive: true, filter: (p) => !/node_modules|\.git$/.test(p) });
  const svc = await createServices({ roots: [root], chipDir: join(base, 'chips'), historyDir: join(base, 'history') });
  const ctx = new ContextService({ sandbox: svc.sandbox, files: svc.files, tokenizer: tk, upstreamRead: (a) => svc.edits.read(a) });
  try {
    return await fn(root, ctx, svc);
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
}

async function folderNumbers(label: string, src: string): Promise<(string | number)[][]> {
  return withWorkspace(src, async (root, ctx, svc) => {
    const { files } = await walkFiles(root);
    const code = files.filter((f) => isCodeLanguage(languageIdFromPath(f.rel)) && f.size < 1024 * 1024);
    let fullTokens = 0;
    let lines = 0;
    const ratios: number[] = [];
    for (const f of code) {
      // What be-read returns for the whole file, page by page.
      let fileTokens = 0;
      let next: string | undefined = f.rel;
      let column: number | undefined;
      while (next) {
        const r = (await ctx.read({ file: next, mode: 'full', column })) as { next?: { file: string; column?: number } };
        fileTokens += tk.count(json(r));
        next = r.next?.file;
        column = r.next?.column;
      }
      fullTokens += fileTokens;
      const text = readFileSync(f.abs, 'utf8');
      const n = text.split('\n').length;
      lines += n;
      if (n > 200) {
        const s = await ctx.read({ file: f.rel, mode: 'structure' });
        ratios.push(tk.count(json(s)) / fileTokens);
      }
    }
    const ov = await ctx.overview({});
    const ovTokens = tk.count(json(ov));
    ratios.sort((a, b) => a - b);
    const median = ratios.length ? (ratios.length % 2 ? ratios[(ratios.length - 1) >> 1]! : (ratios[ratios.length / 2 - 1]! + ratios[ratios.length / 2]!) / 2) : NaN;
    void svc;
    return [
      [`${label}: source files / lines`, `${code.length} / ${fmt(lines)}`, ''],
      [`${label}: overview reply tokens`, fmt(ovTokens), `vs ${fmt(fullTokens)} reading every file in full (${pct(ovTokens / fullTokens)})`],
      [`${label}: median structure/full (files > 200 lines)`, ratios.length ? pct(median) : 'n/a', `${ratios.length} files; goal ≤ 15%`],
    ];
  });
}

async function replay(): Promise<(string | number)[][]> {
  return withWorkspace(FIXTURE, async (root, ctx, svc) => {
    const calls: { mode: string; call: string; tokens: number }[] = [];
    const record = (mode: string, call: string, args: unknown, result: unknown) => calls.push({ mode, call, tokens: tk.count(json(args)) + tk.count(json(result)) });
    const file = 'src/pricing/priceCalculator.ts';
    const fix = '  calculate(price: Money, quantity: number): Money {\n    if (price.amount < 0 || quantity < 0) throw new RangeError(`negative amount: price ${price.amount}, quantity ${quantity}`);';

    // With context modes: map → structure → one function → edit.
    const ovArgs = { query: 'order amount price calculate' };
    record('context', 'be-overview', ovArgs, await ctx.overview(ovArgs));
    const sArgs = { file, mode: 'structure' as const };
    const structure = (await ctx.read(sArgs)) as { outline: string };
    record('context', 'be-read structure', sArgs, structure);
    const m = /calculate\(price: Money, quantity: number\): Money @L(\d+)-(\d+)/.exec(structure.outline)!;
    const rArgs = { file: `${file}:${m[1]}-${m[2]}` };
    const fn = (await ctx.read(rArgs)) as unknown as { viewed_code_id: string };
    record('context', 'be-read range', rArgs, fn);
    const editArgs = { file: `${file}:${m[1]}-${m[1]}`, content: fix, viewed_code_id: fn.viewed_code_id };
    record('context', 'be-replace', editArgs, await svc.edits.replace(editArgs));

    // Whole-file reading: list the tree, read the likely files in full, edit.
    const { files } = await walkFiles(root);
    const listing = files.map((f) => f.rel).join('\n');
    record('whole', 'list files', { path: '.' }, listing);
    let vid = '';
    for (const f of ['src/domain/order.ts', 'src/services/orderService.ts', file]) {
      const r = (await svc.edits.read({ file: f })) as { viewed_code_id: string };
      record('whole', `read ${f.split('/').pop()}`, { file: f }, r);
      vid = r.viewed_code_id;
    }
    // Same edit on the original text: re-create the file first.
    cpSync(join(FIXTURE, file), join(root, file));
    const r2 = (await svc.edits.read({ file })) as { viewed_code_id: string };
    vid = r2.viewed_code_id;
    const editArgs2 = { file: `${file}:${m[1]}-${m[1]}`, content: fix, viewed_code_id: vid };
    record('whole', 'be-replace', editArgs2, await svc.edits.replace(editArgs2));

    const sum = (mode: string) => calls.filter((c) => c.mode === mode).reduce((n, c) => n + c.tokens, 0);
    const peak = (mode: string) => Math.max(...calls.filter((c) => c.mode === mode).map((c) => c.tokens));
    const withCtx = sum('context');
    const whole = sum('whole');
    console.log('\nTask replay calls (tokens = arguments + result JSON):');
    table([['mode', 'call', 'tokens'], ...calls.map((c) => [c.mode, c.call, fmt(c.tokens)])]);
    return [
      ['replay: total tokens, context modes vs whole files', `${fmt(withCtx)} vs ${fmt(whole)}`, `${pct(1 - withCtx / whole)} fewer; goal ≥ 70% (seed: 57%)`],
      ['replay: peak single call', `${fmt(peak('context'))} vs ${fmt(peak('whole'))}`, ''],
    ];
  });
}

/** Replicate realistic TypeScript (this repository's src/ and the fixture) until `targetLines`. */
function generateFolder(targetLines: number): { root: string; lines: number; files: number } {
  const root = mkdtempSync(join(tmpdir(), 'bench-ctx-big-'));
  const sources: { rel: string; text: string; lines: number }[] = [];
  const collect = (dir: string, base: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) collect(p, base);
      else if (/\.ts$/.test(e.name)) {
        const text = readFileSync(p, 'utf8');
        sources.push({ rel: relative(base, p), text, lines: text.split('\n').length });
      }
    }
  };
  collect(join(__dirname, '../src'), join(__dirname, '..'));
  collect(FIXTURE, FIXTURE);
  let lines = 0;
  let files = 0;
  for (let copy = 0; lines < targetLines; copy++) {
    for (const s of sources) {
      if (lines >= targetLines) break;
      const dest = join(root, `pkg${copy}`, s.rel);
      mkdirSync(join(dest, '..'), { recursive: true });
      writeFileSync(dest, s.text);
      lines += s.lines;
      files++;
    }
  }
  return { root, lines, files };
}

async function scale(): Promise<(string | number)[][]> {
  const rows: (string | number)[][] = [];
  const small = generateFolder(20_000);
  try {
    const map = new RepoMap(small.root, { tokenizer: tk });
    const r = await map.overview();
    rows.push([`overview of a ${fmt(small.lines)}-line folder (${small.files} files)`, `${fmt(tk.count(r.text))} tokens`, `budget 1,024; ${r.shownFiles} key files shown; goal ≤ 1,024`]);
  } finally {
    rmSync(small.root, { recursive: true, force: true });
  }
  const big = generateFolder(Number(process.env.BENCH_LINES ?? 1_000_000));
  try {
    const map = new RepoMap(big.root, { tokenizer: tk });
    let t = performance.now();
    let cpu = process.cpuUsage();
    await map.overview();
    const cold = performance.now() - t;
    const coldCpu = cpuMs(process.cpuUsage(cpu));
    const coldSplit = Object.entries(map.stats.lastMs).map(([k, v]) => `${k} ${v.toFixed(0)}`).join(', ');
    const parsedCold = map.stats.parsed;
    const split = () => Object.entries(map.stats.lastMs).map(([k, v]) => `${k} ${v.toFixed(0)}`).join(', ');
    const measure = async () => {
      const t0 = performance.now();
      const c0 = process.cpuUsage();
      await map.overview();
      return { wall: performance.now() - t0, cpu: cpuMs(process.cpuUsage(c0)), split: split() };
    };
    rows.push([`cold overview, ${fmt(big.lines)} lines / ${fmt(big.files)} files`, `${(cold / 1000).toFixed(2)} s wall, ${(coldCpu / 1000).toFixed(2)} s CPU`, `ms: ${coldSplit}; goal ≤ 10 s on 2 cores`]);
    const changed = join(big.root, 'pkg0/src/pricing/tax.ts');
    const original = readFileSync(changed, 'utf8');
    // Two kinds of edit: a body-only change (same names defined and used: the ranking stays) and a new export.
    const edits: [string, string][] = [
      ['a body changed', original.replace(/\n/, '\n// bench: touched\n')],
      ['a new export', original + '\nexport const benchTouched = 1;\n'],
    ];
    // 1. No watcher: every warm refresh stats every file and compares mtimes (the fallback).
    for (const [what, text] of edits) {
      writeFileSync(changed, text);
      const m = await measure();
      rows.push([`warm overview, ${what}, mtime walk (no watcher)`, `${m.wall.toFixed(0)} ms wall, ${m.cpu.toFixed(0)} ms CPU`, `ms: ${m.split}; goal ≤ 100 ms`]);
    }
    // 2. With the watcher as the CLI attaches it (fs.watch recursive → invalidate): only reported paths are looked at.
    const events: string[] = [];
    const watcher = watch(big.root, { recursive: true }, (_e, name) => {
      if (name) events.push(name.toString());
      map.invalidate(name ? join(big.root, name.toString()) : big.root);
    });
    map.setWatched(true);
    try {
      for (const [what, text] of [['a body changed back', original] as [string, string], ...edits]) {
        events.length = 0;
        writeFileSync(changed, text);
        // The event arrives within milliseconds; wait for it outside the measurement.
        for (let i = 0; i < 200 && !events.length; i++) await new Promise((r) => setTimeout(r, 5));
        const parsed = map.stats.parsed;
        const m = await measure();
        rows.push([`warm overview, ${what}, file watcher`, `${m.wall.toFixed(0)} ms wall, ${m.cpu.toFixed(0)} ms CPU`, `re-read ${map.stats.parsed - parsed} file(s); ms: ${m.split}; goal ≤ 100 ms`]);
      }
    } finally {
      watcher.close();
    }
    const m = await measure();
    rows.push(['warm overview, nothing changed', `${m.wall.toFixed(0)} ms wall`, `${map.stats.walks} walks, ${map.stats.watchedRefreshes} watched refreshes, ${map.stats.parsed - parsedCold} re-reads in all`]);
  } finally {
    rmSync(big.root, { recursive: true, force: true });
  }
  return rows;
}

async function main(): Promise<void> {
  const extra = process.argv[2];
  console.log(`context-mode benchmark · node ${process.version} · ${cpus().length} cores · load avg ${loadavg().map((x) => x.toFixed(1)).join(' ')}`);
  tk.count('warm up the tokenizer');
  const rows: (string | number)[][] = [['measure', 'value', 'note']];
  rows.push(...(await folderNumbers('order-service', FIXTURE)));
  if (extra) rows.push(...(await folderNumbers(relative(process.cwd(), extra) || extra, extra)));
  rows.push(...(await replay()));
  if (!process.env.BENCH_SKIP_SCALE) rows.push(...(await scale()));
  console.log('');
  table(rows);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
