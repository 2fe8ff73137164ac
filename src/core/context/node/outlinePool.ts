/**
 * Tree-sitter outlines on worker threads (the OutlineSource port of treeOutline.ts). A 4 MB C file's parse took
 * 3.7 s of the event loop in one block, and in VS Code that loop is the extension host's: every
 * extension froze. Here the main thread only posts the text and awaits the outline.
 *
 *  - Sized for 2 cores: one worker per core but one (the event loop keeps a core), at most 2, at least 1; only the
 *    parts of one large text use up to one per core (the event loop waits for them).
 *  - Cancellable: a job whose signal aborts leaves the queue, or, already parsing, ends its worker (a parse
 *    cannot be interrupted otherwise); the next job starts a fresh one. A job over `timeoutMs` is ended the same way.
 *  - A large text of a language outlineChunks.ts can cut is parsed in parts on `parallel` workers at once (a 4 MB
 *    C file: two 2 MB parses at once instead of one of 4 MB), each part on the same worker as last time (lanes), so that its kept tree
 *    serves the re-parse after an edit; a part that does not parse cleanly sends the text to be parsed whole (a file with a syntax error pays both).
 *  - Small texts go to a worker too: in-thread would save ~1 ms below 4 KB, but load each grammar on this thread.
 *  - A worker keeps its last outlines and its last large tree (outlineWorker.ts); an ended worker's go with it.
 *  - Idle workers end after `idleMs` and keep no process alive. The modules they compiled stay (`compiled`).
 */
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { Extracted, OutlineSource } from '../treeOutline';
import { cutPoints, cutText, joinOutlines } from '../outlineChunks';
import type { CompiledNote, OutlineAnswer, OutlineJob, OutlineWorkerData } from './outlineWorker';
import { workerScript } from './workerScript';

export interface OutlinePoolOptions {
  /** The folder whose `wasm/` holds the grammars (grammarsBeside); the bundle's own folder. */
  grammarsDir: string;
  /** Workers at most; default max(1, min(2, cores - 1)). */
  size?: number;
  /** Workers one large text is parsed on at once (outlineChunks.ts); default min(2, cores). */
  parallel?: number;
  /** Texts from this many characters on are parsed in parts; default 1 MiB. */
  partChars?: number;
  timeoutMs?: number;
  idleMs?: number;
  /** How long the compiled modules outlive the last worker; default 10 × idleMs (after a 4 MB C file they hold 14–19 MB). */
  keepCompiledMs?: number;
}

interface Job {
  id: number;
  text: string;
  languageId: string;
  /** The worker this part of a text prefers (the one that parsed it last time). */
  lane?: number;
  resolve(ex: Extracted | undefined): void;
  reject(err: Error): void;
  signal?: AbortSignal;
  onAbort?: () => void;
}

interface Slot {
  worker: Worker;
  lane: number;
  job: Job | undefined;
  timer: NodeJS.Timeout | undefined;
  idle: NodeJS.Timeout | undefined;
}

export function defaultPoolSize(): number {
  return Math.max(1, Math.min(2, availableParallelism() - 1));
}

export function defaultParallel(): number {
  return Math.max(1, Math.min(2, availableParallelism()));
}

function abortError(): Error {
  const e = new Error('the outline was cancelled');
  e.name = 'AbortError';
  return e;
}

export class OutlinePool implements OutlineSource {
  readonly size: number;
  readonly parallel: number;
  private readonly partChars: number;
  private readonly slots: Slot[] = [];
  private readonly queue: Job[] = [];
  private nextId = 0;
  private closed = false;
  private warming: NodeJS.Timeout | undefined;
  private readonly timeoutMs: number;
  private readonly idleMs: number;
  /**
   * The .wasm modules the workers compiled (runtime and grammars; with their machine code 14–19 MB of this
   * process after a 4 MB C file): a worker started after an idle one ended, or after a cancel, starts with the code its
   * predecessors optimised. Dropped `keepCompiledMs` after the last worker ended.
   */
  private readonly compiled = new Map<string, WebAssembly.Module>();
  private dropCompiled: NodeJS.Timeout | undefined;

  constructor(private readonly opts: OutlinePoolOptions) {
    this.size = opts.size ?? defaultPoolSize();
    this.parallel = opts.parallel ?? defaultParallel();
    this.partChars = opts.partChars ?? 1024 * 1024;
    this.timeoutMs = opts.timeoutMs ?? 60_000;
    this.idleMs = opts.idleMs ?? 60_000;
  }

  /** The .wasm files compiled so far, and how many times a worker compiled one (for tests). */
  get compiledFiles(): string[] {
    return [...this.compiled.keys()];
  }
  compiles = 0;

  /** Workers running now (for tests). */
  get workers(): number {
    return this.slots.length;
  }

  outline(text: string, languageId: string, signal?: AbortSignal): Promise<Extracted | undefined> {
    const cuts = this.parallel > 1 && text.length >= this.partChars ? cutPoints(text, languageId, this.parallel) : [];
    return cuts.length ? this.inParts(text, languageId, cuts, signal) : this.submit(text, languageId, signal);
  }

