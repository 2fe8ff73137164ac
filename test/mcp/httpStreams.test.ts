/**
 * The loopback HTTP host with clients that keep a GET (SSE) stream open, as the SDK client does after
 * `initialize`: a stream holds a session only while it carries messages. Also one Host header, and the 401 that
 * does not start an OAuth flow. Real SDK clients and servers over real sockets.
 */
import assert from 'node:assert/strict';
import net from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { startHttpHost, type HttpHost, type HttpHostOptions, type SessionEndReason } from '../../src/mcp/httpHost';

export interface StreamingClient {
  client: Client;
  transport: StreamableHTTPClientTransport;
  id: string;
}

/** A host whose sessions are small real SDK servers (one tool `wait` that answers when released). */
export async function streamHost(hostOpts: Partial<HttpHostOptions> = {}) {
  const ended: [string, SessionEndReason][] = [];
  const servers = new Map<string, McpServer>();
  const waiting: (() => void)[] = [];
  const host = await startHttpHost({
    createServerForSession: (sessionId) => {
      const mcp = new McpServer({ name: 'streams', version: '0' }, { capabilities: { tools: { listChanged: true } } });
      mcp.registerTool('wait', { inputSchema: {} }, async () => {
        await new Promise<void>((resolve) => waiting.push(resolve));
        return { content: [{ type: 'text', text: 'done' }] };
      });
      servers.set(sessionId, mcp);
      return mcp.server;
    },
    onSessionClosed: (id, reason) => ended.push([id, reason]),
    ...hostOpts,
  });
  /** An SDK client, connected, with its GET stream open on the host. */
  const connect = async (): Promise<StreamingClient> => {
    const transport = new StreamableHTTPClientTransport(new URL(host.url), { requestInit: { headers: { Authorization: `Bearer ${host.token}` } } });
    const client = new Client({ name: 'listener', version: '0' });
    client.onerror = () => undefined; // a closed stream's reconnect attempts (404 once evicted) are expected
    await client.connect(transport);
    const id = transport.sessionId!;
    assert.ok(await waitFor(() => (host.sessions.get(id)?.openStreams ?? 0) === 1, 5000), 'the client opened its GET stream');
    return { client, transport, id };
  };
  return { host, ended, servers, connect, release: () => waiting.splice(0).forEach((r) => r()) };
}

export async function waitFor(cond: () => boolean, ms: number): Promise<boolean> {
  for (const t = Date.now(); !cond(); ) {
    if (Date.now() - t > ms) return false;
    await new Promise((r) => setTimeout(r, 20));
  }
  return true;
}

/** A raw request (node:http would refuse or merge what these tests send), answered status and body. */
export function rawRequest(port: number, head: string, body = ''): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.end(`${head}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`));
    let text = '';
    socket.on('data', (d) => (text += d));
    socket.on('end', () => resolve({ status: Number(/^HTTP\/1\.1 (\d+)/.exec(text)?.[1] ?? 0), text }));
    socket.on('error', reject);
  });
}

/** The body of a raw HTTP/1.1 response, chunked or not. */
function bodyOf(text: string): string {
  const split = text.indexOf('\r\n\r\n');
  const head = text.slice(0, split);
  let rest = text.slice(split + 4);
  if (!/transfer-encoding: chunked/i.test(head)) return rest;
  let out = '';
  for (;;) {
    const eol = rest.indexOf('\r\n');
    const size = parseInt(rest.slice(0, eol), 16);
    if (!size) return out;
    out += rest.slice(eol + 2, eol + 2 + size);
    rest = rest.slice(eol + 4 + size);
  }
}

const initBody = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '0' } } });

