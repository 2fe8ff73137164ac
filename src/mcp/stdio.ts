/**
 * Newline-delimited JSON-RPC over stdio without the SDK ReadBuffer's limits: the SDK concatenates every chunk
 * (quadratic on big lines) and closes the transport once its `maxBufferSize` (10 MB by default) is buffered, which would kill the server the way
 * upstream's 64 KiB bufio.Scanner did. Here a line may be up to `maxLineBytes`; a longer one is skipped (its id is
 * recovered from its head or tail when possible, to answer with an error) and the server keeps serving.
 *
 * A JSON-RPC batch (an array on one line) is answered as JSON-RPC 2.0 says: each request is handed to the server
 * on its own, and their responses go out together as one array once the last is ready; invalid members get their
 * error in that array; a batch of notifications only gets no reply. (The SDK's own transport drops arrays silently.)
 */
import process from 'node:process';
import type { Readable, Writable } from 'node:stream';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { JSONRPCMessageSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

export const DEFAULT_MAX_LINE_BYTES = 64 * 1024 * 1024;
const KEEP_BYTES = 4096;

export interface LineStdioOptions {
  maxLineBytes?: number;
  log?: (message: string) => void;
}

export class LineStdioServerTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  private readonly maxLineBytes: number;
  private readonly log: (m: string) => void;
  private chunks: Buffer[] = [];
  private pendingBytes = 0;
  /** While skipping an oversized line: its size so far, its head and its latest tail. */
  private skipping?: { bytes: number; head: Buffer; tail: Buffer };
  private started = false;
  private closed = false;
  /** Ids of requests not answered yet: at the end of input they are answered before the transport closes. */
  private readonly inFlight = new Set<string | number>();
  private inputEnded = false;
  /** Requests of a batch waiting for their response, by id; the batch is written when none is left. */
  private readonly batchOf = new Map<string | number, Batch>();

  constructor(
    private readonly stdin: Readable = process.stdin,
    private readonly stdout: Writable = process.stdout,
    opts: LineStdioOptions = {},
  ) {
    this.maxLineBytes = opts.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
    this.log = opts.log ?? (() => {});
  }

  async start(): Promise<void> {
    if (this.started) throw new Error('LineStdioServerTransport already started');
    this.started = true;
    this.stdin.on('data', this.onData);
    this.stdin.on('error', this.onStreamError);
    this.stdin.on('end', this.onEnd);
  }

  private readonly onStreamError = (error: Error) => this.onerror?.(error);
  /** A client may write its requests and close stdin at once (a shell pipe): answer them all, then close. */
  private readonly onEnd = () => {
    this.inputEnded = true;
    if (this.inFlight.size === 0) void this.close();
  };

  private readonly onData = (chunk: Buffer | string) => {
    let buf = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
    while (buf.length > 0) {
      const nl = buf.indexOf(0x0a);
      const part = nl === -1 ? buf : buf.subarray(0, nl);
      this.accept(part);
      if (nl === -1) break;
      this.endLine();
      buf = buf.subarray(nl + 1);
    }
  };

  private accept(part: Buffer): void {
    if (part.length === 0) return;
    if (this.skipping) {
      this.skipping.bytes += part.length;
      this.skipping.tail = keepTail(this.skipping.tail, part);
      return;
    }
    if (this.pendingBytes + part.length > this.maxLineBytes) {
      const all = Buffer.concat([...this.chunks, part]);
      this.skipping = { bytes: all.length, head: all.subarray(0, KEEP_BYTES), tail: keepTail(Buffer.alloc(0), all) };
      this.chunks = [];
      this.pendingBytes = 0;
      return;
    }
    // copy: the stream may reuse its buffers
    this.chunks.push(Buffer.from(part));
    this.pendingBytes += part.length;
  }

  private endLine(): void {
    if (this.skipping) {
      const { bytes, head, tail } = this.skipping;
      this.skipping = undefined;
      this.rejectOversized(bytes, head, tail);
      return;
    }
    const line = this.chunks.length === 1 ? this.chunks[0] : Buffer.concat(this.chunks);
    this.chunks = [];
    this.pendingBytes = 0;
    let text = line.toString('utf8');
    if (text.endsWith('\r')) text = text.slice(0, -1);
    if (text.trim() === '') return;
    this.dispatch(text);
  }

  private dispatch(text: string): void {
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (e) {
      this.log(`unparseable JSON-RPC line (${text.length} chars): ${(e as Error).message}`);
      void this.sendRaw({ jsonrpc: '2.0', id: null, error: { code: -32700, message: `Parse error: ${(e as Error).message}` } });
      return;
    }
    if (Array.isArray(json)) return this.dispatchBatch(json);
    const parsed = JSONRPCMessageSchema.safeParse(json);
    if (!parsed.success) {
      const id = idOf(json);
      // a request-shaped message gets an answer; anything else without an id is dropped (JSON-RPC forbids replying)
      if (id !== undefined) {
        void this.sendRaw({ jsonrpc: '2.0', id, error: { code: -32600, message: 'Invalid Request: not a JSON-RPC 2.0 message' } });
      }
      this.log('dropped a message that is not JSON-RPC 2.0');
      return;
    }
    const msg = parsed.data as { id?: string | number; method?: string };
    if (msg.id !== undefined && msg.method !== undefined) this.inFlight.add(msg.id);
    try {
      this.onmessage?.(parsed.data);
    } catch (e) {
      this.onerror?.(e as Error);
    }
  }

  private dispatchBatch(items: unknown[]): void {
    if (items.length === 0) {
      void this.sendRaw({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid Request: an empty batch; send at least one JSON-RPC message' } });
      return;
    }
    const batch: Batch = { responses: [], waiting: 0 };
    const accepted: JSONRPCMessage[] = [];
    const ids = new Set<string | number>();
    for (const item of items) {
      const parsed = JSONRPCMessageSchema.safeParse(item);
      if (!parsed.success) {
        // JSON-RPC: an invalid member gets its error in the batch reply, with its id when it has a usable one
        batch.responses.push({ jsonrpc: '2.0', id: idOf(item) ?? null, error: { code: -32600, message: 'Invalid Request: not a JSON-RPC 2.0 message' } });
        continue;
      }
      const msg = parsed.data as { id?: string | number; method?: string };
      if (msg.id !== undefined && msg.method !== undefined) {
        if (ids.has(msg.id) || this.inFlight.has(msg.id)) {
          const message = `Invalid Request: id ${JSON.stringify(msg.id)} is already used by another request in progress; give each request its own id`;
          batch.responses.push({ jsonrpc: '2.0', id: msg.id, error: { code: -32600, message } });
          continue;
        }
        ids.add(msg.id);
        this.inFlight.add(msg.id);
        this.batchOf.set(msg.id, batch);
        batch.waiting++;
      }
      accepted.push(parsed.data);
    }
    for (const message of accepted) {
      try {
        this.onmessage?.(message);
      } catch (e) {
        this.onerror?.(e as Error);
      }
    }
    // nothing to wait for: only notifications and responses (no reply at all), or errors only
    if (batch.waiting === 0 && batch.responses.length > 0) void this.sendRaw(batch.responses);
  }

  private rejectOversized(bytes: number, head: Buffer, tail: Buffer): void {
    const id = sniffId(tail.toString('utf8')) ?? sniffId(head.toString('utf8'));
    const message =
      `Request too large: the JSON-RPC message is ${bytes} bytes; this server accepts at most ${this.maxLineBytes} bytes per message. ` +
      'Send smaller contents (split the change into several calls).';
    this.log(message);
    if (id !== undefined) void this.sendRaw({ jsonrpc: '2.0', id, error: { code: -32600, message } });
  }

  async send(message: JSONRPCMessage): Promise<void> {
    const m = message as { id?: string | number; method?: string };
    const isResponse = m.id !== undefined && m.method === undefined;
    const batch = isResponse ? this.batchOf.get(m.id!) : undefined;
    if (batch) {
      this.batchOf.delete(m.id!);
      batch.responses.push(message);
      if (--batch.waiting === 0) await this.sendRaw(batch.responses);
    } else {
      await this.sendRaw(message);
    }
    if (isResponse && this.inFlight.delete(m.id!) && this.inputEnded && this.inFlight.size === 0) {
      await this.close();
    }
  }

  private sendRaw(message: unknown): Promise<void> {
    if (this.closed) return Promise.resolve();
    return new Promise((resolve) => {
      if (this.stdout.write(JSON.stringify(message) + '\n')) resolve();
      else this.stdout.once('drain', resolve);
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.stdin.off('data', this.onData);
    this.stdin.off('error', this.onStreamError);
    this.stdin.off('end', this.onEnd);
    if (this.stdin.listenerCount('data') === 0) this.stdin.pause();
    this.chunks = [];
    this.skipping = undefined;
    this.onclose?.();
  }
}

interface Batch {
  /** Responses and errors so far, written as one array when `waiting` reaches 0. */
  responses: unknown[];
  waiting: number;
}

function keepTail(prev: Buffer, part: Buffer): Buffer {
  if (part.length >= KEEP_BYTES) return Buffer.from(part.subarray(part.length - KEEP_BYTES));
  const joined = Buffer.concat([prev, part]);
  return joined.length > KEEP_BYTES ? joined.subarray(joined.length - KEEP_BYTES) : joined;
}

function idOf(json: unknown): string | number | undefined {
  if (json && typeof json === 'object' && 'id' in json) {
    const id = (json as { id: unknown }).id;
    if (typeof id === 'string' || typeof id === 'number') return id;
  }
  return undefined;
}

/** SDK clients serialise `id` after `params`, so it sits in the tail; a hand-written one may put it first. */
function sniffId(fragment: string): string | number | undefined {
  const matches = [...fragment.matchAll(/"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.)*")\s*[,}]/g)];
  const m = fragment.trimEnd().endsWith('}') ? matches.at(-1) : matches[0];
  if (!m) return undefined;
  try {
    return JSON.parse(m[1]) as string | number;
  } catch {
    return undefined;
  }
}
