/**
 * Loopback Streamable HTTP host: node:http on 127.0.0.1, one MCP Server + transport per MCP session.
 * Every request is checked, in this order: one Host header → 400, exact Host (DNS rebinding) → 403, any Origin
 * → 403, OAuth discovery paths → 404, bearer token (constant-time) → 401 (no OAuth challenge), path /mcp → 404, body size → 413; then session routing
 * (a request claiming MCP 2026-07-28 in its _meta → httpModern.ts, sessionless; unknown session → 404,
 * non-initialize request without a session → 400 (-32602, the request's id), a request id already in
 * progress in the session → 409). Headers over Node's limit get 431.
 *
 * Sessions end on DELETE, when idle for `sessionIdleMs`, or when a new one would pass `maxSessions` (the least
 * recently active idle one goes, its stream closed). Idle means no POST in progress: an open GET (SSE) stream
 * counts as activity only when a message goes through it (keep-alive comments do not), so listening clients
 * cannot hold every slot for ever. An ended session is closed and dropped, and
 * `onSessionClosed` lets the composition root release what it keeps per session (its ChatMemory): a client
 * that never says goodbye cannot make the host grow.
 */
import { randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { isModernBody, modernEndpoint } from './httpModern';

/** Big enough that a 40 MiB content reaches the tool layer and gets its clear per-argument error. */
export const DEFAULT_MAX_BODY_BYTES = 64 * 1024 * 1024;
/** An agent may think for many minutes between calls; a session idle for this long has lost its client. */
export const DEFAULT_SESSION_IDLE_MS = 30 * 60 * 1000;
/** Each session is an MCP server with its tool table (~80 KB); clients open one or a few each. */
export const DEFAULT_MAX_SESSIONS = 64;

export const DEFAULT_TOKEN_HINT = 'Send the header "Authorization: Bearer <token>" with the token this server printed to stderr at start (or the one given with --token-file / BETTER_EDIT_TOOLS_TOKEN).';

export interface HttpHostOptions {
  /** Called once per new MCP session, with the session id the transport will use. */
  createServerForSession(sessionId: string): Server | Promise<Server>;
  /** 0 (default) = an ephemeral port. */
  port?: number;
  maxBodyBytes?: number;
  /** Defaults to 32 random bytes, hex. */
  token?: string;
  /** How a client gets the token, said in every 401 (default: DEFAULT_TOKEN_HINT). */
  tokenHint?: string;
  /** A session with no open request or stream for this long is closed (default 30 min). */
  sessionIdleMs?: number;
  /** Live sessions at most; a new one beyond closes the least recently active idle one (default 64). */
  maxSessions?: number;
  /**
   * After a session ended: release what is kept for it. `shutdown` (the host closing) is the one end after
   * which the session's saved state may still be wanted (it is restored and shown on the next start).
   */
  onSessionClosed?(sessionId: string, reason: SessionEndReason): void;
  log?(message: string): void;
}

/** deleted: the client sent DELETE or the transport closed; idle: no request for sessionIdleMs; evicted: over maxSessions. */
export type SessionEndReason = 'deleted' | 'idle' | 'evicted' | 'shutdown';

export interface HttpSession {
  server: Server;
  transport: StreamableHTTPServerTransport;
  /** HTTP requests of this session still open (a GET stream stays open while the client listens). */
  openRequests: number;
  /** Of those, the GET (SSE) streams: they keep a session only while they carry messages. */
  openStreams: number;
  lastActivity: number;
  /** Order of the last activity across sessions (Date.now() ties within a millisecond; the cap evicts by this). */
  activitySeq: number;
  /** JSON-RPC ids of requests whose response has not been completed. */
  inFlight: Set<string | number>;
}

export interface HttpHost {
  /** http://127.0.0.1:<port>/mcp */
  url: string;
  port: number;
  token: string;
  /** Live MCP sessions by id. */
  sessions: ReadonlyMap<string, HttpSession>;
  /** false once close() has stopped the listener */
  readonly listening: boolean;
  close(): Promise<void>;
}

export async function startHttpHost(opts: HttpHostOptions): Promise<HttpHost> {
  const token = opts.token ?? randomBytes(32).toString('hex');
  const expectedAuth = Buffer.from(`Bearer ${token}`, 'utf8');
  const maxBodyBytes = opts.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const idleMs = opts.sessionIdleMs ?? DEFAULT_SESSION_IDLE_MS;
  const maxSessions = Math.max(1, opts.maxSessions ?? DEFAULT_MAX_SESSIONS);
  const log = opts.log ?? (() => {});
  const sessions = new Map<string, HttpSession>();
  let port = 0;
  let closing = false;
  const sweeper = setInterval(reapIdle, Math.min(60_000, Math.max(250, idleMs / 4)));
  sweeper.unref();

  const httpServer = http.createServer((req, res) => {
    handle(req, res).catch((e: unknown) => {
      log(`HTTP request failed: ${e instanceof Error ? e.stack ?? e.message : String(e)}`);
      if (!res.headersSent) sendError(res, 500, -32603, 'Internal error');
      else res.end();
    });
  });

  // Clients reuse pooled sockets; with Node's 5 s default, a socket can close while a client is still
  // serialising a multi-MiB call, and the POST (not retried) fails with ECONNRESET.
  httpServer.keepAliveTimeout = 65_000;
  httpServer.on('clientError', (err: NodeJS.ErrnoException, socket) => {
    log(`HTTP client error: ${err.code ?? ''} ${err.message}`);
    const status = err.code === 'HPE_HEADER_OVERFLOW' ? '431 Request Header Fields Too Large' : '400 Bad Request';
    if (socket.writable) socket.end(`HTTP/1.1 ${status}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
    else socket.destroy();
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    // Node joins or drops repeated headers in req.headers: count them in the raw list (RFC 9110 §7.2: one Host).
    if (hostHeaderCount(req.rawHeaders) > 1) return sendError(res, 400, -32000, 'Bad Request: more than one Host header');
    const host = req.headers.host;
    if (host !== `127.0.0.1:${port}` && host !== `localhost:${port}`) {
      return sendError(res, 403, -32000, 'Forbidden: Host header must be the loopback address of this server');
    }
    if (req.headers.origin !== undefined) {
      return sendError(res, 403, -32000, 'Forbidden: requests with an Origin header are refused');
    }
    const path = (req.url ?? '').split('?')[0];
    // OAuth discovery (RFC 9728 / 8414) finds nothing here, at once and without the token: a client that probes
    // after a 401 stops with this message instead of starting an authorization flow.
    if (path.startsWith('/.well-known/')) {
      return sendError(res, 404, -32000, `Not found: ${path}; this server has no OAuth. ${opts.tokenHint ?? DEFAULT_TOKEN_HINT}`);
    }
    if (!authorized(req.headers.authorization)) {
      // No `WWW-Authenticate: Bearer` challenge: MCP clients read it as "OAuth protected resource" and start a
      // discovery and browser flow; the token is fixed (printed at start or given with --token-file), so the hint
      // is in the JSON-RPC error of the body.
      return sendError(res, 401, -32000, `Unauthorized: ${req.headers.authorization ? 'wrong token' : 'no token'}. ${opts.tokenHint ?? DEFAULT_TOKEN_HINT}`);
    }
    if (path !== '/mcp') return sendError(res, 404, -32000, `Not found: ${path}; the MCP endpoint is /mcp`);
    if (closing) return sendError(res, 503, -32000, 'Server is shutting down');

    let body: unknown;
    if (req.method === 'POST') {
      const read = await readBody(req, maxBodyBytes);
      if (read.tooLarge) {
        res.setHeader('Connection', 'close');
        return sendError(
          res,
          413,
          -32000,
          `Payload too large: the request body exceeds ${maxBodyBytes} bytes; send smaller contents`,
        );
      }
      try {
        body = JSON.parse(read.bytes.toString('utf8'));
      } catch (e) {
        return sendError(res, 400, -32700, `Parse error: ${(e as Error).message}`);
      }
    }

    // MCP 2026-07-28: no sessions; a request claiming it in its _meta is served whatever Mcp-Session-Id says
    if (req.method === 'POST' && isModernBody(body)) return modern.handle(req, res, body);

    const sessionHeader = req.headers['mcp-session-id'];
    const sessionId = Array.isArray(sessionHeader) ? sessionHeader[0] : sessionHeader;
    if (sessionId !== undefined) {
      const session = sessions.get(sessionId);
      if (!session) return sendError(res, 404, -32001, 'Session not found: initialize a new session');
      const ids = requestIds(body);
      const taken = ids.find((id, i) => session.inFlight.has(id) || ids.indexOf(id) !== i);
      if (taken !== undefined) {
        // The transport keys responses by id: a second request with a live id would take the first one's
        // response stream and leave that request open for ever.
        return sendError(res, 409, -32600, `Invalid Request: id ${JSON.stringify(taken)} is already used by a request in progress in this session; send each request with a new id`, taken);
      }
      track(session, req, res, ids);
      return session.transport.handleRequest(req, res, body);
    }
    if (req.method !== 'POST') {
      res.setHeader('Allow', 'POST');
      return sendError(res, 405, -32000, 'Method not allowed without an Mcp-Session-Id');
    }
    if (!isInitializeRequest(body)) {
      // -32602 with the request's id: what a 2026-07-28 server answers a request without its _meta envelope
      // (the conformance suite's server-stateless checks it); the hint names both ways in
      const message =
        'Invalid params: no session and no 2026-07-28 envelope. Send initialize first (then its Mcp-Session-Id header), ' +
        'or params._meta with io.modelcontextprotocol/protocolVersion and io.modelcontextprotocol/clientCapabilities';
      return sendError(res, 400, -32602, message, requestIds(body)[0] ?? null);
    }

    if (sessions.size >= maxSessions && !evictOldestIdle()) {
      res.setHeader('Retry-After', '5');
      return sendError(res, 503, -32000, `Too many sessions: ${sessions.size} are open and busy (at most ${maxSessions}); end one (DELETE) or retry later`);
    }
    const newId = randomUUID();
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => newId,
      onsessionclosed: (id) => void sessionEnded(id, 'deleted'),
    });
    transport.onclose = () => void sessionEnded(newId, closing ? 'shutdown' : 'deleted');
    const server = await opts.createServerForSession(newId);
    const session: HttpSession = { server, transport, openRequests: 0, openStreams: 0, lastActivity: Date.now(), activitySeq: ++activityClock, inFlight: new Set() };
    sessions.set(newId, session);
    track(session, req, res, requestIds(body));
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
  }

  let activityClock = 0;
  /** The one server of all 2026-07-28 requests, made on the first; its memory is kept like a session's at shutdown. */
  const modernId = `modern-${randomUUID()}`;
  let modernStarted = false;
  const modern = modernEndpoint(() => {
    modernStarted = true;
    return opts.createServerForSession(modernId);
  });

  const touch = (session: HttpSession) => {
    session.lastActivity = Date.now();
    session.activitySeq = ++activityClock;
  };

  /** The request is open until its response ends; its ids are in flight until then. */
  function track(session: HttpSession, req: IncomingMessage, res: ServerResponse, ids: (string | number)[]): void {
    const stream = req.method === 'GET';
    session.openRequests++;
    if (stream) {
      session.openStreams++;
      // a message sent down the stream is activity; an SSE comment (the SDK's `: keepalive`) is not
      const write = res.write.bind(res) as (...args: unknown[]) => boolean;
      res.write = ((chunk: unknown, ...rest: unknown[]) => {
        if (!isSseComment(chunk)) touch(session);
        return write(chunk, ...rest);
      }) as typeof res.write;
    }
    touch(session);
    for (const id of ids) session.inFlight.add(id);
    res.once('close', () => {
      session.openRequests--;
      if (stream) session.openStreams--;
      touch(session);
      for (const id of ids) session.inFlight.delete(id);
    });
  }

  /** A POST in progress keeps a session; an open stream alone does not. */
  const busy = (s: HttpSession) => s.openRequests - s.openStreams > 0;

  function reapIdle(): void {
    const now = Date.now();
    for (const [id, s] of sessions) {
      if (!busy(s) && now - s.lastActivity >= idleMs) {
        log(`session ${id} idle for ${Math.round((now - s.lastActivity) / 1000)} s: closed`);
        void endSession(id, s, 'idle');
      }
    }
  }

  /** Makes room for a new session: the least recently active one without a POST in progress (its stream is closed). */
  function evictOldestIdle(): boolean {
    let oldest: [string, HttpSession] | undefined;
    for (const entry of sessions) {
      if (!busy(entry[1]) && (!oldest || entry[1].activitySeq < oldest[1].activitySeq)) oldest = entry;
    }
    if (!oldest) return false;
    log(`session ${oldest[0]} closed to stay within ${maxSessions} sessions`);
    void endSession(oldest[0], oldest[1], 'evicted');
    return true;
  }

  /** Closes the transport and the server; sessionEnded runs from the transport's onclose (or here). */
  async function endSession(id: string, s: HttpSession, reason: SessionEndReason): Promise<void> {
    sessionEnded(id, reason);
    await Promise.allSettled([s.transport.close(), s.server.close()]);
  }

  function sessionEnded(id: string, reason: SessionEndReason, sessionless = false): void {
    if (!sessions.delete(id) && !sessionless) return;
    try {
      opts.onSessionClosed?.(id, reason);
    } catch (e) {
      log(`onSessionClosed failed: ${(e as Error).message}`);
    }
  }

  function authorized(header: string | undefined): boolean {
    if (!header) return false;
    const got = Buffer.from(header, 'utf8');
    return got.length === expectedAuth.length && timingSafeEqual(got, expectedAuth);
  }

  await new Promise<void>((resolve, reject) => {
    const failed = (e: Error) => {
      clearInterval(sweeper);
      reject(e);
    };
    httpServer.once('error', failed);
    httpServer.listen(opts.port ?? 0, '127.0.0.1', () => {
      httpServer.off('error', failed);
      resolve();
    });
  });
  port = (httpServer.address() as AddressInfo).port;

  async function close(): Promise<void> {
    if (closing) return;
    closing = true;
    clearInterval(sweeper);
    const all = [...sessions.values()];
    await Promise.allSettled(all.map(({ transport }) => transport.close()));
    await Promise.allSettled(all.map(({ server }) => server.close()));
    await modern.close();
    if (modernStarted) sessionEnded(modernId, 'shutdown', true);
    const closed = new Promise<void>((resolve) => httpServer.close(() => resolve()));
    httpServer.closeAllConnections();
    await closed;
  }

  return {
    url: `http://127.0.0.1:${port}/mcp`,
    port,
    token,
    sessions,
    get listening() {
      return httpServer.listening;
    },
    close,
  };
}

function sendError(res: ServerResponse, status: number, code: number, message: string, id: string | number | null = null): void {
  res.writeHead(status, { 'Content-Type': 'application/json' });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id }));
}