describe('mcp HTTP host: open SSE streams, one Host header, the 401', function () {
  this.timeout(60000);
  const hosts: HttpHost[] = [];
  const clients: StreamingClient[] = [];
  afterEach(async () => {
    await Promise.allSettled(clients.splice(0).map((c) => c.client.close()));
    await Promise.allSettled(hosts.splice(0).map((h) => h.close()));
  });
  /** A host (closed after the test) with two connected clients (closed too). */
  async function hostWithTwoSessions(hostOpts: Partial<HttpHostOptions>) {
    const s = await streamHost(hostOpts);
    hosts.push(s.host);
    const first = await s.connect();
    const second = await s.connect();
    clients.push(first, second);
    return { s, first, second };
  }

  it('65 clients with open streams: the 65th initialize succeeds; the least recently active is evicted, its stream closed', async () => {
    const s = await streamHost();
    hosts.push(s.host);
    for (let i = 0; i < 64; i++) clients.push(await s.connect());
    assert.equal(s.host.sessions.size, 64);
    await clients[0].client.ping(); // the first is now the most recent: the second is the oldest
    const extra = await s.connect(); // would be 503 when a stream made a session busy
    clients.push(extra);
    assert.equal(s.host.sessions.size, 64);
    assert.deepEqual(s.ended, [[clients[1].id, 'evicted']]);
    assert.ok(s.host.sessions.has(clients[0].id) && s.host.sessions.has(extra.id));
    // the evicted client's stream was ended by the server, and its session id is gone
    await assert.rejects(clients[1].client.ping(), (e: Error) => /404|Session not found/.test(e.message));
    assert.deepEqual(await extra.client.listTools().then((r) => r.tools.map((t) => t.name)), ['wait']);
  });

  it('a session with a POST in progress is never evicted; when every session has one, 503', async () => {
    const { s, first: a, second: b } = await hostWithTwoSessions({ maxSessions: 2 });
    const busyA = a.client.callTool({ name: 'wait', arguments: {} });
    await waitFor(() => s.host.sessions.get(a.id)!.inFlight.size === 1, 3000);
    const c = await s.connect(); // b (stream only) goes, a (calling) stays
    clients.push(c);
    assert.deepEqual(s.ended, [[b.id, 'evicted']]);
    const busyC = c.client.callTool({ name: 'wait', arguments: {} });
    await waitFor(() => s.host.sessions.get(c.id)!.inFlight.size === 1, 3000);
    const refused = await rawRequest(s.host.port, `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${s.host.port}\r\nAuthorization: Bearer ${s.host.token}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream`, initBody);
    assert.equal(refused.status, 503, refused.text);
    s.release();
    await Promise.all([busyA, busyC]);
  });

  it('a stream with no messages does not keep its session past sessionIdleMs; one that carries messages does', async () => {
    const { s, first: quiet, second: talking } = await hostWithTwoSessions({ sessionIdleMs: 600 });
    const ticker = setInterval(() => void s.servers.get(talking.id)?.sendToolListChanged(), 100);
    try {
      assert.ok(await waitFor(() => !s.host.sessions.has(quiet.id), 5000), 'the quiet session was reaped');
      await new Promise((r) => setTimeout(r, 1200));
      assert.ok(s.host.sessions.has(talking.id), 'the session whose stream carries messages stays');
      assert.deepEqual(s.ended, [[quiet.id, 'idle']]);
    } finally {
      clearInterval(ticker);
    }
  });

  it('two Host headers get 400 (even both correct, in either case); one Host still works', async () => {
    const s = await streamHost();
    hosts.push(s.host);
    const port = s.host.port;
    const auth = `Authorization: Bearer ${s.host.token}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream`;
    for (const hosts2 of [`Host: 127.0.0.1:${port}\r\nHost: 127.0.0.1:${port}`, `Host: 127.0.0.1:${port}\r\nhost: evil.example`, `HOST: evil.example\r\nHost: 127.0.0.1:${port}`]) {
      const r = await rawRequest(port, `POST /mcp HTTP/1.1\r\n${hosts2}\r\n${auth}`, initBody);
      assert.equal(r.status, 400, r.text);
      assert.match(r.text, /more than one Host header/);
    }
    const ok = await rawRequest(port, `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n${auth}`, initBody);
    assert.equal(ok.status, 200, ok.text);
  });

  it('401 has no OAuth challenge and says how to send the token; OAuth discovery gets 404 at once', async () => {
    const s = await streamHost({ token: 'fixed-token-for-the-test-0123456789' });
    hosts.push(s.host);
    const port = s.host.port;
    const r = await rawRequest(port, `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream`, initBody);
    assert.equal(r.status, 401);
    assert.doesNotMatch(r.text, /www-authenticate/i);
    const body = JSON.parse(bodyOf(r.text));
    assert.equal(body.jsonrpc, '2.0');
    assert.match(body.error.message, /Authorization: Bearer <token>.*--token-file/);
    for (const p of ['/.well-known/oauth-protected-resource', '/.well-known/oauth-protected-resource/mcp', '/.well-known/oauth-authorization-server']) {
      const d = await rawRequest(port, `GET ${p} HTTP/1.1\r\nHost: 127.0.0.1:${port}`);
      assert.equal(d.status, 404, `${p}: ${d.text}`);
      assert.match(d.text, /no OAuth/);
    }
    // an SDK client without the token sees the hint in its error
    const bare = new Client({ name: 'no-token', version: '0' });
    await assert.rejects(bare.connect(new StreamableHTTPClientTransport(new URL(s.host.url))), (e: Error) => e instanceof StreamableHTTPError && /Bearer <token>/.test(e.message));
    // and one with an OAuth provider ends its discovery without sending anyone to a browser
    let redirected = false;
    const provider: OAuthClientProvider = {
      redirectUrl: 'http://127.0.0.1:1/callback',
      clientMetadata: { redirect_uris: ['http://127.0.0.1:1/callback'], client_name: 'probe' },
      clientInformation: () => undefined,
      saveClientInformation: () => undefined,
      tokens: () => undefined,
      saveTokens: () => undefined,
      redirectToAuthorization: () => {
        redirected = true;
      },
      saveCodeVerifier: () => undefined,
      codeVerifier: () => '',
    };
    const oauth = new Client({ name: 'oauth', version: '0' });
    await assert.rejects(oauth.connect(new StreamableHTTPClientTransport(new URL(s.host.url), { authProvider: provider })));
    assert.equal(redirected, false, 'no authorization flow started');
    // with the fixed token, a client connects
    const good = new Client({ name: 'token', version: '0' });
    await good.connect(new StreamableHTTPClientTransport(new URL(s.host.url), { requestInit: { headers: { Authorization: 'Bearer fixed-token-for-the-test-0123456789' } } }));
    assert.deepEqual((await good.listTools()).tools.map((t) => t.name), ['wait']);
    await good.close();
  });
});
