/** Shared fixtures for the MCP tests: temp workspaces, the built CLI, SDK clients over stdio, HTTP and memory. */
import { spawn, type ChildProcess, type ChildProcessWithoutNullStreams } from 'node:child_process';
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { createServer, type CreateServerOptions } from '../../src/mcp/server';
import { createServices, type Services, type ServicesOptions } from '../../src/mcp/services';
import { startHttpHost, type HttpHost, type HttpHostOptions } from '../../src/mcp/httpHost';
import { buildCli } from '../distBuild';

export { buildCli };

export const REPO = path.resolve(__dirname, '..', '..');
export const CLI = path.join(REPO, 'dist', 'cli.js');

/** The first eleven tools of tools/list, in order: upstream's ten and be-chip (be-memory, be-overview, be-apply follow). */
export const TOOL_NAMES = [
  'be-read',
  'be-replace',
  'be-insert',
  'be-delete',
  'be-write',
  'be-func-range',
  'be-tag-range',
  'be-balance',
  'be-insert-chip',
  'be-trx',
  'be-chip',
];

export interface Workspace {
  root: string;
  cache: string;
  chipDir: string;
  historyDir: string;
  file(rel: string): string;
  write(rel: string, data: string | Buffer): Promise<string>;
  read(rel: string): Promise<Buffer>;
  dispose(): Promise<void>;
}

export async function tmpWorkspace(): Promise<Workspace> {
  const base = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'bet-mcp-')));
  const root = path.join(base, 'ws');
  const cache = path.join(base, 'cache');
  await fs.mkdir(root);
  await fs.mkdir(cache);
  const ws: Workspace = {
    root,
    cache,
    chipDir: path.join(cache, 'chips'),
    historyDir: path.join(cache, 'history'),
    file: (rel) => path.join(root, rel),
    async write(rel, data) {
      const p = path.join(root, rel);
      await fs.mkdir(path.dirname(p), { recursive: true });
      await fs.writeFile(p, data);
      return p;
    },
    read: (rel) => fs.readFile(path.join(root, rel)),
    // retried: a server that was just told to stop may still be saving its memory into the cache
    dispose: () => fs.rm(base, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 }),
  };
  return ws;
}

/**
 * The suites written against upstream's reply fields run the server with `--reply json` (upstream parity); pass
 * `--reply text` in `extra` for the default replies written for the model (test/mcp/render.test.ts).
 */
export function cliArgs(ws: Workspace, extra: string[] = []): string[] {
  const reply = extra.includes('--reply') ? [] : ['--reply', 'json'];
  // the suites below were written for one client, `test`, with no host limit; hostFit.test.ts tests the limits
  const limit = extra.includes('--reply-max-chars') ? [] : ['--reply-max-chars', 'none'];
  return [CLI, '--root', ws.root, '--chip-dir', ws.chipDir, '--history-dir', ws.historyDir, ...reply, ...limit, ...extra];
}

export function childEnv(ws: Workspace): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
  env.XDG_CACHE_HOME = ws.cache;
  env.LANG = 'C';
  return env;
}

export interface Connected {
  client: Client;
  close(): Promise<void>;
  stderr: () => string;
  pid?: number;
}

export async function stdioClient(ws: Workspace, extra: string[] = []): Promise<Connected> {
  await buildCli();
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: cliArgs(ws, extra),
    env: childEnv(ws),
    cwd: ws.root,
    stderr: 'pipe',
  });
  let err = '';
  transport.stderr?.on('data', (d: Buffer) => (err += d.toString()));
  const client = new Client({ name: 'test', version: '1.0.0' });
  await client.connect(transport);
  return { client, close: () => client.close(), stderr: () => err, pid: transport.pid ?? undefined };
}

export async function memoryClient(
  ws: Workspace,
  opts: Partial<CreateServerOptions> = {},
  servicesOpts: Partial<ServicesOptions> = {},
): Promise<Connected & { services: Services }> {
  const services = await createServices({ roots: [ws.root], chipDir: ws.chipDir, historyDir: ws.historyDir, ...servicesOpts });
  const server = createServer(services.deps, { sessionId: 'mem', reply: 'json', ...opts });
  const [a, b] = InMemoryTransport.createLinkedPair();
  await server.connect(a);
  const client = new Client({ name: 'test', version: '1.0.0' });
  await client.connect(b);
  return {
    client,
    services,
    stderr: () => '',
    close: async () => {
      await client.close();
      await server.close();
    },
  };
}

export async function httpSetup(
  ws: Workspace,
  serverOpts: Partial<CreateServerOptions> = {},
  hostOpts: Partial<HttpHostOptions> = {},
  servicesOpts: Partial<ServicesOptions> = {},
): Promise<{ host: HttpHost; services: Services; connect(): Promise<Connected> }> {
  const services = await createServices({ roots: [ws.root], chipDir: ws.chipDir, historyDir: ws.historyDir, ...servicesOpts });
  const host = await startHttpHost({
    createServerForSession: (sessionId) => createServer(services.deps, { reply: 'json', ...serverOpts, sessionId }),
    ...hostOpts,
  });
  return {
    host,
    services,
    async connect() {
      const transport = new StreamableHTTPClientTransport(new URL(host.url), {
        requestInit: { headers: { Authorization: `Bearer ${host.token}` } },
      });
      const client = new Client({ name: 'test', version: '1.0.0' });
      await client.connect(transport);
      return {
        client,
        stderr: () => '',
        close: async () => {
          await transport.terminateSession().catch(() => undefined);
          await client.close();
        },
      };
    },
  };
}

