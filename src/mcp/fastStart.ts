/**
 * A stdio front that answers the client's `initialize` (or a 2026-07-28 `server/discover`) before the server
 * bundle is loaded. MCP clients start one
 * CLI process per session and wait for that reply; loading the bundle (the SDK's zod schemas above all) took
 * ~100 ms of a ~160 ms start. The reply is the one the SDK server gives (same negotiation, same capabilities and
 * serverInfo: test/cli/fastStart.test.ts compares both byte for byte), and the real server still receives the same
 * initialize request afterwards (so it knows the client), its duplicate reply being dropped here. Everything the
 * client sends flows through `input`, in order, into the real transport once it is attached.
 *
 * Nothing here imports the SDK: this module is bundled into the 2 KB loader (dist/cli.js).
 */
import { PassThrough, Writable, type Readable } from 'node:stream';
import { version } from '../../package.json';
import { checkEnvelope, CLIENT_CAPABILITIES_KEY, CLIENT_INFO_KEY, discoverResult, PROTOCOL_VERSION_KEY, resultMessage } from './era2026';

/** The SDK's LATEST_PROTOCOL_VERSION and SUPPORTED_PROTOCOL_VERSIONS (a test keeps them equal). */
export const LATEST_PROTOCOL_VERSION = '2025-11-25';
export const SUPPORTED_PROTOCOL_VERSIONS: readonly string[] = [LATEST_PROTOCOL_VERSION, '2025-06-18', '2025-03-26', '2024-11-05', '2024-10-07'];
/** What createServer() declares for the stdio CLI: tools, and the context-mode resources. */
const CAPABILITIES = { tools: { listChanged: false }, resources: { listChanged: false } };
const SERVER_INFO = { name: 'better-edit-tools', version };

type Id = string | number;

/**
 * The reply line the SDK server would send to `line`, or undefined when `line` is not a plainly well-formed
 * initialize request (then the real server answers it, whatever it is).
 */
export function initializeReply(line: string): { id: Id; reply: string } | undefined {
  let msg: unknown;
  try {
    msg = JSON.parse(line);
  } catch {
    return undefined;
  }
  // Only a request whose every field is one the SDK's schemas surely accept is answered here; anything unusual (an
  // unknown key, _meta, icons, tasks, a wrong type) goes to the real server, which answers it as it would without
  // the front (test/cli/fastStartMalformed.test.ts compares 46 such requests).
  if (!isObject(msg) || !onlyKeys(msg, ['jsonrpc', 'id', 'method', 'params']) || msg.jsonrpc !== '2.0' || msg.method !== 'initialize') return undefined;
  // an initialize that claims 2026-07-28 in its _meta is the dual-era layer's (-32601 there): not answered here
  const id = msg.id;
  if (!((typeof id === 'string') || (typeof id === 'number' && Number.isSafeInteger(id)))) return undefined;
  const params = msg.params;
  if (!isObject(params) || !onlyKeys(params, ['protocolVersion', 'capabilities', 'clientInfo'])) return undefined;
  if (typeof params.protocolVersion !== 'string' || !plainCapabilities(params.capabilities)) return undefined;
  const info = params.clientInfo;
  if (!isObject(info) || !onlyKeys(info, ['name', 'version', 'title', 'websiteUrl', 'description'])) return undefined;
  if (!Object.values(info).every((v) => typeof v === 'string') || info.name === undefined || info.version === undefined) return undefined;
  const protocolVersion = SUPPORTED_PROTOCOL_VERSIONS.includes(params.protocolVersion) ? params.protocolVersion : LATEST_PROTOCOL_VERSION;
  // key order as the SDK's Protocol writes a response: result, jsonrpc, id
  const reply = JSON.stringify({ result: { protocolVersion, capabilities: CAPABILITIES, serverInfo: SERVER_INFO }, jsonrpc: '2.0', id });
  return { id, reply };
}

/**
 * The reply line the full server (modernEra.ts in front of the SDK server) would send to a 2026-07-28
 * `server/discover` probe (Claude Code sends one first), or undefined when `line` is not plainly that request
 * with a valid envelope (an error, an unusual key, a batch: the real server answers it).
 */
