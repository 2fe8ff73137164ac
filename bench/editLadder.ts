/**
 * What each safety step of an edit costs over the durable-write floor (npm run bench:edits:ladder; not part of
 * the test suite). Plain Node, no server: the floor of bench/edits.ts (read, write a temp file, fsync, rename),
 * then the steps our edit path takes, added one at a time: the folder's fsync (the rename survives a crash), the
 * lock file beside the file (created exclusively, its record written), the byte-compare with the bytes the
 * edit was computed from just before the rename, the read-back after it, and the sha256 of the new bytes with the
 * undo snapshot (temp + rename, no fsync). The last rung takes all those steps with synchronous calls but for the
 * two fsyncs (what the same safety costs without a thread-pool trip per call: each trip is ~50 µs on a small
 * machine). Each rung edits its own copy of the file; the rungs are interleaved, so drift hits all alike. Prints
 * median ms per edit and the multiple of the floor.
 * BENCH_SIZES=4k,1m,10m (k: KiB, m: MiB), BENCH_RUNS=30.
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs/promises';
import * as fsSync from 'node:fs';
import { promisify } from 'node:util';
import * as os from 'node:os';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';

const RUNS = Number(process.env.BENCH_RUNS ?? 30);
const WARMUP = 3;
const SIZES = (process.env.BENCH_SIZES ?? '4k,1m,10m').split(',').map((s) => {
  const m = /^(\d+)([km])$/i.exec(s.trim());
  if (!m) throw new Error(`BENCH_SIZES: not a size: ${s}`);
  return Number(m[1]) * (m[2]!.toLowerCase() === 'k' ? 1024 : 1024 * 1024);
});

type Step = 'folder' | 'lock' | 'compare' | 'readBack' | 'snapshot' | 'sync';
const ALL: Step[] = ['folder', 'lock', 'compare', 'readBack', 'snapshot'];
const RUNGS: [string, Step[]][] = [
  ['floor: read, write, fsync, rename', []],
  ['+ folder fsync', ['folder']],
  ['+ lock file (exclusive create, write)', ['folder', 'lock']],
  ['+ byte-compare before the rename', ['folder', 'lock', 'compare']],
  ['+ read-back after the rename', ['folder', 'lock', 'compare', 'readBack']],
  ['+ sha256 and the undo snapshot', ALL],
  ['the same, sync calls but the fsyncs', [...ALL, 'sync']],
];

/** The whole file in one positional read (a short read is its end), as the floor of bench/edits.ts reads it. */
async function readWhole(p: string): Promise<Buffer> {
  const fh = await fs.open(p, 'r');
  try {
    const { size } = await fh.stat();
    const buf = Buffer.allocUnsafe(size + 1);
    const { bytesRead } = await fh.read(buf, 0, buf.length, 0);
    return buf.subarray(0, bytesRead);
  } finally {
    await fh.close();
  }
}

async function syncFolder(dir: string): Promise<void> {
  const fh = await fs.open(dir, 'r');
  try {
    await fh.sync();
  } finally {
    await fh.close();
  }
}

const fsyncFd = promisify(fsSync.fsync);

function readWholeSync(p: string): Buffer {
  const fd = fsSync.openSync(p, 'r');
  try {
    const { size } = fsSync.fstatSync(fd);
    const buf = Buffer.allocUnsafe(size + 1);
    return buf.subarray(0, fsSync.readSync(fd, buf, 0, buf.length, 0));
  } finally {
    fsSync.closeSync(fd);
  }
}

/** Every step of the rung before, each call synchronous but the two fsyncs (the thread pool's only jobs). */
async function editSync(dir: string, name: string, needle: string, replacement: string): Promise<void> {
  const file = path.join(dir, name);
  const lock = path.join(dir, `.${name}.lock`);
  const lfd = fsSync.openSync(lock, 'wx');
  fsSync.writeSync(lfd, '{"pid":0,"token":"bench"}');
  fsSync.closeSync(lfd);
  const bytes = readWholeSync(file);
  const at = bytes.indexOf(needle);
  if (at < 0) throw new Error(`needle not found in ${name}`);
  const parts = [bytes.subarray(0, at), Buffer.from(replacement), bytes.subarray(at + Buffer.byteLength(needle))];
  const hash = parts.reduce((h, p) => h.update(p), createHash('sha256')).digest('hex');
  const tmp = `${file}.tmp`;
  const fd = fsSync.openSync(tmp, 'wx');
  try {
    fsSync.writevSync(fd, parts);
    await fsyncFd(fd);
  } finally {
    fsSync.closeSync(fd);
  }
  if (!readWholeSync(file).equals(bytes)) throw new Error(`${name} changed`);
  fsSync.renameSync(tmp, file);
  const dfd = fsSync.openSync(dir, 'r');
  const folderSynced = fsyncFd(dfd).finally(() => fsSync.closeSync(dfd));
  const size = parts.reduce((n, p) => n + p.length, 0);
  const back = readWholeSync(file);
  if (back.length !== size) throw new Error(`${name}: the read-back has ${back.length} bytes, not ${size}`);
  const snap = path.join(dir, `.snap-${process.pid}.tmp`);
  fsSync.writeFileSync(snap, JSON.stringify({ offset: at, removed: needle, after_hash: hash }), { flag: 'wx', mode: 0o600 });
  fsSync.renameSync(snap, path.join(dir, `snap-${name}.json`));
  await folderSynced;
  fsSync.unlinkSync(lock);
}

