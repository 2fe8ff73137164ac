/** The loopback HTTP host's checks on every request, with raw node:http requests (Host and Origin are forgeable there). */
import assert from 'node:assert/strict';
import http from 'node:http';
import net from 'node:net';
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { httpSetup, tmpWorkspace, type Workspace } from './helpers';
import { startHttpHost, type HttpHost, type HttpHostOptions, type SessionEndReason } from '../../src/mcp/httpHost';

interface Reply {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

function request(
  host: HttpHost,
  opts: { method?: string; path?: string; headers?: Record<string, string>; body?: string | Buffer },
): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port: host.port,
        method: opts.method ?? 'POST',
        path: opts.path ?? '/mcp',
        headers: {
          Host: `127.0.0.1:${host.port}`,
          Authorization: `Bearer ${host.token}`,
          'Content-Type': 'application/json',
          Accept: 'application/json, text/event-stream',
          ...opts.headers,
        },
      },
      (res) => {
        let body = '';
        res.on('data', (d) => (body += d));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
      },
    );
    req.on('error', reject);
    req.end(opts.body);
  });
}

const initBody = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
});

describe('mcp loopback HTTP host security', function () {
  this.timeout(30000);
  let ws: Workspace;
  let host: HttpHost;

  beforeEach(async () => {
    ws = await tmpWorkspace();
    host = (await httpSetup(ws, {}, { maxBodyBytes: 64 * 1024 })).host;
  });
  afterEach(async () => {
    await host.close();
    await ws.dispose();
  });

  it('listens on 127.0.0.1 with a 64-hex-digit token', () => {
    assert.match(host.url, /^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    assert.match(host.token, /^[0-9a-f]{64}$/);
  });

  it('initializes with the token, and localhost:<port> is accepted as Host', async () => {
    const ok = await request(host, { body: initBody });
    assert.equal(ok.status, 200, ok.body);
    assert.ok(ok.headers['mcp-session-id']);
    const viaName = await request(host, { body: initBody, headers: { Host: `localhost:${host.port}` } });
    assert.equal(viaName.status, 200);
  });

  it('401 without a token and with a wrong one (same length and different length)', async () => {
    const none = await request(host, { body: initBody, headers: { Authorization: '' } });
    assert.equal(none.status, 401);
    assert.match(none.body, /Unauthorized/);
    const wrong = await request(host, { body: initBody, headers: { Authorization: `Bearer ${'0'.repeat(64)}` } });
    assert.equal(wrong.status, 401);
    const short = await request(host, { body: initBody, headers: { Authorization: 'Bearer abc' } });
    assert.equal(short.status, 401);
    const scheme = await request(host, { body: initBody, headers: { Authorization: `Basic ${host.token}` } });
    assert.equal(scheme.status, 401);
  });

  it('403 on a foreign Host, a Host with another port, and on any Origin (even with the token)', async () => {
    assert.equal((await request(host, { body: initBody, headers: { Host: 'evil.example' } })).status, 403);
    assert.equal((await request(host, { body: initBody, headers: { Host: `evil.example:${host.port}` } })).status, 403);
    assert.equal((await request(host, { body: initBody, headers: { Host: `127.0.0.1:${host.port + 1}` } })).status, 403);
    assert.equal((await request(host, { body: initBody, headers: { Origin: `http://127.0.0.1:${host.port}` } })).status, 403);
    assert.equal((await request(host, { body: initBody, headers: { Origin: 'null' } })).status, 403);
  });

  it('checks Host and Origin before the token (no token oracle for a rebinding page)', async () => {
    const r = await request(host, { body: initBody, headers: { Host: 'evil.example', Authorization: '' } });
    assert.equal(r.status, 403);
  });

  it('404 on other paths, 404 for an unknown session id, 400 for a non-initialize call without a session', async () => {
    assert.equal((await request(host, { path: '/', body: initBody })).status, 404);
    assert.equal((await request(host, { path: '/mcp/x', body: initBody })).status, 404);
    const unknown = await request(host, {
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
      headers: { 'mcp-session-id': 'no-such-session' },
    });
    assert.equal(unknown.status, 404);
    const noSession = await request(host, { body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }) });
    assert.equal(noSession.status, 400);
    const get = await request(host, { method: 'GET' });
    assert.equal(get.status, 405);
  });

  it('413 over the body limit (declared and chunked), and the host keeps serving', async () => {
    const big = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { pad: 'x'.repeat(100 * 1024) } });
    const declared = await request(host, { body: big });
    assert.equal(declared.status, 413);
    assert.match(declared.body, /exceeds 65536 bytes/);
    const chunked = await new Promise<number>((resolve, reject) => {
      const req = http.request(
        {
          host: '127.0.0.1',
          port: host.port,
          method: 'POST',
          path: '/mcp',
          headers: { Host: `127.0.0.1:${host.port}`, Authorization: `Bearer ${host.token}`, 'Transfer-Encoding': 'chunked' },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode!);
        },
      );
      req.on('error', reject);
      for (let i = 0; i < 10; i++) req.write('x'.repeat(10 * 1024));
      req.end();
    });
    assert.equal(chunked, 413);
    assert.equal((await request(host, { body: initBody })).status, 200);
  });

  it('400 with a JSON-RPC parse error for a body that is not JSON', async () => {
    const r = await request(host, { body: '{nope' });
    assert.equal(r.status, 400);
    assert.equal(JSON.parse(r.body).error.code, -32700);
  });

  it('close() ends sessions, stops listening and refuses new connections', async () => {
    const h = await httpSetup(ws);
    const c = await h.connect();
    await c.client.ping();
    assert.equal(h.host.sessions.size, 1);
    assert.equal(h.host.listening, true);
    await h.host.close();
    assert.equal(h.host.listening, false);
    assert.equal(h.host.sessions.size, 0);
    const refused = await new Promise<string>((resolve) => {
      const s = net.connect(h.host.port, '127.0.0.1');
      s.on('connect', () => {
        s.destroy();
        resolve('connected');
      });
      s.on('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? 'error'));
    });
    assert.equal(refused, 'ECONNREFUSED');
    await c.client.close().catch(() => undefined);
  });
});

