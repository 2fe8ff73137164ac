/**
 * The cross-process edit lock with servers that do not share a cache folder (a Flatpak or Snap VS Code next to a
 * terminal CLI, a container, an agent started with another HOME): real dist/cli.js servers, each with its own
 * HOME and XDG_CACHE_HOME, inserting into one file through the MCP SDK client. Asserts 0 lost acknowledged edits and
 * 0 "failed" replies for edits that landed; then a lock record of another host (waited for, then broken after its
 * bound) and a FIFO at the lock path (a quick clear error).
 * Run: npm run test:reliability (or: node esbuild.mjs && npx mocha --config test/reliability/.mocharc.json test/reliability/crossCacheLock.rel.ts)
 */
import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { figure } from './figures';
import { buildCli, CLI, textOf, tmpWorkspace, type Workspace } from '../mcp/helpers';

/** A server with a HOME and cache folder of its own (nothing shared with the others but the workspace). */
async function ownEnvServer(ws: Workspace, i: number): Promise<{ client: Client; close: () => Promise<void> }> {
  const home = path.join(ws.cache, `home${i}`);
  const cache = path.join(ws.cache, `xdg${i}`);
  fs.mkdirSync(home, { recursive: true });
  fs.mkdirSync(cache, { recursive: true });
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
  Object.assign(env, { HOME: home, XDG_CACHE_HOME: cache, LANG: 'C' });
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, '--root', ws.root, '--chip-dir', path.join(cache, 'chips'), '--history-dir', path.join(cache, 'history'), '--reply', 'json', '--no-memory'],
    env,
    cwd: ws.root,
    stderr: 'pipe',
  });
  const client = new Client({ name: 'rel', version: '1.0.0' });
  await client.connect(transport);
  return { client, close: () => client.close() };
}

async function insert(client: Client, file: string, content: string): Promise<CallToolResult> {
  return (await client.callTool({ name: 'be-insert', arguments: { file, content, brief: true } })) as CallToolResult;
}

describe('reliability: the edit lock across servers with different cache folders', function () {
  this.timeout(300_000);
  before(async function () {
    if (process.platform === 'win32') this.skip();
    await buildCli();
  });

  for (const procs of [2, 4]) {
    it(`${procs} servers, each with its own HOME and XDG_CACHE_HOME: no acknowledged edit lost, no "failed" for an edit that landed`, async () => {
      const ws = await tmpWorkspace();
      const servers: { client: Client; close: () => Promise<void> }[] = [];
      try {
        await ws.write('shared.txt', 'header\n');
        for (let i = 0; i < procs; i++) servers.push(await ownEnvServer(ws, i));
        const perProcess = Math.ceil(1000 / procs);
        const acked: string[] = [];
        const refused = new Map<string, string>();
        const t0 = performance.now();
        await Promise.all(
          servers.map(async (s, p) => {
            for (let k = 0; k < perProcess; k++) {
              const line = `p${p}-e${k}`;
              const r = await insert(s.client, k % 2 === 0 ? 'shared.txt:0' : 'shared.txt:1', line);
              if (r.isError) refused.set(line, textOf(r).slice(0, 160));
              else acked.push(line);
            }
          }),
        );
        const ms = Math.round(performance.now() - t0);
        const present = new Set((await ws.read('shared.txt')).toString('utf8').split('\n'));
        const lost = acked.filter((l) => !present.has(l)).length;
        const landedButFailed = [...refused.keys()].filter((l) => present.has(l));
        figure(`lock across caches: lost acknowledged edits, ${procs} servers`, `${lost} of ${acked.length}`, '0 of ≥ 1,000');
        figure(`lock across caches: "failed" replies for edits that landed, ${procs} servers`, landedButFailed.length, '0');
        figure(`lock across caches: edits refused (nothing written), ${procs} servers`, refused.size - landedButFailed.length, 'reported, not lost');
        console.log(`      ${acked.length + refused.size} edits in ${ms} ms`);
        if (refused.size) console.log('      refusals:', [...new Set(refused.values())].slice(0, 3));
        assert.equal(lost, 0);
        assert.deepEqual(landedButFailed.map((l) => refused.get(l)), []);
        assert.ok(acked.length >= 1000, `at least 1,000 acknowledged edits (${acked.length})`);
        assert.deepEqual(fs.readdirSync(ws.root), ['shared.txt'], 'no lock or temp left beside the file');
      } finally {
        await Promise.all(servers.map((s) => s.close()));
        await ws.dispose();
      }
    });
  }

  it("a lock record of another host: the edit waits at most the stale bound (10 s), then goes through; its text is true", async () => {
    const ws = await tmpWorkspace();
    const s = await ownEnvServer(ws, 0);
    try {
      const target = await ws.write('far.txt', 'a\n');
      const lock = path.join(ws.root, '.far.txt.be-lock');
      fs.writeFileSync(lock, JSON.stringify({ pid: 1, start: 0, host: 'another-host.example', token: 'far', path: target, since: Date.now() }));
      const t0 = performance.now();
      const r = await insert(s.client, 'far.txt:0', 'landed');
      const ms = Math.round(performance.now() - t0);
      figure('lock across caches: wait behind an unverifiable lock record (ms)', ms, '≤ 10,000 + a beat, then the edit goes through');
      assert.ok(!r.isError, textOf(r));
      assert.ok(ms < 14_000, `bounded (${ms} ms)`);
      assert.match((await ws.read('far.txt')).toString(), /landed/);
      assert.deepEqual(fs.readdirSync(ws.root), ['far.txt']);
    } finally {
      await s.close();
      await ws.dispose();
    }
  });

  it('a FIFO at the lock path: a clear error at once, pings stay fast, and the file is editable once it is removed', async () => {
    const ws = await tmpWorkspace();
    const s = await ownEnvServer(ws, 0);
    try {
      await ws.write('p.txt', 'a\n');
      const lock = path.join(ws.root, '.p.txt.be-lock');
      assert.equal(spawnSync('mkfifo', [lock]).status, 0);
      const t0 = performance.now();
      const r = await insert(s.client, 'p.txt:0', 'x');
      const ms = Math.round(performance.now() - t0);
      figure('lock across caches: reply with a FIFO at the lock path (ms)', ms, '< 2,000, a clear error');
      assert.ok(r.isError);
      assert.match(textOf(r), /is a FIFO \(named pipe\), not a lock file; nothing was changed\. Remove it \(rm /);
      assert.ok(ms < 2_000);
      const p0 = performance.now();
      await s.client.ping();
      assert.ok(performance.now() - p0 < 1_000, 'the server still answers');
      fs.unlinkSync(lock);
      const ok = await insert(s.client, 'p.txt:0', 'x');
      assert.ok(!ok.isError, textOf(ok));
    } finally {
      await s.close();
      await ws.dispose();
    }
  });
});
