/**
 * jschardet, run on a worker thread. Its first load and first detection took 154-157 ms of the server's main thread
 * in one turn (test/reliability/encoding.rel.ts before this module, the first GBK file read through dist/cli.js; 300
 * ms and more on a loaded machine), over the 100 ms an event-loop turn may take. The worker loads it once, answers
 * each sample's detectAll, and ends after a minute without work (its memory comes back; the next guess starts one
 * again). The main thread only posts a sample of at most a few KiB and awaits the answer.
 */
import { Worker } from 'node:worker_threads';
import { ToolError } from '../../errors';
import type { Guess } from '../encoding';
import { vendorPath } from './vendor';

/** A detection answers in ~5-60 ms; this bounds a wedged worker (then the next guess starts a fresh one). */
const ANSWER_TIMEOUT_MS = 15_000;
/** An idle worker is ended after this long. */
const IDLE_MS = 60_000;

// Plain CommonJS: evaluated as the worker's script, with require, in both the bundle and a run from source.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const chardet = require(workerData.path);
parentPort.on('message', ({ id, bytes }) => {
  try {
    const all = chardet.detectAll(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
    parentPort.postMessage({ id, all: all.map((g) => ({ encoding: g.encoding, confidence: g.confidence })) });
  } catch (err) {
    parentPort.postMessage({ id, error: String((err && err.message) || err) });
  }
});
`;

interface Pending {
  resolve: (all: Guess[]) => void;
  reject: (err: Error) => void;
  timer: NodeJS.Timeout;
}

let worker: Worker | undefined;
let nextId = 0;
const pending = new Map<number, Pending>();
let idleTimer: NodeJS.Timeout | undefined;

function failAll(err: Error): void {
  for (const p of pending.values()) {
    clearTimeout(p.timer);
    p.reject(err);
  }
  pending.clear();
}

function start(): Worker {
  const w = new Worker(WORKER_SOURCE, { eval: true, workerData: { path: vendorPath('jschardet') } });
  w.on('message', (m: { id: number; all?: Guess[]; error?: string }) => {
    const p = pending.get(m.id);
    if (!p) return;
    pending.delete(m.id);
    clearTimeout(p.timer);
    if (m.error !== undefined) p.reject(new Error(m.error));
    else p.resolve(m.all ?? []);
    settle(w);
  });
  w.on('error', (err) => {
    if (worker === w) worker = undefined;
    failAll(err);
  });
  w.on('exit', (code) => {
    if (worker === w) worker = undefined;
    if (pending.size > 0) failAll(new Error(`the encoding detector stopped (exit code ${code})`));
  });
  return w;
}

/** With nothing in flight the worker keeps no process alive, and ends after IDLE_MS. */
function settle(w: Worker): void {
  if (pending.size > 0) return;
  w.unref();
  clearTimeout(idleTimer);
  idleTimer = setTimeout(() => {
    if (worker === w && pending.size === 0) {
      worker = undefined;
      void w.terminate();
    }
  }, IDLE_MS);
  idleTimer.unref();
}

/** jschardet's detectAll of `sample`, computed on the worker thread. */
export function detectAllOffThread(sample: Uint8Array): Promise<Guess[]> {
  const w = (worker ??= start());
  w.ref(); // an answer is awaited
  clearTimeout(idleTimer);
  const id = ++nextId;
  return new Promise<Guess[]>((resolve, reject) => {
    const timer = setTimeout(() => {
      pending.delete(id);
      if (worker === w) worker = undefined;
      void w.terminate();
      reject(new Error(`no answer within ${ANSWER_TIMEOUT_MS / 1000} s`));
    }, ANSWER_TIMEOUT_MS);
    pending.set(id, { resolve, reject, timer });
    w.postMessage({ id, bytes: Uint8Array.from(sample) });
  }).catch((err: Error) => {
    throw new ToolError(
      'io',
      `The file is neither UTF-8 nor marked by a BOM, and guessing its encoding failed (${err.message}); nothing was changed. ` +
        'Say which encoding it is in (VS Code: files.encoding; CLI: --encoding "GLOB=NAME") and try again.',
    );
  });
}

/** Ends the worker now (tests; a server that shuts down does not need it: an idle worker holds nothing open). */
export async function stopGuessWorker(): Promise<void> {
  const w = worker;
  worker = undefined;
  clearTimeout(idleTimer);
  if (w) await w.terminate();
}