describe('mcp loopback HTTP host sessions: idle timeout, cap, duplicate ids, big headers', function () {
  this.timeout(30000);
  let ws: Workspace;
  const hosts: HttpHost[] = [];
  before(async () => {
    ws = await tmpWorkspace();
  });
  after(async () => {
    await Promise.all(hosts.map((h) => h.close()));
    await ws.dispose();
  });

  /** A host whose sessions are real SDK servers with one tool that answers when the test releases it. */
  async function slowHost(hostOpts: Partial<HttpHostOptions> = {}) {
    const ended: [string, SessionEndReason][] = [];
    const waiting: (() => void)[] = [];
    const gate = () => new Promise<void>((resolve) => waiting.push(resolve));
    const host = await startHttpHost({
      createServerForSession: () => {
        const mcp = new McpServer({ name: 'slow', version: '0' });
        mcp.registerTool('wait', { inputSchema: {} }, async () => {
          await gate();
          return { content: [{ type: 'text', text: 'done' }] };
        });
        return mcp.server;
      },
      onSessionClosed: (id, reason) => ended.push([id, reason]),
      ...hostOpts,
    });
    hosts.push(host);
    const init = async () => {
      const r = await request(host, { body: initBody });
      assert.equal(r.status, 200, r.body);
      const id = r.headers['mcp-session-id'] as string;
      const notified = await request(host, { body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }), headers: { 'mcp-session-id': id } });
      assert.equal(notified.status, 202, notified.body);
      return id;
    };
    return { host, ended, init, release: () => waiting.splice(0).forEach((resolve) => resolve()) };
  }

  const waitFor = async (cond: () => boolean, ms: number) => {
    for (const t = Date.now(); !cond(); ) {
      if (Date.now() - t > ms) return false;
      await new Promise((r) => setTimeout(r, 20));
    }
    return true;
  };
  const callWait = (id: number) => JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'wait', arguments: {} } });

  it('closes a session idle for sessionIdleMs and tells onSessionClosed (idle); its id then gets 404', async () => {
    const { host, ended, init } = await slowHost({ sessionIdleMs: 300 });
    const id = await init();
    assert.equal(host.sessions.size, 1);
    assert.ok(await waitFor(() => host.sessions.size === 0, 3000), 'the idle session was closed');
    assert.deepEqual(ended, [[id, 'idle']]);
    const late = await request(host, { body: JSON.stringify({ jsonrpc: '2.0', id: 5, method: 'ping' }), headers: { 'mcp-session-id': id } });
    assert.equal(late.status, 404);
  });

  it('a session with a request in progress is not idle, however long the request takes', async () => {
    const { host, init, release } = await slowHost({ sessionIdleMs: 200 });
    const id = await init();
    const pending = request(host, { body: callWait(9), headers: { 'mcp-session-id': id } });
    await new Promise((r) => setTimeout(r, 800));
    assert.equal(host.sessions.size, 1, 'kept while the call runs');
    release();
    assert.match((await pending).body, /done/);
    assert.ok(await waitFor(() => host.sessions.size === 0, 3000), 'closed once idle');
  });

  it('at maxSessions a new session closes the least recently active idle one; all busy gives 503', async () => {
    const { host, ended, init, release } = await slowHost({ maxSessions: 2 });
    const a = await init();
    const b = await init();
    await request(host, { body: JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'ping' }), headers: { 'mcp-session-id': a } }); // a is newer now
    const c = await init();
    assert.deepEqual(ended, [[b, 'evicted']]);
    assert.deepEqual([...host.sessions.keys()].sort(), [a, c].sort());
    const busyA = request(host, { body: callWait(1), headers: { 'mcp-session-id': a } });
    const busyC = request(host, { body: callWait(1), headers: { 'mcp-session-id': c } });
    await new Promise((r) => setTimeout(r, 200));
    const refused = await request(host, { body: initBody });
    assert.equal(refused.status, 503, refused.body);
    assert.match(JSON.parse(refused.body).error.message, /Too many sessions/);
    release();
    await Promise.all([busyA, busyC]);
  });

  it('a request id already in progress in the session gets 409 (also within a batch); the first still completes', async () => {
    const { host, init, release } = await slowHost();
    const id = await init();
    const first = request(host, { body: callWait(7), headers: { 'mcp-session-id': id } });
    await new Promise((r) => setTimeout(r, 200));
    const dup = await request(host, { body: callWait(7), headers: { 'mcp-session-id': id } });
    assert.equal(dup.status, 409, dup.body);
    assert.equal(JSON.parse(dup.body).id, 7);
    assert.match(JSON.parse(dup.body).error.message, /id 7 is already used by a request in progress/);
    const batch = await request(host, { body: `[${JSON.stringify({ jsonrpc: '2.0', id: 8, method: 'ping' })},${JSON.stringify({ jsonrpc: '2.0', id: 8, method: 'ping' })}]`, headers: { 'mcp-session-id': id } });
    assert.equal(batch.status, 409, batch.body);
    release();
    const done = await first;
    assert.match(done.body, /"id":7/);
    assert.match(done.body, /done/);
    const again = request(host, { body: callWait(7), headers: { 'mcp-session-id': id } });
    await new Promise((r) => setTimeout(r, 100));
    release();
    assert.match((await again).body, /done/, 'the id is free again once answered');
  });

  it('431 for a request header over the limit (20 KiB), and the host keeps serving', async () => {
    const { host } = await slowHost();
    const big = await request(host, { body: initBody, headers: { 'X-Pad': 'x'.repeat(20 * 1024) } }).catch((e: Error) => ({ status: -1, body: e.message }));
    assert.equal(big.status, 431);
    assert.equal((await request(host, { body: initBody })).status, 200);
  });

  it('DELETE ends a session (deleted) and close() ends the rest (shutdown)', async () => {
    const { host, ended, init } = await slowHost();
    const a = await init();
    const b = await init();
    const del = await request(host, { method: 'DELETE', headers: { 'mcp-session-id': a } });
    assert.equal(del.status, 200, del.body);
    assert.deepEqual(ended, [[a, 'deleted']]);
    await host.close();
    assert.deepEqual(ended, [[a, 'deleted'], [b, 'shutdown']]);
  });
});