  /** The parts on their lanes at once; one that fails or is cancelled cancels the others. */
  private async inParts(text: string, languageId: string, cuts: number[], signal?: AbortSignal): Promise<Extracted | undefined> {
    if (signal?.aborted) throw abortError();
    const all = new AbortController();
    const onAbort = () => all.abort();
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      const outlines = await Promise.all(
        cutText(text, cuts).map(async (part, lane) => {
          try {
            return { outline: await this.submit(part.text, languageId, all.signal, lane), lineOffset: part.lineOffset };
          } catch (err) {
            all.abort();
            throw err;
          }
        }),
      );
      const joined = joinOutlines(outlines);
      if (joined) return joined;
    } finally {
      signal?.removeEventListener('abort', onAbort);
    }
    return this.submit(text, languageId, signal);
  }

  private submit(text: string, languageId: string, signal?: AbortSignal, lane?: number): Promise<Extracted | undefined> {
    if (signal?.aborted) return Promise.reject(abortError());
    if (this.closed) return Promise.reject(new Error('the outline pool is closed'));
    return new Promise((resolve, reject) => {
      const job: Job = { id: this.nextId++, text, languageId, lane, resolve, reject, signal };
      if (signal) {
        job.onAbort = () => this.cancel(job);
        signal.addEventListener('abort', job.onAbort, { once: true });
      }
      this.queue.push(job);
      this.pump();
    });
  }

  /**
   * Starts the workers a file is parsed on (`size`) after `delayMs` (0: now), unless one has started by then: the
   * runtime loads while nothing waits for it (a worker's start costs ~0.3 s of CPU). The extra lanes of a file of
   * `partChars` and more start with its first parse, or here when `forLargeText` says one is about to be parsed: each
   * worker holds ~20 MB, and a warmed lane no file that large needs held it through every overview of 200,000 files.
   * They keep no process alive and end after `idleMs` like any idle worker.
   */
  warm(delayMs = 0, forLargeText = false): void {
    if (this.closed || this.slots.length || this.warming) return;
    const startAll = () => {
      this.warming = undefined;
      if (this.closed || this.slots.length) return;
      const lanes = forLargeText ? Math.max(this.size, this.parallel) : this.size;
      for (let i = 0; i < lanes; i++) this.settle(this.start());
    };
    if (delayMs <= 0) return startAll();
    this.warming = setTimeout(startAll, delayMs);
    this.warming.unref();
  }

  /** With no worker left, the compiled modules go after keepCompiledMs (a new worker keeps them). */
  private afterLastWorker(): void {
    if (this.slots.length || !this.compiled.size) return;
    clearTimeout(this.dropCompiled);
    this.dropCompiled = setTimeout(() => this.compiled.clear(), this.opts.keepCompiledMs ?? 10 * this.idleMs);
    this.dropCompiled.unref();
  }

  /** Ends every worker; queued and running jobs reject. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.warming);
    clearTimeout(this.dropCompiled);
    for (const job of this.queue.splice(0)) this.finish(job, undefined, new Error('the outline pool is closed'));
    await Promise.all(this.slots.splice(0).map((s) => this.end(s, new Error('the outline pool is closed'))));
  }

  private pump(): void {
    while (this.queue.length) {
      const job = this.queue[0]!;
      const free = this.slots.filter((s) => !s.job);
      let slot = free.find((s) => s.lane === job.lane) ?? (job.lane === undefined ? free[0] : undefined);
      // a part takes its own lane's worker (its kept tree is there), else starts it, else takes any free one
      if (!slot && this.slots.length < (job.lane === undefined ? this.size : Math.max(this.size, this.parallel))) slot = this.start(job.lane);
      slot ??= free[0];
      if (!slot) return;
      this.queue.shift();
      this.run(slot, job);
    }
  }

  private start(lane?: number): Slot {
    clearTimeout(this.dropCompiled);
    const script = workerScript('outline-worker.js', 'outlineWorker.ts');
    // execArgv [] : a worker inherits the host's flags, and a loader among them (`node --import tsx`, as the benches
    // and tests run) loaded again in each worker, ~0.2 s of CPU apiece; the script needs none of them
    const workerData: OutlineWorkerData = { grammarsDir: this.opts.grammarsDir, compiled: [...this.compiled] };
    const worker = new Worker(script.file, { eval: script.eval, execArgv: [], workerData });
    const used = new Set(this.slots.map((s) => s.lane));
    if (lane === undefined || used.has(lane)) for (lane = 0; used.has(lane); lane++);
    const slot: Slot = { worker, lane, job: undefined, timer: undefined, idle: undefined };
    worker.on('message', (m: OutlineAnswer | CompiledNote) => {
      if ('compiled' in m) {
        this.compiles++;
        return void this.compiled.set(m.compiled, m.module);
      }
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
      this.afterLastWorker();
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
    this.afterLastWorker();
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