async function edit(dir: string, name: string, needle: string, replacement: string, steps: ReadonlySet<Step>): Promise<void> {
  if (steps.has('sync')) return editSync(dir, name, needle, replacement);
  const file = path.join(dir, name);
  const lock = path.join(dir, `.${name}.lock`);
  if (steps.has('lock')) {
    const fh = await fs.open(lock, 'wx');
    await fh.writeFile('{"pid":0,"token":"bench"}');
    await fh.close();
  }
  const bytes = await readWhole(file);
  const at = bytes.indexOf(needle);
  if (at < 0) throw new Error(`needle not found in ${name}`);
  const parts = [bytes.subarray(0, at), Buffer.from(replacement), bytes.subarray(at + Buffer.byteLength(needle))];
  const hash = steps.has('snapshot') ? parts.reduce((h, p) => h.update(p), createHash('sha256')).digest('hex') : '';
  const tmp = `${file}.tmp`;
  const fh = await fs.open(tmp, 'wx');
  try {
    await fh.writev(parts);
    await fh.sync();
  } finally {
    await fh.close();
  }
  if (steps.has('compare') && !(await readWhole(file)).equals(bytes)) throw new Error(`${name} changed`);
  await fs.rename(tmp, file);
  const size = parts.reduce((n, p) => n + p.length, 0);
  await Promise.all([
    steps.has('folder') ? syncFolder(dir) : undefined,
    steps.has('readBack')
      ? readWhole(file).then((b) => {
          if (b.length !== size) throw new Error(`${name}: the read-back has ${b.length} bytes, not ${size}`);
        })
      : undefined,
    steps.has('snapshot')
      ? (async () => {
          const snap = path.join(dir, `.snap-${process.pid}.tmp`);
          const s = await fs.open(snap, 'wx', 0o600);
          await s.writeFile(JSON.stringify({ offset: at, removed: needle, after_hash: hash }));
          await s.close();
          await fs.rename(snap, path.join(dir, `snap-${name}.json`));
        })()
      : undefined,
  ]);
  if (steps.has('lock')) await fs.unlink(lock);
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

async function main(): Promise<void> {
  const dir = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'bet-ladder-')));
  try {
    console.log(`median ms per edit, ${RUNS} edits per rung after ${WARMUP} warm-up, interleaved (node ${process.version}, ${os.cpus().length} cpus)`);
    for (const bytes of SIZES) {
      const lines: string[] = [];
      for (let n = 1, size = 0; size < bytes; n++) {
        lines.push(`const value_${String(n).padStart(7, '0')} = compute(${n}, "abcdefghijklmnop");\n`);
        size += lines[lines.length - 1]!.length;
      }
      const line = lines[lines.length >> 1]!;
      const current = RUNGS.map(() => line);
      for (let r = 0; r < RUNGS.length; r++) await fs.writeFile(path.join(dir, `f${r}-${bytes}.txt`), lines.join(''));
      const ms: number[][] = RUNGS.map(() => []);
      for (let i = 0; i < WARMUP + RUNS; i++) {
        for (let r = 0; r < RUNGS.length; r++) {
          const next = `${line.slice(0, -1)} // v${i}\n`;
          const t = performance.now();
          await edit(dir, `f${r}-${bytes}.txt`, current[r]!, next, new Set(RUNGS[r]![1]));
          if (i >= WARMUP) ms[r]!.push(performance.now() - t);
          current[r] = next;
        }
      }
      const floor = median(ms[0]!);
      const label = bytes >= 1024 * 1024 ? `${bytes / 1024 / 1024} MiB` : `${bytes / 1024} KiB`;
      for (let r = 0; r < RUNGS.length; r++) {
        const m = median(ms[r]!);
        console.log(`${label.padEnd(8)} ${RUNGS[r]![0].padEnd(36)} ${m.toFixed(2).padStart(8)} ms ${`${(m / floor).toFixed(2)}×`.padStart(7)} the floor`);
      }
    }
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
