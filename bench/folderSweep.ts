/**
 * Folder-sweep benchmark (npm run bench:edits:folders; not part of the test suite).
 * The first write in a folder (at most once a minute per folder) also sweeps it: a dead writer's temps and locks
 * there go. This times that first write, in folders of FILES files, against a later write in the same folder and
 * against the floor (the same bytes written to a temp, fsynced and renamed in plain Node), interleaved, one fresh
 * store per first write. BENCH_RUNS (default 15), BENCH_FOLDER_FILES (comma-separated counts, default 10,20000),
 * BENCH_BEFORE_SRC=path/to/another/checkout: that checkout's store too, interleaved (before/after in one run).
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { NodeFileStore } from '../src/core/files/nodeFileStore';

const RUNS = Number(process.env.BENCH_RUNS ?? 15);
const COUNTS = (process.env.BENCH_FOLDER_FILES ?? '10,20000').split(',').map(Number);
const BODY = Buffer.from(Array.from({ length: 100 }, (_, i) => `export const value${i} = ${i};`).join('\n') + '\n');

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

async function floorWrite(file: string, bytes: Buffer): Promise<void> {
  const tmp = `${file}.floor.tmp`;
  const fh = await fs.promises.open(tmp, 'w');
  await fh.write(bytes);
  await fh.sync();
  await fh.close();
  await fs.promises.rename(tmp, file);
}

type Store = { write(file: string, bytes: Uint8Array): Promise<unknown> };
type StoreClass = new (opts: { crossProcess: boolean }) => Store;

/** The first write in the folder with a fresh store, then a later one: ms of each. */
async function firstAndLater(Make: StoreClass, target: string): Promise<[number, number]> {
  const store = new Make({ crossProcess: true });
  let t = performance.now();
  await store.write(target, BODY);
  const a = performance.now() - t;
  t = performance.now();
  await store.write(target, BODY);
  return [a, performance.now() - t];
}

async function main(): Promise<void> {
  const beforeSrc = process.env.BENCH_BEFORE_SRC;
  const Before = beforeSrc
    ? ((await import(path.resolve(beforeSrc, 'src/core/files/nodeFileStore.ts'))) as { NodeFileStore: StoreClass }).NodeFileStore
    : undefined;
  const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'be-bench-folders-')));
  try {
    console.log(`bench:edits:folders, median of ${RUNS} interleaved runs, ms per write of a ${BODY.length}-byte file`);
    console.log('');
    const extra = Before ? ` | before (${beforeSrc}): first write | first / before |` : ' |';
    console.log(`| files in the folder | first write there (sweeps it) | later write | floor | first / later | first / floor${extra}`);
    console.log(`|---|---|---|---|---|---|${Before ? '---|---|' : ''}`);
    for (const count of COUNTS) {
      const dir = path.join(base, `n${count}`);
      fs.mkdirSync(dir);
      for (let i = 0; i < count; i++) fs.writeFileSync(path.join(dir, `f${i}.txt`), '');
      const target = path.join(dir, 'f0.txt');
      const first: number[] = [];
      const later: number[] = [];
      const floor: number[] = [];
      const beforeFirst: number[] = [];
      for (let r = 0; r < RUNS + 2; r++) {
        const [a, b] = await firstAndLater(NodeFileStore, target);
        const t = performance.now();
        await floorWrite(target, BODY);
        const c = performance.now() - t;
        const d = Before ? (await firstAndLater(Before, target))[0] : NaN;
        if (r < 2) continue; // warm-up rounds
        first.push(a);
        later.push(b);
        floor.push(c);
        beforeFirst.push(d);
      }
      const [f, l, fl] = [median(first), median(later), median(floor)];
      const before = Before ? ` | ${median(beforeFirst).toFixed(2)} | ${(f / median(beforeFirst)).toFixed(2)}x` : '';
      console.log(`| ${count.toLocaleString('en')} | ${f.toFixed(2)} | ${l.toFixed(2)} | ${fl.toFixed(2)} | ${(f / l).toFixed(2)}x | ${(f / fl).toFixed(2)}x${before} |`);
    }
  } finally {
    fs.rmSync(base, { recursive: true, force: true });
  }
}

void main();