/** Calls a tool and returns the structured result, failing with the error text when isError. */
export async function call(client: Client, name: string, args: Record<string, unknown>): Promise<Record<string, any>> {
  const r = (await client.callTool({ name, arguments: args })) as CallToolResult;
  if (r.isError) throw new Error(`${name} failed: ${textOf(r)}`);
  return r.structuredContent as Record<string, any>;
}

/** Calls a tool that must fail; returns its error text. */
export async function callError(client: Client, name: string, args: unknown): Promise<string> {
  const r = (await client.callTool({ name, arguments: args as Record<string, unknown> })) as CallToolResult;
  if (!r.isError) throw new Error(`${name} was expected to fail but returned ${textOf(r).slice(0, 300)}`);
  return textOf(r);
}

/** Calls a tool that must be refused as a JSON-RPC error with `code` (an unknown tool: -32602); returns its message. */
export async function callProtocolError(client: Client, name: string, args: unknown, code = -32602): Promise<string> {
  const err = await client.callTool({ name, arguments: args as Record<string, unknown> }).then(
    (r) => { throw new Error(`${name} was expected to be a JSON-RPC error ${code} but returned ${textOf(r as CallToolResult).slice(0, 300)}`); },
    (e: { code?: number; message: string }) => e,
  );
  if (err.code !== code) throw new Error(`${name}: JSON-RPC error ${String(err.code)} instead of ${code}: ${err.message}`);
  return err.message;
}

export function textOf(r: CallToolResult): string {
  return r.content.map((c) => (c.type === 'text' ? c.text : '')).join('');
}

export function chipIdIn(text: string): string | undefined {
  return /arguments saved as chip:\/\/([0-9a-f]+)/.exec(text)?.[1];
}

/** A raw NDJSON connection to the built CLI, for protocol tests the SDK client would hide. */
export class RawStdio {
  readonly child: ChildProcessWithoutNullStreams;
  private buf = '';
  private lines: string[] = [];
  private waiters: ((line: string) => void)[] = [];
  stderr = '';
  exited: Promise<number | null>;

  constructor(ws: Workspace, extra: string[] = []) {
    this.child = spawn(process.execPath, cliArgs(ws, extra), { env: childEnv(ws), cwd: ws.root });
    this.child.stdout.on('data', (d: Buffer) => {
      this.buf += d.toString('utf8');
      let nl: number;
      while ((nl = this.buf.indexOf('\n')) !== -1) {
        const line = this.buf.slice(0, nl);
        this.buf = this.buf.slice(nl + 1);
        const w = this.waiters.shift();
        if (w) w(line);
        else this.lines.push(line);
      }
    });
    this.child.stderr.on('data', (d: Buffer) => (this.stderr += d.toString()));
    this.exited = new Promise((resolve) => this.child.on('exit', (code) => resolve(code)));
  }

  send(message: unknown): void {
    this.child.stdin.write((typeof message === 'string' ? message : JSON.stringify(message)) + '\n');
  }

  next(timeoutMs = 10000): Promise<any> {
    const line = this.lines.shift();
    if (line !== undefined) return Promise.resolve(JSON.parse(line));
    return new Promise((resolve, reject) => {
      const t = setTimeout(() => reject(new Error(`no response within ${timeoutMs} ms; stderr: ${this.stderr}`)), timeoutMs);
      this.waiters.push((l) => {
        clearTimeout(t);
        resolve(JSON.parse(l));
      });
    });
  }

  async request(id: number, method: string, params?: unknown): Promise<any> {
    this.send({ jsonrpc: '2.0', id, method, ...(params !== undefined ? { params } : {}) });
    return this.next();
  }

  async initialize(protocolVersion = '2025-06-18'): Promise<any> {
    const r = await this.request(0, 'initialize', {
      protocolVersion,
      capabilities: {},
      clientInfo: { name: 'raw', version: '0' },
    });
    this.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    return r;
  }

  async close(): Promise<void> {
    this.child.stdin.end();
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 5000);
    await this.exited;
    clearTimeout(timer);
  }
}

/**
 * The built CLI serving `--http` for `ws` with the fixed `token` (BETTER_EDIT_TOOLS_TOKEN): its URL once it prints
 * it, and `stop`, which waits for the exit (on SIGTERM the server saves its memory into the workspace's cache).
 */
export async function startHttpCli(ws: Workspace, token: string): Promise<{ child: ChildProcess; url: string; stop(): Promise<void> }> {
  const child = spawn(process.execPath, [...cliArgs(ws), '--http'], { env: { ...childEnv(ws), BETTER_EDIT_TOOLS_TOKEN: token }, cwd: ws.root });
  const url = await new Promise<string>((resolve, reject) => {
    let err = '';
    const timer = setTimeout(() => reject(new Error(`no URL: ${err}`)), 30000);
    child.stderr!.on('data', (d: Buffer) => {
      err += d.toString();
      const m = /HTTP: (http:\S+)/.exec(err);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    });
  });
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  };
  return { child, url, stop };
}
