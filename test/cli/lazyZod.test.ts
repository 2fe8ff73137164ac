/**
 * zod is left out of the stdio CLI's first calls (esbuild.mjs lazy-zod, src/mcp/plainArgs.ts): plainly valid
 * arguments are checked without it, so a first read and a first edit answer before zod is evaluated; an argument zod
 * must judge loads it then and is worded as before; the CLI's idle warm-up loads it too. Checked on a real CLI.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { buildCli, REPO } from '../distBuild';
import { childEnv, cliArgs, tmpWorkspace, type Workspace } from '../mcp/helpers';

interface Reply {
  id: number;
  result?: { content: { text: string }[]; isError?: boolean };
}

/** A CLI whose preload records, each time it is asked (SIGUSR2), whether zod was evaluated (zod's global config is set then). */
class Peer {
  private buf = '';
  private waiting = new Map<number, (r: Reply) => void>();
  private nextId = 1;
  readonly child: ChildProcessWithoutNullStreams;
  constructor(
    ws: Workspace,
    private readonly list: string,
  ) {
    const preload = path.join(ws.cache, 'preload.js');
    // written whole, then renamed: the poll below never reads a file that is still empty
    const write = `() => { const fs = require('fs'); fs.writeFileSync(${JSON.stringify(list + '.tmp')}, String('__zod_globalConfig' in globalThis)); fs.renameSync(${JSON.stringify(list + '.tmp')}, ${JSON.stringify(list)}); }`;
    fs.writeFileSync(preload, `process.on('SIGUSR2', ${write});`);
    this.child = spawn(process.execPath, ['-r', preload, ...cliArgs(ws)], { env: childEnv(ws), cwd: ws.root, stdio: 'pipe' });
    this.child.stderr.resume();
    this.child.stdout.setEncoding('utf8');
    this.child.stdout.on('data', (d: string) => {
      this.buf += d;
      for (let nl = this.buf.indexOf('\n'); nl >= 0; nl = this.buf.indexOf('\n')) {
        const msg = JSON.parse(this.buf.slice(0, nl)) as Reply;
        this.buf = this.buf.slice(nl + 1);
        this.waiting.get(msg.id)?.(msg);
      }
    });
  }
  request(method: string, params: unknown): Promise<Reply> {
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.waiting.set(id, resolve);
      this.child.stdin.write(JSON.stringify({ jsonrpc: '2.0', id, method, params }) + '\n');
    });
  }
  async tool(name: string, args: Record<string, unknown>): Promise<{ text: string; isError: boolean }> {
    const r = await this.request('tools/call', { name, arguments: args });
    assert.ok(r.result, JSON.stringify(r));
    return { text: r.result.content[0]!.text, isError: r.result.isError === true };
  }
  /** Whether the running process has evaluated zod. */
  async zodLoaded(): Promise<boolean> {
    fs.rmSync(this.list, { force: true });
    this.child.kill('SIGUSR2');
    for (let i = 0; i < 100 && !fs.existsSync(this.list); i++) await new Promise((r) => setTimeout(r, 20));
    return fs.readFileSync(this.list, 'utf8') === 'true';
  }
  async close(): Promise<void> {
    const exited = new Promise((r) => this.child.once('exit', r));
    this.child.stdin.end();
    await exited;
  }
}

const INIT = { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'test', version: '1' } };

async function withPeer(run: (peer: Peer, ws: Workspace) => Promise<void>): Promise<void> {
  const ws = await tmpWorkspace();
  const peer = new Peer(ws, path.join(ws.cache, 'zod.txt'));
  try {
    await ws.write('a.ts', Array.from({ length: 50 }, (_, i) => `const v${i} = ${i};`).join('\n') + '\n');
    await peer.request('initialize', INIT);
    await run(peer, ws);
  } finally {
    await peer.close();
    await ws.dispose();
  }
}

describe('cli: zod out of the first calls', function () {
  this.timeout(120000);
  before(async () => buildCli());

  it('the bundle holds no zod; dist/vendor/zod.js holds one, its ES module build (the one the SDK imports), without its locales', () => {
    const bundle = fs.readFileSync(path.join(REPO, 'dist/cli-main.js'), 'utf8');
    assert.equal(bundle.split('__zod_globalConfig').length - 1, 0, 'zod is not in the server bundle');
    assert.match(bundle, /"vendor","zod\.js"/, 'the bundle loads it from beside itself');
    const vendor = fs.readFileSync(path.join(REPO, 'dist/vendor/zod.js'), 'utf8');
    // one copy of zod's core names its global config 4 times: a second copy (its CommonJS build) doubles that
    assert.equal(vendor.split('__zod_globalConfig').length - 1, 4);
    assert.doesNotMatch(vendor, /Ungültige Eingabe/, 'no locale but English');
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const zod = require(path.join(REPO, 'dist/vendor/zod.js')) as Record<string, { ZodType?: unknown; $ZodType?: unknown; core?: { $ZodType?: unknown } }>;
    assert.deepEqual(Object.keys(zod).sort(), ['v3', 'v4', 'v4core', 'v4mini', 'zod']);
    assert.equal(zod.zod!.ZodType, zod.v4!.ZodType, "'zod' and 'zod/v4' are one zod");
    assert.equal(zod.v4!.core!.$ZodType, zod.v4core!.$ZodType, "and 'zod/v4/core' is its core");
  });

  it('a first read and a first edit answer before zod is evaluated; an idle moment evaluates it', async () => {
    await withPeer(async (peer, ws) => {
      const read = await peer.tool('be-read', { file: 'a.ts:1-10' });
      assert.equal(read.isError, false, read.text);
      const edit = await peer.tool('be-replace', { file: 'a.ts:3', content: 'const v2 = 20;' });
      assert.equal(edit.isError, false, edit.text);
      assert.match(fs.readFileSync(path.join(ws.root, 'a.ts'), 'utf8'), /^const v0 = 0;\nconst v1 = 1;\nconst v2 = 20;\n/);
      assert.equal(await peer.zodLoaded(), false, 'no zod before the first idle moment');
      // the warm-up's idle slices (150 ms after the last call each) build the schemas
      let loaded = false;
      for (let i = 0; i < 60 && !loaded; i++) {
        await new Promise((r) => setTimeout(r, 100));
        loaded = await peer.zodLoaded();
      }
      assert.ok(loaded, 'zod evaluated at an idle moment');
    });
  });

  it('an argument the plain check does not take is zod\'s to judge, worded as before', async () => {
    await withPeer(async (peer) => {
      const bad = await peer.tool('be-read', { file: 'a.ts', from: 0 });
      assert.equal(bad.isError, true);
      assert.match(bad.text, /from: Too small/);
      assert.equal(await peer.zodLoaded(), true);
      const typo = await peer.tool('be-replace', { file: 'a.ts:1', content: 'x', preveiw: true });
      assert.equal(typo.isError, true);
      assert.match(typo.text, /preveiw/);
    });
  });
});
