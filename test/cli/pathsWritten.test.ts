/**
 * Every path the real CLI writes (an edit, a failed call's chip, a memory), found by walking a temp base that
 * holds HOME, XDG_CACHE_HOME, the --*-dir folders and the root: each is one that --help names, and the chip key
 * is never written into the parent of --chip-dir (`--chip-dir ~/chips` once wrote ~/chip-hmac.key).
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { buildCli, CLI } from '../mcp/helpers';
import { USAGE } from '../../src/cli/args';

async function walk(dir: string, out: string[] = []): Promise<string[]> {
  for (const e of await fs.readdir(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    out.push(p);
    if (e.isDirectory()) await walk(p, out);
  }
  return out;
}

describe('cli: the paths written are the ones --help lists', function () {
  this.timeout(60000);
  it('an edit, a chip and a memory write only under the roots, the --*-dir folders and <cache>/better-edit-tools-mcp/{chips/chip-hmac.key,locks,code-cache}', async () => {
    await buildCli();
    const base = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'bet-paths-')));
    try {
      const [home, cache, mine, ws] = ['home', 'cache', 'mine', 'ws'].map((d) => path.join(base, d));
      for (const d of [home, cache, mine, ws]) await fs.mkdir(d);
      await fs.writeFile(path.join(ws, 'a.txt'), 'one\ntwo\n');
      const env: Record<string, string> = {};
      for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
      Object.assign(env, { HOME: home, XDG_CACHE_HOME: cache, LANG: 'C' });
      delete env.BET_NO_CODE_CACHE;
      const dirs = ['--chip-dir', path.join(mine, 'chips'), '--history-dir', path.join(mine, 'history'), '--memory-dir', path.join(mine, 'memory')];
      const transport = new StdioClientTransport({ command: process.execPath, args: [CLI, '--root', ws, ...dirs], env, cwd: ws, stderr: 'pipe' });
      const client = new Client({ name: 'paths', version: '0' });
      await client.connect(transport);
      await client.callTool({ name: 'be-replace', arguments: { path: 'a.txt', start_line: 1, end_line: 1, content: 'uno' } });
      await client.callTool({ name: 'be-replace', arguments: { path: 'a.txt', start_line: 99, end_line: 99, content: 'lost' } }); // fails: a chip
      await client.close();

      const app = path.join(cache, 'better-edit-tools-mcp');
      const allowed = [
        path.join(ws, 'a.txt'),
        ...['chips', 'history', 'history-journal', 'memory'].map((d) => path.join(mine, d)),
        path.join(app, 'chips', 'chip-hmac.key'),
        path.join(app, 'locks'),
        path.join(app, 'code-cache'),
      ];
      const ancestors = new Set(allowed.flatMap((p) => { const a: string[] = []; for (let d = path.dirname(p); d.startsWith(base); d = path.dirname(d)) a.push(d); return a; }));
      for (const d of [home, cache, mine, ws]) ancestors.add(d);
      const stray = (await walk(base)).filter((p) => !ancestors.has(p) && !allowed.some((a) => p === a || p.startsWith(a + path.sep)));
      assert.deepEqual(stray, [], 'every path written is one --help lists');
      assert.ok(await fs.stat(path.join(app, 'chips', 'chip-hmac.key')).then((s) => s.isFile() && (s.mode & 0o777) === 0o600), 'the key is in our own cache folder, 0600');
      await assert.rejects(fs.stat(path.join(mine, 'chip-hmac.key')), 'nothing in the parent of --chip-dir');
      assert.ok((await fs.readdir(path.join(mine, 'chips'))).some((n) => n.endsWith('.json')), 'chips were written (the failed call, the deleted text)');
      for (const named of ['chip-hmac.key', 'code-cache', 'locks', '-journal', 'recall/']) assert.ok(USAGE.includes(named), `--help names ${named}`);
    } finally {
      await fs.rm(base, { recursive: true, force: true });
    }
  });
});
