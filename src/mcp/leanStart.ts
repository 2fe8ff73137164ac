/**
 * The stdio CLI's lean start: the first requests of a session answered without the MCP SDK, whose schemas (zod) and
 * server cost a start ~20 ms of evaluation before its first tool call could run. The fast front (fastStart.ts) has
 * answered `initialize`; from there this layer reads the lines and answers the plain requests the SDK server would
 * answer the same way, byte for byte (test/cli/leanStart.test.ts compares both): `ping`, `tools/list`, `tools/call`
 * of a known tool (through the session's one tool caller), `notifications/initialized` and `notifications/cancelled`.
 * At the first line it does not answer so (another method, an unusual field, `_meta`, a batch, a line over 1 MiB)
 * or when told to (the CLI does at the first idle moment), it hands the session to the SDK server: that server reads
 * the session's initialize and initialized notification again (its initialize reply is the front's dropped
 * duplicate), then every line from there on, in order. The calls this layer began still answer from here: it keeps
 * watching those lines for their `notifications/cancelled` (the SDK server knows nothing of them).
 *
 * Nothing here imports the SDK's runtime: the CLI loads it with the hand-over.
 */
import { PassThrough, type Readable } from 'node:stream';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { ToolCaller } from './callPipeline';
import { initializeReply } from './fastStart';

type Id = string | number;
type Json = Record<string, unknown>;

/** A line longer than this before its newline goes to the SDK server's transport (it handles lines of any size). */
const MAX_LEAN_LINE = 1024 * 1024;
/** JSON-RPC's internal error, the code the SDK's Protocol answers a failed handler with when it names none. */
const INTERNAL_ERROR = -32603;

export interface LeanStartOptions {
  /** Every byte the client sent, from the first (the front's input). */
  input: Readable;
  /** Whether the front answered the first line (then it was a plain 2025 initialize or a 2026 discover). */
  frontAnswered: () => boolean;
  /** Writes one reply line to the client. */
  write: (line: string) => void;
  caller: ToolCaller;
  /** The tools/list result's tools, as the SDK server lists them. */
  listing: () => Tool[];
  /** Resolves when the services are composed: a tool call waits for it, as in the SDK server's gated transport. */
  ready: Promise<unknown>;
  /** Starts the SDK server reading `input`: the session's lines from its initialize on. */
  handOver: (input: Readable) => void;
  /** The client closed its input while this layer served, and every call it began has answered. */
  onEnd: () => void;
}

export interface LeanStart {
  /** Hands the session to the SDK server now (once; later calls do nothing). */
  handOver(): void;
}

