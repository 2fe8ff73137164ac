/**
 * The 2026-07-28 side of the HTTP host: sessionless requests (basic/transports/streamable-http.mdx). Each POST is
 * one request whose `_meta` carries its version and client; its mirrored headers are checked against the body
 * (`MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`: 400 with -32020 when missing or different), an unsupported
 * version is 400 with -32022, an unknown method 404 with -32601; the rest is served by one long-lived server for
 * all such requests (the era has no sessions) and answered as a single JSON object. Request ids are renumbered
 * inside, so two clients using the same ids never meet; closing the response cancels the request, as the spec says.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { checkEnvelope, claimsModern, errorMessage, HEADER_MISMATCH, isObject, unknownModernMethod, type EnvelopeError, type Json } from './era2026';
import { connectDualEra } from './server';

/** A POST body that is one request (or notification) claiming 2026-07-28 in its `_meta`. */
export function isModernBody(body: unknown): body is Json & { method: string } {
  return isObject(body) && typeof body.method === 'string' && claimsModern(body.params);
}

export interface ModernEndpoint {
  handle(req: IncomingMessage, res: ServerResponse, body: Json & { method: string }): Promise<void>;
  close(): Promise<void>;
}

/** `create` builds the one server of the endpoint, on its first request. */
export function modernEndpoint(create: () => Server | Promise<Server>): ModernEndpoint {
  let started: Promise<{ server: Server; channel: Channel }> | undefined;
  const start = () =>
    (started ??= (async () => {
      const server = await create();
      const channel = new Channel();
      await connectDualEra(server, channel);
      return { server, channel };
    })().catch((e: unknown) => {
      started = undefined; // the next request tries again instead of failing for ever
      throw e;
    }));

  return {
    async handle(req, res, body) {
      const id = body.id;
      const hasId = typeof id === 'string' || typeof id === 'number';
      const refusal = headerMismatch(req, body);
      if (refusal) return send(res, 400, errorMessage(hasId ? id : null, refusal));
      // the spec defines no client notification over HTTP in this revision (closing a stream cancels): accepted, dropped
      if (!hasId) return void res.writeHead(202).end();
      const checked = checkEnvelope(body.params);
      if ('error' in checked) return send(res, 400, errorMessage(id, checked.error));
      const unknown = unknownModernMethod(body.method);
      if (unknown) return send(res, 404, errorMessage(id, unknown));
      const { channel } = await start();
      const reply = await channel.request(body, res);
      if (res.headersSent || res.destroyed) return;
      send(res, reply ? 200 : 503, reply ? { ...reply, id } : errorMessage(id, { code: -32000, message: 'Server is shutting down' }));
    },
    async close() {
      if (!started) return;
      const { server, channel } = await started;
      await Promise.allSettled([channel.close(), server.close()]);
    },
  };
}

function send(res: ServerResponse, status: number, message: Json): void {
  res.writeHead(status, { 'Content-Type': 'application/json' });
  res.end(JSON.stringify(message));
}

/** The headers a 2026 POST mirrors from its body must be there and say the same (Server Validation). */
function headerMismatch(req: IncomingMessage, body: Json & { method: string }): EnvelopeError | undefined {
  const mismatch = (message: string): EnvelopeError => ({ code: HEADER_MISMATCH, message: `Header mismatch: ${message}` });
  const header = (name: string) => {
    const v = req.headers[name];
    return Array.isArray(v) ? v[0] : v;
  };
  const meta = isObject(body.params) && isObject(body.params._meta) ? body.params._meta : {};
  const version = header('mcp-protocol-version');
  const claimed = meta['io.modelcontextprotocol/protocolVersion'];
  if (version === undefined) return mismatch('the MCP-Protocol-Version header is missing');
  if (version !== claimed) return mismatch(`MCP-Protocol-Version header value '${version}' does not match body value '${String(claimed)}'`);
  const method = header('mcp-method');
  if (method === undefined) return mismatch('the Mcp-Method header is missing');
  if (method !== body.method) return mismatch(`Mcp-Method header value '${method}' does not match body value '${body.method}'`);
  const nameField = body.method === 'tools/call' || body.method === 'prompts/get' ? 'name' : body.method === 'resources/read' ? 'uri' : undefined;
  if (nameField && isObject(body.params) && typeof body.params[nameField] === 'string') {
    const raw = header('mcp-name');
    if (raw === undefined) return mismatch('the Mcp-Name header is missing');
    const name = decodeHeaderValue(raw);
    if (name !== body.params[nameField]) return mismatch(`Mcp-Name header value '${raw}' does not match body value '${String(body.params[nameField])}'`);
  }
  return undefined;
}

/** `=?base64?…?=` carries a value that is not plain ASCII (Value Encoding). */
function decodeHeaderValue(v: string): string {
  const m = /^=\?base64\?([A-Za-z0-9+/=]*)\?=$/.exec(v);
  return m ? Buffer.from(m[1], 'base64').toString('utf8') : v;
}

/** The in-process transport of the endpoint's server: one pending HTTP response per renumbered request id. */
class Channel implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private seq = 0;
  private readonly pending = new Map<number, (reply: Json | undefined) => void>();

  async start(): Promise<void> {}

  /** Hands `body` to the server under a fresh id; resolves with its response, or undefined when `res` closed first. */
  request(body: Json, res: ServerResponse): Promise<Json | undefined> {
    const inner = ++this.seq;
    return new Promise((resolve) => {
      this.pending.set(inner, resolve);
      res.once('close', () => {
        if (!this.pending.delete(inner)) return;
        resolve(undefined);
        this.onmessage?.({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: inner, reason: 'the HTTP response stream closed' } });
      });
      this.onmessage?.({ ...body, id: inner } as JSONRPCMessage);
    });
  }

  async send(message: JSONRPCMessage): Promise<void> {
    const m = message as Json;
    // progress and log notifications have no stream to go to: the reply is a single JSON object
    if (typeof m.id !== 'number' || m.method !== undefined) return;
    const resolve = this.pending.get(m.id);
    if (!resolve) return;
    this.pending.delete(m.id);
    resolve(m);
  }

  async close(): Promise<void> {
    for (const resolve of this.pending.values()) resolve(undefined);
    this.pending.clear();
    this.onclose?.();
  }
}
