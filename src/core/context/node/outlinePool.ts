/**
 * Tree-sitter outlines on worker threads (the OutlineSource port of treeOutline.ts). A 4 MB C file's parse took
 * 3.7 s of the event loop in one block, and in VS Code that loop is the extension host's: every
 * extension froze. Here the main thread only posts the text and awaits the outline.
 *
 *  - Sized for 2 cores: one worker per core but one (the event loop keeps a core), at most 2, at least 1.
 *  - Cancellable: a job whose signal aborts leaves the queue, or, already parsing, ends its worker (a parse
 *    cannot be interrupted otherwise); the next job starts a fresh one. A job over `timeoutMs` is ended the same way.
 *  - Small texts go to a worker too: in-thread would save ~1 ms below 4 KB, but load each grammar on this thread.
 *  - A worker keeps its last outlines and its last large tree (outlineWorker.ts); an ended worker's go with it.
 *  - Idle workers end after `idleMs` and keep no process alive.
 */
import { availableParallelism } from 'node:os';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { Extracted, OutlineSource } from '../treeOutline';
import type { OutlineAnswer, OutlineJob } from './outlineWorker';

export interface OutlinePoolOptions {
  /** The folder whose `wasm/` holds the grammars (grammarsBeside); the bundle's own folder. */
  grammarsDir: string;
  /** Workers at most; default max(1, min(2, cores - 1)). */
  size?: number;
  timeoutMs?: number;
  idleMs?: number;
}

interface Job {
  id: number;
  text: string;
  languageId: string;
  resolve(ex: Extracted | undefined): void;
  reject(err: Error): void;
  signal?: AbortSignal;
  onAbort?: () => void;
}

interface Slot {
  worker: Worker;
  job: Job | undefined;
  timer: NodeJS.Timeout | undefined;
  idle: NodeJS.Timeout | undefined;
}

export function defaultPoolSize(): number {
  return Math.max(1, Math.min(2, availableParallelism() - 1));
}

function abortError(): Error {
  const e = new Error('the outline was cancelled');
  e.name = 'AbortError';
  return e;
}

/** How to start the worker: the bundled script beside the bundle, else the TypeScript source through tsx (tests, benches). */
function workerScript(): { file: string; eval: boolean } {
  const bundled = join(__dirname, 'outline-worker.js');
  if (existsSync(bundled)) return { file: bundled, eval: false };
  const source = join(__dirname, 'outlineWorker.ts');
  const tsx = 'tsx/cjs'; // a variable: the bundle never takes this path, and the bundler leaves it alone
  return { file: `require(${JSON.stringify(require.resolve(tsx))}); require(${JSON.stringify(source)});`, eval: true };
}

export class OutlinePool implements OutlineSource {
  readonly size: number;
  private readonly slots: Slot[] = [];
  private readonly queue: Job[] = [];
  private nextId = 0;
  private closed = false;
  private readonly timeoutMs: number;
  private readonly idleMs: number;

  constructor(private readonly opts: OutlinePoolOptions) {
    this.size = opts.size ?? defaultPoolSize();
    this.timeoutMs = opts.timeoutMs ?? 60_000;
    this.idleMs = opts.idleMs ?? 60_000;
  }

  /** Workers running now (for tests). */
  get workers(): number {
    return this.slots.length;
  }

  outline(text: string, languageId: string, signal?: AbortSignal): Promise<Extracted | undefined> {
    if (signal?.aborted) return Promise.reject(abortError());
    if (this.closed) return Promise.reject(new Error('the outline pool is closed'));
    return new Promise((resolve, reject) => {
      const job: Job = { id: this.nextId++, text, languageId, resolve, reject, signal };
      if (signal) {
        job.onAbort = () => this.cancel(job);
        signal.addEventListener('abort', job.onAbort, { once: true });
      }
      this.queue.push(job);
      this.pump();
    });
  }

  /** Ends every worker; queued and running jobs reject. */
  async close(): Promise<void> {
    this.closed = true;
    for (const job of this.queue.splice(0)) this.finish(job, undefined, new Error('the outline pool is closed'));
    await Promise.all(this.slots.splice(0).map((s) => this.end(s, new Error('the outline pool is closed'))));
  }

  private pump(): void {
    while (this.queue.length) {
      let slot = this.slots.find((s) => !s.job);
      if (!slot && this.slots.length < this.size) slot = this.start();
      if (!slot) return;
      const job = this.queue.shift()!;
      this.run(slot, job);
    }
  }

  private start(): Slot {
    const script = workerScript();
    const worker = new Worker(script.file, { eval: script.eval, workerData: { grammarsDir: this.opts.grammarsDir } });
    const slot: Slot = { worker, job: undefined, timer: undefined, idle: undefined };
    worker.on('message', (m: OutlineAnswer) => {
      const job = slot.job;
      if (!job || job.id !== m.id) return;
      clearTimeout(slot.timer);
      slot.job = undefined;
      if ('error' in m) this.finish(job, undefined, new Error(m.error));
      else this.finish(job, m.outline);
      this.settle(slot);
      this.pump();
    });
    const lost = (err: Error) => {
      const at = this.slots.indexOf(slot);
      if (at < 0) return;
      this.slots.splice(at, 1);
      clearTimeout(slot.timer);
      clearTimeout(slot.idle);
      const job = slot.job;
      slot.job = undefined;
      if (job) this.finish(job, undefined, err);
      this.pump();
    };
    worker.on('error', (err) => lost(err));
    worker.on('exit', (code) => lost(new Error(`the outline worker stopped (exit code ${code})`)));
    this.slots.push(slot);
    return slot;
  }

  private run(slot: Slot, job: Job): void {
    clearTimeout(slot.idle);
    slot.worker.ref();
    slot.job = job;
    slot.timer = setTimeout(() => void this.end(slot, new Error(`the outline took over ${this.timeoutMs} ms and was abandoned`)), this.timeoutMs);
    slot.worker.postMessage({ id: job.id, text: job.text, languageId: job.languageId } satisfies OutlineJob);
  }

  /** With nothing to do a worker keeps no process alive, and ends after idleMs. */
  private settle(slot: Slot): void {
    slot.worker.unref();
    clearTimeout(slot.idle);
    slot.idle = setTimeout(() => void this.end(slot), this.idleMs);
    slot.idle.unref();
  }

  private cancel(job: Job): void {
    const queued = this.queue.indexOf(job);
    if (queued >= 0) {
      this.queue.splice(queued, 1);
      this.finish(job, undefined, abortError());
      return;
    }
    const slot = this.slots.find((s) => s.job === job);
    if (slot) void this.end(slot, abortError());
  }

  /** Ends a worker; its job (if any) rejects with `err`. */
  private async end(slot: Slot, err?: Error): Promise<void> {
    const at = this.slots.indexOf(slot);
    if (at >= 0) this.slots.splice(at, 1);
    clearTimeout(slot.timer);
    clearTimeout(slot.idle);
    const job = slot.job;
    slot.job = undefined;
    if (job) this.finish(job, undefined, err ?? new Error('the outline worker was ended'));
    await slot.worker.terminate();
    this.pump();
  }

  private finish(job: Job, ex: Extracted | undefined, err?: Error): void {
    if (job.onAbort) job.signal?.removeEventListener('abort', job.onAbort);
    if (err) job.reject(err);
    else job.resolve(ex);
  }
}
