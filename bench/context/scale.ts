/**
 * Overview speed and size at scale (the timing part of the former bench:context; the token figures moved to the
 * task replay in bench/context.ts): a generated ~1M-line folder, cold overview time, warm time after one file
 * changed (with and without the file watcher), and the overview size for a ~20,000-line folder.
 *
 *   node --import tsx bench/context/scale.ts        (BENCH_LINES=200000 for a quicker run)
 *   npm run bench:context -- --scale                (the same, after the replay)
 */
import { watch, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { performance } from 'node:perf_hooks';
import { RepoMap } from '../../src/core/context/repoMap';
import { getTokenizer } from '../../src/core/memory/node/tokenizer';
import { fmt, table } from './report';
import { diskReader } from '../../src/core/context/node/readWalked';
import { diskWalker } from '../../src/core/context/node/walk';

const tk = getTokenizer();
const FIXTURE = join(__dirname, '../fixtures/order-service');
const cpuMs = (u: NodeJS.CpuUsage) => (u.user + u.system) / 1000;

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
  collect(join(__dirname, '../../src'), join(__dirname, '../..'));
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

export async function scale(): Promise<(string | number)[][]> {
  const rows: (string | number)[][] = [];
  const small = generateFolder(20_000);
  try {
    const map = new RepoMap(small.root, { tokenizer: tk, reader: diskReader, walker: diskWalker });
    const r = await map.overview();
    rows.push([`overview of a ${fmt(small.lines)}-line folder (${small.files} files)`, `${fmt(tk.count(r.text))} tokens`, `budget 1,024; ${r.shownFiles} key files shown; goal ≤ 1,024`]);
  } finally {
    rmSync(small.root, { recursive: true, force: true });
  }
  const big = generateFolder(Number(process.env.BENCH_LINES ?? 1_000_000));
  try {
    const map = new RepoMap(big.root, { tokenizer: tk, reader: diskReader, walker: diskWalker });
    const t = performance.now();
    const cpu = process.cpuUsage();
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


if (require.main === module) {
  scale()
    .then((rows) => table([['measure', 'value', 'note'], ...rows]))
    .catch((e) => {
      console.error(e);
      process.exit(1);
    });
}
