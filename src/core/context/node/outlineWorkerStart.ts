/**
 * How an outline worker starts, and workers started before the pool exists: the stdio loader (src/cli/bin.ts) starts
 * them as the process starts and hands them over (handOverOutlineWorkers); the pool the server composes adopts them
 * (OutlinePool.adopt). A worker's start (the thread, its script, the tree-sitter runtime: ~0.1-0.2 s) then runs
 * while the server bundle loads, not in the first structure read. Nothing heavy is imported here: the ~2 KB loader
 * bundles this module.
 */
import { availableParallelism } from 'node:os';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Worker } from 'node:worker_threads';

/** Workers at most: one per core but one (the event loop keeps a core), at most 2, at least 1. */
export function defaultPoolSize(): number {
  return Math.max(1, Math.min(2, availableParallelism() - 1));
}

/** Workers one large text is parsed on at once: one per core, at most 2. */
export function defaultParallel(): number {
  return Math.max(1, Math.min(2, availableParallelism()));
}

/** The bundled worker script beside a bundle in `dir`, if it is there. */
export function bundledWorkerScript(dir: string): string | undefined {
  const bundled = join(dir, 'outline-worker.js');
  return existsSync(bundled) ? bundled : undefined;
}

/** A worker started before its pool, and whether it has already ended (then it is not adopted). */
export interface StartedWorker {
  worker: Worker;
  exited: boolean;
  /** Keeps an error before adoption from being an uncaught one; the pool removes it when it adopts the worker. */
  onError: (err: Error) => void;
}

export function startOutlineWorker(script: { file: string; eval: boolean }, grammarsDir: string): Worker {
  // execArgv [] : a worker inherits the host's flags, and a loader among them (`node --import tsx`, as the benches
  // and tests run) loaded again in each worker, ~0.2 s of CPU apiece; the script needs none of them
  // loaded here: a start that runs no worker (BET_NO_EARLY_WORKERS=1, --help) does not load node:worker_threads
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { Worker } = require('node:worker_threads') as typeof import('node:worker_threads');
  return new Worker(script.file, { eval: script.eval, execArgv: [], workerData: { grammarsDir } });
}

/** `count` workers of the bundled script in `dir`, keeping no process alive; none when the script is not there. */
export function startWorkersAhead(dir: string, count = Math.max(defaultPoolSize(), defaultParallel())): StartedWorker[] {
  const file = bundledWorkerScript(dir);
  if (!file) return [];
  return Array.from({ length: count }, () => {
    const worker = startOutlineWorker({ file, eval: false }, dir);
    const started: StartedWorker = { worker, exited: false, onError: () => undefined };
    worker.on('error', started.onError);
    worker.once('exit', () => (started.exited = true));
    worker.unref();
    return started;
  });
}

const WORKERS_KEY = Symbol.for('better-edit-tools.outline-workers');

export function handOverOutlineWorkers(workers: StartedWorker[]): void {
  (globalThis as Record<symbol, unknown>)[WORKERS_KEY] = workers;
}

/** The workers the loader started (once: a second call gets none). */
export function takeOutlineWorkers(): StartedWorker[] {
  const g = globalThis as Record<symbol, unknown>;
  const workers = (g[WORKERS_KEY] as StartedWorker[] | undefined) ?? [];
  delete g[WORKERS_KEY];
  return workers;
}