export function discoverReply(line: string): { id: Id; reply: string } | undefined {
  let msg: unknown;
  try {
    msg = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (!isObject(msg) || !onlyKeys(msg, ['jsonrpc', 'id', 'method', 'params']) || msg.jsonrpc !== '2.0' || msg.method !== 'server/discover') return undefined;
  const id = msg.id;
  if (!((typeof id === 'string') || (typeof id === 'number' && Number.isSafeInteger(id)))) return undefined;
  const params = msg.params;
  if (!isObject(params) || !onlyKeys(params, ['_meta']) || !isObject(params._meta)) return undefined;
  if (!onlyKeys(params._meta, [PROTOCOL_VERSION_KEY, CLIENT_INFO_KEY, CLIENT_CAPABILITIES_KEY])) return undefined;
  // the one check the full server makes, so an envelope it accepts is one answered here, and only those
  if ('error' in checkEnvelope(params)) return undefined;
  return { id, reply: JSON.stringify(resultMessage(id, discoverResult(CAPABILITIES, SERVER_INFO))) };
}

/** The early reply to a first line the front answers: an initialize (2025) or a server/discover (2026). */
export function earlyReply(line: string): { id: Id; reply: string } | undefined {
  return initializeReply(line) ?? discoverReply(line);
}

export interface StdioFront {
  /** Everything read from stdin, from its first byte: the real transport reads this. */
  readonly input: Readable;
  /** The real transport writes here: stdout, less the real server's reply to the initialize already answered. */
  readonly output: Writable;
  /** Whether the first line was answered here (the lean start, leanStart.ts, serves only such a session). */
  answered(): boolean;
}

/**
 * Starts reading `stdin` now and answers a first-line initialize on `stdout` at once. Lines beyond 1 MiB before the
 * first newline are not sniffed (the real server deals with them).
 */
export function startStdioFront(stdin: Readable, stdout: Writable, log: (m: string) => void = () => {}): StdioFront {
  const input = new PassThrough();
  let head: Buffer[] | undefined = [];
  let headBytes = 0;
  let answered: { id: Id; reply: string } | undefined;

  const sniff = (chunk: Buffer) => {
    if (!head) return;
    const nl = chunk.indexOf(0x0a);
    head.push(nl === -1 ? chunk : chunk.subarray(0, nl));
    headBytes += nl === -1 ? chunk.length : nl;
    if (nl === -1 && headBytes <= 1024 * 1024) return;
    const line = nl === -1 ? undefined : Buffer.concat(head).toString('utf8');
    head = undefined;
    answered = line === undefined ? undefined : earlyReply(line);
    if (answered) stdout.write(answered.reply + '\n');
  };
  stdin.on('data', (chunk: Buffer | string) => {
    const buf = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
    sniff(buf);
    input.write(buf);
  });
  stdin.on('end', () => input.end());
  // the real transport reports a read error; before it is attached there is no one to tell: end the input
  stdin.on('error', (e) => (input.listenerCount('error') > 0 ? input.destroy(e) : input.end()));

  let dropped = false;
  const output = new Writable({
    write(chunk: Buffer, _enc, done) {
      if (answered && !dropped && isReplyTo(chunk, answered.id)) {
        dropped = true;
        const real = chunk.toString('utf8').trimEnd();
        if (real !== answered.reply) log(`fast start: the server's initialize reply differs from the one sent early: ${real}`);
        done();
        return;
      }
      // Handed on at once, as the server writes without the front: waiting for each write's callback queued the
      // next reply here, where the exit after the last response (stdin closed) lost it. A write error (the
      // client went away) is stdout's own 'error' event, which the CLI handles: not repeated here.
      if (stdout.write(chunk)) done();
      else stdout.once('drain', () => done());
    },
  });
  return { input, output, answered: () => answered !== undefined };
}

function isReplyTo(chunk: Buffer, id: Id): boolean {
  try {
    const m = JSON.parse(chunk.toString('utf8')) as unknown;
    return isObject(m) && m.id === id && m.method === undefined;
  } catch {
    return false;
  }
}

function onlyKeys(o: Record<string, unknown>, keys: readonly string[]): boolean {
  return Object.keys(o).every((k) => keys.includes(k));
}

/** Client capabilities of the shapes the SDK accepts: roots {listChanged?: boolean}, sampling {context?, tools?},
 * elicitation {form?, url?}, experimental {name: object} (inner objects as they come). */
function plainCapabilities(c: unknown): boolean {
  if (!isObject(c) || !onlyKeys(c, ['roots', 'sampling', 'elicitation', 'experimental'])) return false;
  const objectsOf = (v: unknown, keys?: readonly string[]) =>
    v === undefined || (isObject(v) && (!keys || onlyKeys(v, keys)) && Object.values(v).every(isObject));
  const roots = c.roots;
  if (roots !== undefined && !(isObject(roots) && onlyKeys(roots, ['listChanged']) && (roots.listChanged === undefined || typeof roots.listChanged === 'boolean'))) return false;
  return objectsOf(c.sampling, ['context', 'tools']) && objectsOf(c.elicitation, ['form', 'url']) && objectsOf(c.experimental);
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * The loader (dist/cli.js) and the server bundle (cli-main.js) are two bundles: the front is handed over
 * through this process-wide key, taken once.
 */
const FRONT_KEY = Symbol.for('better-edit-tools.stdio-front');
export function handOverFront(front: StdioFront): void {
  (globalThis as Record<symbol, unknown>)[FRONT_KEY] = front;
}
export function takeFront(): StdioFront | undefined {
  const g = globalThis as Record<symbol, unknown>;
  const front = g[FRONT_KEY] as StdioFront | undefined;
  delete g[FRONT_KEY];
  return front;
}
