/** The built CLI as a process: --version, --help, refusing "/", and the --http debugging mode. */
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { buildCli, childEnv, CLI, stdioClient, tmpWorkspace, TOOL_NAMES, type Workspace } from '../mcp/helpers';
import { toolListing } from '../../src/mcp/server';
import { toolTable } from '../../src/mcp/tools/index';

function run(args: string[], cwd: string, env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, ...args], { cwd, env, timeout: 20000 }, (err, stdout, stderr) =>
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

describe('cli process', function () {
  this.timeout(60000);
  let ws: Workspace;
  before(async () => {
    await buildCli();
    ws = await tmpWorkspace();
  });
  after(async () => ws.dispose());

  it('--version and --help print to stdout and exit 0', async () => {
    const v = await run(['--version'], ws.root, childEnv(ws));
    assert.equal(v.code, 0);
    assert.match(v.stdout, /^better-edit-tools \d+\.\d+\.\d+\n$/);
    const h = await run(['--help'], ws.root, childEnv(ws));
    assert.equal(h.code, 0);
    assert.match(h.stdout, /--root DIR/);
    assert.match(h.stdout, /--allow-root-dir/);
  });

  it('exits 2 with a clear message when started in "/" without --root, or with a bad option', async () => {
    const r = await run([], '/', childEnv(ws));
    assert.equal(r.code, 2);
    assert.equal(r.stdout, '');
    assert.match(r.stderr, /refusing to use \/ as the sandbox root.*Pass --root <your project directory>/s);
    const bad = await run(['--bogus'], ws.root, childEnv(ws));
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /Unknown option '--bogus'/);
  });

  it('--no-memory drops the be-memory tool and keeps the edit tools', async () => {
    const c = await stdioClient(ws, ['--no-memory']);
    try {
      const names = (await c.client.listTools()).tools.map((t) => t.name);
      assert.deepEqual(names.slice(0, TOOL_NAMES.length), TOOL_NAMES);
      assert.ok(!names.includes('be-memory'));
    } finally {
      await c.close();
    }
  });

  it('lists the schemas built into the bundle exactly as the source computes them', async () => {
    const c = await stdioClient(ws, []);
    try {
      const { tools } = await c.client.listTools();
      assert.deepEqual(tools, JSON.parse(JSON.stringify(toolTable.map((t) => toolListing(t, t.name, 'en')))));
    } finally {
      await c.close();
    }
  });

  it('--http serves the tools on 127.0.0.1 and prints the URL and token to stderr', async () => {
    const child = spawn(process.execPath, [CLI, '--http', '--root', ws.root, '--chip-dir', ws.chipDir, '--history-dir', ws.historyDir], {
      cwd: ws.root,
      env: childEnv(ws),
    });
    try {
      let err = '';
      const found = await new Promise<{ url: string; token: string }>((resolve, reject) => {
        const t = setTimeout(() => reject(new Error(`no URL/token on stderr: ${err}`)), 15000);
        child.stderr.on('data', (d: Buffer) => {
          err += d.toString();
          const url = /HTTP: (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(err)?.[1];
          const token = /token: ([0-9a-f]{64})/.exec(err)?.[1];
          if (url && token) {
            clearTimeout(t);
            resolve({ url, token });
          }
        });
      });
      const transport = new StreamableHTTPClientTransport(new URL(found.url), {
        requestInit: { headers: { Authorization: `Bearer ${found.token}` } },
      });
      const client = new Client({ name: 't', version: '1' });
      await client.connect(transport);
      const { tools } = await client.listTools();
      assert.deepEqual(tools.map((t) => t.name).slice(0, TOOL_NAMES.length), TOOL_NAMES);
      await transport.terminateSession();
      await client.close();
    } finally {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
    }
  });
});
