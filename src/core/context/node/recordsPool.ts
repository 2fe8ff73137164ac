/**
 * The cold index's second describer (the RecordDescriber port of recordData.ts): one worker thread that describes
 * batches of files' bytes while the map's own thread describes others (repoMap.ts readAll), so that on two cores
 * a cold overview's tag scans run side by side. Describing is CPU only: the bytes are read (and checked) by the
 * map's reader on its own thread, and the worker answers plain data (recordData.ts).
 *
 *  - Started on the first batch, ended after `idleMs` without one; it keeps no process alive.
 *  - A worker that fails, exits or takes over `timeoutMs` rejects its batches; the map then describes them itself,
 *    and the next batch starts a fresh worker.
 */
import { Worker } from 'node:worker_threads';
import type { RecordData, RecordDescriber } from '../recordData';
import type { RecordsAnswer, RecordsJob } from './recordsWorker';
import { workerScript } from './workerScript';

export interface RecordsPoolOptions {
  timeoutMs?: number;
  idleMs?: number;
}

interface Pending {
  resolve(data: RecordData[]): void;
  reject(err: Error): void;
  timer: NodeJS.Timeout;
}

export class RecordsPool implements RecordDescriber {
  private worker: Worker | undefined;
  private readonly pending = new Map<number, Pending>();
  private nextId = 0;
  private idle: NodeJS.Timeout | undefined;
  private closed = false;
  private readonly timeoutMs: number;
  private readonly idleMs: number;

  constructor(opts: RecordsPoolOptions = {}) {
    this.timeoutMs = opts.timeoutMs ?? 60_000;
    this.idleMs = opts.idleMs ?? 30_000;
  }

  /** A worker is running (for tests). */
  get running(): boolean {
    return this.worker !== undefined;
  }

  describe(files: readonly { rel: string; bytes: Uint8Array }[]): Promise<RecordData[]> {
    if (this.closed) return Promise.reject(new Error('the records pool is closed'));
    const worker = this.worker ?? this.start();
    // one buffer for the batch, moved to the worker rather than copied again
    const ends: number[] = [];
    let total = 0;
    for (const f of files) ends.push((total += f.bytes.length));
    const all = new Uint8Array(total);
    for (const [i, f] of files.entries()) all.set(f.bytes, i ? ends[i - 1]! : 0);
    const job: RecordsJob = { id: this.nextId++, rels: files.map((f) => f.rel), bytes: all.buffer, ends };
    return new Promise<RecordData[]>((resolve, reject) => {
      const timer = setTimeout(() => this.end(new Error(`describing files took over ${this.timeoutMs} ms and was abandoned`)), this.timeoutMs);
      this.pending.set(job.id, { resolve, reject, timer });
      clearTimeout(this.idle);
      worker.ref();
      worker.postMessage(job, [all.buffer]);
    });
  }

  /** Ends the worker; batches under way reject. */
  async close(): Promise<void> {
    this.closed = true;
    await this.end(new Error('the records pool is closed'));
  }

  private start(): Worker {
    const script = workerScript('records-worker.js', 'recordsWorker.ts');
    // execArgv []: a loader among the host's flags (`node --import tsx`) would load again in the worker
    const worker = new Worker(script.file, { eval: script.eval, execArgv: [] });
    worker.on('message', (m: RecordsAnswer) => {
      const p = this.pending.get(m.id);
      if (!p) return;
      this.pending.delete(m.id);
      clearTimeout(p.timer);
      if ('error' in m) p.reject(new Error(m.error));
      else p.resolve(m.data);
      if (!this.pending.size) this.settle(worker);
    });
    const lost = (err: Error) => {
      if (this.worker !== worker) return;
      this.worker = undefined;
      this.rejectAll(err);
    };
    worker.on('error', lost);
    worker.on('exit', (code) => lost(new Error(`the records worker stopped (exit code ${code})`)));
    this.worker = worker;
    return worker;
  }

  /** With nothing to do the worker keeps no process alive, and ends after idleMs. */
  private settle(worker: Worker): void {
    worker.unref();
    clearTimeout(this.idle);
    this.idle = setTimeout(() => void this.end(), this.idleMs);
    this.idle.unref();
  }

  private async end(err = new Error('the records worker was ended')): Promise<void> {
    clearTimeout(this.idle);
    const worker = this.worker;
    this.worker = undefined;
    this.rejectAll(err);
    await worker?.terminate();
  }

  private rejectAll(err: Error): void {
    for (const p of this.pending.values()) {
      clearTimeout(p.timer);
      p.reject(err);
    }
    this.pending.clear();
  }
}
