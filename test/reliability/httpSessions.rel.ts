/**
 * HTTP sessions against the built CLI (`--http`, a fixed token from --token-file), in a child process:
 *
 * 1. 64 real SDK clients connect and keep their GET (SSE) streams open, as they do after `initialize`; then 36
 *    more initialize one after another. Figure: sessions locked out by streams (initialize answered 503) = 0.
 * 2. Requests with two Host headers (both right, one forged, either order): each answered 400.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs/promises';
import net from 'node:net';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { buildCli, childEnv, cliArgs, tmpWorkspace, type Workspace } from '../mcp/helpers';
import { figure } from './figures';

const TOKEN = 'reliability-token-0123456789abcdef';

function raw(port: number, head: string, body: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.connect(port, '127.0.0.1', () => s.end(`${head}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`));
    let text = '';
    s.on('data', (d) => (text += d));
    s.on('end', () => resolve(Number(/^HTTP\/1\.1 (\d+)/.exec(text)?.[1] ?? 0)));
    s.on('error', reject);
  });
}

describe('reliability: HTTP sessions with open streams, duplicate Host', function () {
  let ws: Workspace;
  let child: ReturnType<typeof spawn>;
  let url: URL;
  const clients: Client[] = [];

  before(async () => {
    await buildCli();
    ws = await tmpWorkspace();
    const tokenFile = path.join(ws.cache, 'token');
    await fs.writeFile(tokenFile, TOKEN, { mode: 0o600 });
    child = spawn(process.execPath, cliArgs(ws, ['--http', '--token-file', tokenFile]), { env: childEnv(ws), cwd: ws.root });
    let err = '';
    url = await new Promise<URL>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no URL: ${err}`)), 30000);
      child.stderr!.on('data', (d) => {
        err += d;
        const m = /HTTP: (http:\S+)/.exec(err);
        if (m) {
          clearTimeout(timer);
          resolve(new URL(m[1]));
        }
      });
    });
  });
  after(async () => {
    await Promise.allSettled(clients.map((c) => c.close()));
    child?.kill();
    await ws?.dispose();
  });

  const connect = async (): Promise<{ client?: Client; status?: number }> => {
    const transport = new StreamableHTTPClientTransport(url, { requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } } });
    const client = new Client({ name: 'listener', version: '0' });
    client.onerror = () => undefined; // an evicted client's stream reconnects and gets 404: expected
    try {
      await client.connect(transport);
      return { client };
    } catch (e) {
      return { status: Number(/HTTP (\d+)|"code":(-?\d+)/.exec(String(e))?.[1] ?? 0) || -1 };
    }
  };

  it('0 sessions locked out by streams: 64 clients listening on their streams, then 36 more initialize', async () => {
    for (let i = 0; i < 64; i++) {
      const r = await connect();
      assert.ok(r.client, `client ${i} connected`);
      clients.push(r.client);
    }
    await new Promise((r) => setTimeout(r, 500)); // the GET streams are open by now
    let lockedOut = 0;
    for (let i = 0; i < 36; i++) {
      const r = await connect();
      if (r.client) {
        clients.push(r.client);
        await r.client.listTools(); // a session that works, not just an id
      } else lockedOut++;
    }
    figure('HTTP sessions locked out by streams (of 36 beyond 64 listening)', lockedOut, '0');
    assert.equal(lockedOut, 0);
  });

  it('two Host headers: 400 each time', async () => {
    const port = Number(url.port);
    const init = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '0' } } });
    const rest = `Authorization: Bearer ${TOKEN}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream`;
    const forms = [
      `Host: 127.0.0.1:${port}\r\nHost: 127.0.0.1:${port}`,
      `Host: 127.0.0.1:${port}\r\nHost: evil.example`,
      `Host: evil.example\r\nHost: 127.0.0.1:${port}`,
      `host: localhost:${port}\r\nHOST: 127.0.0.1:${port}`,
    ];
    const statuses = await Promise.all(forms.map((h) => raw(port, `POST /mcp HTTP/1.1\r\n${h}\r\n${rest}`, init)));
    const accepted = statuses.filter((s) => s !== 400).length;
    figure('requests with two Host headers not answered 400 (of 4)', accepted, '0');
    assert.deepEqual(statuses, [400, 400, 400, 400]);
    assert.equal(await raw(port, `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n${rest}`, init), 200, 'one Host still works');
  });
});
