/**
 * Loopback Streamable HTTP host: node:http on 127.0.0.1, one MCP Server + transport per MCP session.
 * Every request is checked, in this order: exact Host (DNS rebinding) → 403, any Origin → 403,
 * bearer token (constant-time) → 401, path /mcp → 404, body size → 413; then session routing
 * (unknown session → 404, non-initialize request without a session → 400).
 */
import { randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';

/** Big enough that a 40 MiB content reaches the tool layer and gets its clear per-argument error. */
export const DEFAULT_MAX_BODY_BYTES = 64 * 1024 * 1024;

export interface HttpHostOptions {
  /** Called once per new MCP session, with the session id the transport will use. */
  createServerForSession(sessionId: string): Server | Promise<Server>;
  /** 0 (default) = an ephemeral port. */
  port?: number;
  maxBodyBytes?: number;
  /** Defaults to 32 random bytes, hex. */
  token?: string;
  onSessionClosed?(sessionId: string): void;
  log?(message: string): void;
}

export interface HttpSession {
  server: Server;
  transport: StreamableHTTPServerTransport;
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
  const log = opts.log ?? (() => {});
  const sessions = new Map<string, HttpSession>();
  let port = 0;
  let closing = false;

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
    if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n');
    else socket.destroy();
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const host = req.headers.host;
    if (host !== `127.0.0.1:${port}` && host !== `localhost:${port}`) {
      return sendError(res, 403, -32000, 'Forbidden: Host header must be the loopback address of this server');
    }
    if (req.headers.origin !== undefined) {
      return sendError(res, 403, -32000, 'Forbidden: requests with an Origin header are refused');
    }
    if (!authorized(req.headers.authorization)) {
      res.setHeader('WWW-Authenticate', 'Bearer');
      return sendError(res, 401, -32000, 'Unauthorized: send Authorization: Bearer <token>');
    }
    const path = (req.url ?? '').split('?')[0];
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

    const sessionHeader = req.headers['mcp-session-id'];
    const sessionId = Array.isArray(sessionHeader) ? sessionHeader[0] : sessionHeader;
    if (sessionId !== undefined) {
      const session = sessions.get(sessionId);
      if (!session) return sendError(res, 404, -32001, 'Session not found: initialize a new session');
      return session.transport.handleRequest(req, res, body);
    }
    if (req.method !== 'POST') {
      res.setHeader('Allow', 'POST');
      return sendError(res, 405, -32000, 'Method not allowed without an Mcp-Session-Id');
    }
    if (!isInitializeRequest(body)) {
      return sendError(res, 400, -32000, 'Bad Request: send initialize first, or an Mcp-Session-Id header');
    }

    const newId = randomUUID();
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => newId,
      onsessionclosed: (id) => void sessionEnded(id),
    });
    transport.onclose = () => void sessionEnded(newId);
    const server = await opts.createServerForSession(newId);
    sessions.set(newId, { server, transport });
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
  }

  function sessionEnded(id: string): void {
    if (!sessions.delete(id)) return;
    try {
      opts.onSessionClosed?.(id);
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
    httpServer.once('error', reject);
    httpServer.listen(opts.port ?? 0, '127.0.0.1', () => {
      httpServer.off('error', reject);
      resolve();
    });
  });
  port = (httpServer.address() as AddressInfo).port;

  async function close(): Promise<void> {
    if (closing) return;
    closing = true;
    const all = [...sessions.values()];
    await Promise.allSettled(all.map(({ transport }) => transport.close()));
    await Promise.allSettled(all.map(({ server }) => server.close()));
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

function sendError(res: ServerResponse, status: number, code: number, message: string): void {
  res.writeHead(status, { 'Content-Type': 'application/json' });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
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