function hostHeaderCount(raw: string[]): number {
  let n = 0;
  for (let i = 0; i < raw.length; i += 2) if (raw[i].toLowerCase() === 'host') n++;
  return n;
}

/** An SSE chunk that is only a comment line (`: …`), e.g. a keep-alive. */
function isSseComment(chunk: unknown): boolean {
  if (typeof chunk === 'string') return chunk.startsWith(':');
  return chunk instanceof Uint8Array && chunk.length > 0 && chunk[0] === 0x3a;
}

/** Ids of the requests (not notifications or responses) in a POST body, a message or a batch. */
function requestIds(body: unknown): (string | number)[] {
  const ids: (string | number)[] = [];
  for (const m of Array.isArray(body) ? body : [body]) {
    if (m && typeof m === 'object' && 'method' in m && 'id' in m) {
      const id = (m as { id: unknown }).id;
      if (typeof id === 'string' || typeof id === 'number') ids.push(id);
    }
  }
  return ids;
}

/** Reads the body up to `limit` bytes; past it, stops buffering and drains (bounded) so the 413 can be read. */
function readBody(req: IncomingMessage, limit: number): Promise<{ bytes: Buffer; tooLarge: boolean }> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length']);
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = Number.isFinite(declared) && declared > limit;
    let drained = 0;
    const finish = () => resolve({ bytes: tooLarge ? Buffer.alloc(0) : Buffer.concat(chunks, size), tooLarge });
    if (tooLarge) {
      // answer now; the caller closes the connection after the response
      req.resume();
      resolve({ bytes: Buffer.alloc(0), tooLarge });
      return;
    }
    req.on('data', (chunk: Buffer) => {
      if (tooLarge) {
        drained += chunk.length;
        if (drained > limit) req.destroy();
        return;
      }
      size += chunk.length;
      if (size > limit) {
        tooLarge = true;
        chunks.length = 0;
        finish();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      if (!tooLarge) finish();
    });
    req.on('error', reject);
  });
}
