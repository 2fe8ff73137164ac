/**
 * sha256 of a file's new bytes for the edit history. Inline by default, a megabyte at a time with a yield in
 * between, so it runs in the gaps of the concurrent write's I/O. Optionally (configureHasher) large inputs go to
 * a small worker: the parts are copied (one memcpy) into a reused SharedArrayBuffer (fresh shared memory is slow
 * to touch on some VMs) and hashed there while the main thread writes. Falls back to inline if no worker starts.
 */
import { createHash } from 'node:crypto';
import { Worker } from 'node:worker_threads';

const WORKER_SOURCE = `
const { parentPort } = require('node:worker_threads');
const { createHash } = require('node:crypto');
parentPort.on('message', (m) => {
  try {
    const hex = createHash('sha256').update(new Uint8Array(m.sab, 0, m.length)).digest('hex');
    parentPort.postMessage({ id: m.id, hex });
  } catch (e) {
    parentPort.postMessage({ id: m.id, error: String(e && e.message || e) });
  }
});
`;

/**
 * Files at least this large are hashed in the worker. Off by default (Infinity): the inline hash already
 * overlaps the write's I/O (it yields every megabyte), and the worker's isolate and shared buffer cost about
 * twice the file size in memory. A host with idle cores can turn it on with configureHasher.
 */
let offloadMinBytes = Number.POSITIVE_INFINITY;

export function configureHasher(opts: { offloadMinBytes?: number }): void {
  if (opts.offloadMinBytes !== undefined) offloadMinBytes = opts.offloadMinBytes;
}
const INLINE_CHUNK = 1024 * 1024;
/** Shared buffers kept for reuse: at most this many, each at most this large. */
const POOL_MAX_BUFFERS = 2;
const POOL_MAX_BYTES = 64 * 1024 * 1024;
const POOL_GRANULE = 1024 * 1024;

type Pending = { resolve: (hex: string) => void; reject: (e: Error) => void };

class HashWorker {
  private worker: Worker | undefined;
  private broken = false;
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private readonly pool: SharedArrayBuffer[] = [];

  private acquire(size: number): SharedArrayBuffer {
    let best = -1;
    for (let i = 0; i < this.pool.length; i++) {
      const len = this.pool[i].byteLength;
      if (len >= size && (best === -1 || len < this.pool[best].byteLength)) best = i;
    }
    if (best >= 0) return this.pool.splice(best, 1)[0];
    return new SharedArrayBuffer(Math.ceil(size / POOL_GRANULE) * POOL_GRANULE);
  }

  private release(sab: SharedArrayBuffer): void {
    if (sab.byteLength > POOL_MAX_BYTES) return;
    this.pool.push(sab);
    if (this.pool.length > POOL_MAX_BUFFERS) {
      // keep the largest ones: they serve every smaller file too
      this.pool.sort((a, b) => b.byteLength - a.byteLength);
      this.pool.length = POOL_MAX_BUFFERS;
    }
  }

  private get(): Worker | undefined {
    if (this.broken) return undefined;
    if (this.worker) return this.worker;
    try {
      const w = new Worker(WORKER_SOURCE, { eval: true });
      w.on('message', (m: { id: number; hex?: string; error?: string }) => {
        const p = this.pending.get(m.id);
        if (!p) return;
        this.pending.delete(m.id);
        if (this.pending.size === 0) w.unref();
        if (m.hex !== undefined) p.resolve(m.hex);
        else p.reject(new Error(m.error ?? 'hash failed'));
      });
      const fail = (e: unknown) => {
        this.broken = true;
        this.worker = undefined;
        for (const p of this.pending.values()) p.reject(e instanceof Error ? e : new Error(String(e)));
        this.pending.clear();
      };
      w.on('error', fail);
      w.on('exit', (code) => {
        if (this.worker === w) fail(new Error(`hash worker exited with code ${code}`));
      });
      w.unref();
      this.worker = w;
      return w;
    } catch {
      this.broken = true;
      return undefined;
    }
  }

  hash(parts: readonly Uint8Array[], size: number): Promise<string> | undefined {
    const w = this.get();
    if (!w) return undefined;
    const id = this.nextId++;
    const sab = this.acquire(size);
    const view = new Uint8Array(sab);
    let off = 0;
    for (const p of parts) {
      view.set(p, off);
      off += p.length;
    }
    return new Promise<string>((resolve, reject) => {
      const done = (fn: () => void) => {
        this.release(sab);
        fn();
      };
      this.pending.set(id, { resolve: (hex) => done(() => resolve(hex)), reject: (e) => done(() => reject(e)) });
      w.ref(); // keep the process alive while a hash is owed
      w.postMessage({ id, sab, length: size });
    });
  }

  /** For tests and clean shutdown. */
  async terminate(): Promise<void> {
    const w = this.worker;
    this.worker = undefined;
    if (w) await w.terminate();
  }
}

const shared = new HashWorker();

async function hashInline(parts: readonly Uint8Array[]): Promise<string> {
  const h = createHash('sha256');
  for (const p of parts) {
    for (let off = 0; off < p.length; off += INLINE_CHUNK) {
      h.update(p.subarray(off, Math.min(p.length, off + INLINE_CHUNK)));
      // yield between megabytes so a concurrent write's I/O callbacks run
      if (p.length > INLINE_CHUNK) await new Promise<void>((resolve) => setImmediate(resolve));
    }
  }
  return h.digest('hex');
}

/** sha256 hex of the concatenation of `parts`. */
export async function sha256Parts(...parts: Uint8Array[]): Promise<string> {
  let size = 0;
  for (const p of parts) size += p.length;
  if (size >= offloadMinBytes) {
    const viaWorker = shared.hash(parts, size);
    if (viaWorker) {
      try {
        return await viaWorker;
      } catch {
        // fall through to inline
      }
    }
  }
  return hashInline(parts);
}

export function terminateHashWorker(): Promise<void> {
  return shared.terminate();
}