/** Starts reading `opts.input` (a session whose first line the front did not answer is handed over at once). */
export function startLean(opts: LeanStartOptions): LeanStart {
  let pending: Buffer = Buffer.alloc(0);
  /** The session's initialize line and its initialized notification, for the SDK server. */
  let initialize: string | undefined;
  let initialized: string | undefined;
  let clientName: string | undefined;
  let rest: PassThrough | undefined;
  let ended = false;
  /** Calls not answered yet. One cancelled while it waits for the services never runs (the gated transport drops
   * such a request too, clientRoots.ts); one that runs is told through its signal, and its answer is not sent. */
  const inFlight = new Map<Id, { abort: AbortController }>();
  /** After the hand-over, while calls begun here are in flight: the partial last line of what went on to the SDK
   * server (undefined while a line too long to be a cancellation is skipped). */
  let watched: Buffer | undefined = Buffer.alloc(0);

  const handOver = () => {
    if (rest) return;
    rest = new PassThrough();
    for (const line of [initialize, initialized]) if (line !== undefined) rest.write(line + '\n');
    if (pending.length) {
      rest.write(pending);
      watchCancels(pending); // from the start of the line left to the SDK server: it may hold a cancellation too
    }
    pending = Buffer.alloc(0);
    if (ended) rest.end();
    opts.handOver(rest);
  };

  const reply = (m: Json) => opts.write(JSON.stringify(m) + '\n');
  const finished = (id: Id) => {
    inFlight.delete(id);
    if (ended && !rest && inFlight.size === 0) opts.onEnd();
  };

  const call = (id: Id, name: string, args: unknown) => {
    const abort = new AbortController();
    inFlight.set(id, { abort });
    void opts.ready
      .then(() => (abort.signal.aborted ? undefined : opts.caller.call(name, args ?? {}, { signal: abort.signal, client: clientName })))
      .then(
        // key order as the SDK's Protocol writes a response; a cancelled request gets none
        (result) => void (abort.signal.aborted ? undefined : reply({ result, jsonrpc: '2.0', id })),
        (e: unknown) => {
          if (abort.signal.aborted) return;
          const err = (e ?? {}) as { code?: unknown; message?: unknown; data?: unknown };
          const code = Number.isSafeInteger(err.code) ? err.code : INTERNAL_ERROR;
          reply({ jsonrpc: '2.0', id, error: { code, message: err.message ?? 'Internal error', ...(err.data !== undefined ? { data: err.data } : {}) } });
        },
      )
      .finally(() => finished(id));
  };

  /** Answers or takes `line` as the SDK server would; false: the SDK server must see it. */
  const take = (line: string): boolean => {
    if (initialize === undefined) {
      // the front answered exactly this initialize (2025 era); anything else is the SDK server's from the start
      if (!opts.frontAnswered() || !initializeReply(line)) return false;
      initialize = line;
      clientName = ((JSON.parse(line) as Json).params as { clientInfo: { name: string } }).clientInfo.name;
      return true;
    }
    if (line.trim() === '') return true; // the SDK's transport skips blank lines too
    let m: unknown;
    try {
      m = JSON.parse(line);
    } catch {
      return false;
    }
    if (!isObject(m) || m.jsonrpc !== '2.0' || !onlyKeys(m, ['jsonrpc', 'id', 'method', 'params'])) return false;
    const params = m.params;
    if (!('id' in m)) {
      if (m.method === 'notifications/initialized' && params === undefined && initialized === undefined) {
        initialized = line;
        return true;
      }
      if (m.method === 'notifications/cancelled' && isObject(params) && onlyKeys(params, ['requestId', 'reason'])) return cancel(params);
      return false;
    }
    const id = m.id;
    if (!isId(id) || inFlight.has(id)) return false;
    const noParams = params === undefined || (isObject(params) && Object.keys(params).length === 0);
    if (m.method === 'ping' && noParams) {
      reply({ result: {}, jsonrpc: '2.0', id });
      return true;
    }
    if (m.method === 'tools/list' && noParams) {
      reply({ result: { tools: opts.listing() }, jsonrpc: '2.0', id });
      return true;
    }
    if (m.method === 'tools/call' && isObject(params) && onlyKeys(params, ['name', 'arguments']) && typeof params.name === 'string') {
      // an unknown name's answer is a protocol error the SDK server words: it gets the request
      if (!opts.caller.knows(params.name)) return false;
      call(id, params.name, params.arguments);
      return true;
    }
    return false;
  };

  /** Cancels the call `params.requestId` names, if it is one of this layer's; false: not a cancellation's params. */
  const cancel = (params: Json): boolean => {
    if (!isId(params.requestId) || (params.reason !== undefined && typeof params.reason !== 'string')) return false;
    inFlight.get(params.requestId)?.abort.abort(params.reason);
    return true;
  };

  /** The lines after the hand-over, watched for a cancellation of a call begun here, as long as one is in flight. */
  const watchCancels = (buf: Buffer) => {
    if (inFlight.size === 0) return;
    let from = 0;
    for (let nl = buf.indexOf(0x0a); nl !== -1; from = nl + 1, nl = buf.indexOf(0x0a, from)) {
      if (watched === undefined) watched = Buffer.alloc(0); // the end of a skipped line
      else cancelIn(Buffer.concat([watched, buf.subarray(from, nl)]).toString('utf8'));
      watched = Buffer.alloc(0);
    }
    if (watched !== undefined) watched = watched.length + buf.length - from > MAX_LEAN_LINE ? undefined : Buffer.concat([watched, buf.subarray(from)]);
  };
  const cancelIn = (line: string) => {
    if (!line.includes('notifications/cancelled')) return;
    let m: unknown;
    try {
      m = JSON.parse(line);
    } catch {
      return;
    }
    if (isObject(m) && m.jsonrpc === '2.0' && m.method === 'notifications/cancelled' && !('id' in m) && isObject(m.params)) cancel(m.params);
  };

  opts.input.on('data', (chunk: Buffer | string) => {
    const buf = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
    if (rest) {
      rest.write(buf);
      return watchCancels(buf);
    }
    pending = pending.length ? Buffer.concat([pending, buf]) : Buffer.from(buf); // copied: the stream may reuse its buffers
    let nl: number;
    while (!rest && (nl = pending.indexOf(0x0a)) !== -1) {
      let line = pending.subarray(0, nl).toString('utf8');
      if (line.endsWith('\r')) line = line.slice(0, -1);
      if (!take(line)) return handOver(); // from this line on, all of it
      pending = pending.subarray(nl + 1);
    }
    if (!rest && pending.length > MAX_LEAN_LINE) handOver();
  });
  opts.input.on('end', () => {
    ended = true;
    if (rest) rest.end();
    else if (inFlight.size === 0) opts.onEnd();
  });
  return { handOver };
}

function isId(v: unknown): v is Id {
  return typeof v === 'string' || (typeof v === 'number' && Number.isSafeInteger(v));
}

function isObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function onlyKeys(o: Json, keys: readonly string[]): boolean {
  return Object.keys(o).every((k) => keys.includes(k));
}
