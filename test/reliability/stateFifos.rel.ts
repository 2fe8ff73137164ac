/**
 * FIFOs in the state locations the journal test does not cover: the chip key, the chip folder, the memory folder
 * and the lock path beside an edited file. A reader that opens a FIFO without O_NONBLOCK waits for a writer that
 * never comes; every call below must answer within a few seconds and the server must keep serving.
 */
import { strict as assert } from 'node:assert';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { figure } from './figures';

const CLI = path.resolve(__dirname, '..', '..', 'dist', 'cli.js');
const msg = (o: object) => `${JSON.stringify({ jsonrpc: '2.0', ...o })}\n`;

/** Runs one stdio session of the given calls; resolves with each reply's ms since spawn, by id. */
function session(root: string, cache: string, calls: { name: string; arguments: object }[], limitMs = 20_000): Promise<Map<number, { ms: number; text: string }>> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const p = spawn(process.execPath, [CLI, '--root', root], { env: { ...process.env, XDG_CACHE_HOME: cache }, stdio: ['pipe', 'pipe', 'ignore'] });
    const replies = new Map<number, { ms: number; text: string }>();
    let buf = '';
    const timer = setTimeout(() => p.kill('SIGKILL'), limitMs);
    p.stdout.on('data', (d: Buffer) => {
      buf += d.toString();
      let nl: number;
      while ((nl = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        const m = JSON.parse(line) as { id?: number; result?: { content?: { text?: string }[] }; error?: { message: string } };
        if (typeof m.id !== 'number') continue;
        replies.set(m.id, { ms: performance.now() - t0, text: m.error?.message ?? m.result?.content?.map((c) => c.text).join('') ?? '' });
        if (replies.size === calls.length + 1) p.stdin.end();
      }
    });
    p.on('exit', () => {
      clearTimeout(timer);
      if (replies.size < calls.length + 1) reject(new Error(`only ${replies.size} of ${calls.length + 1} replies within ${limitMs} ms`));
      else resolve(replies);
    });
    p.stdin.write(
      msg({ id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'rel', version: '1' } } }) +
        msg({ method: 'notifications/initialized' }) +
        calls.map((c, i) => msg({ id: i + 2, method: 'tools/call', params: c })).join(''),
    );
  });
}

describe('reliability: FIFOs in the chip, memory and lock locations', function () {
  this.timeout(120_000);
  let tmp: string;
  before(() => (tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'bet-fifo-'))));
  after(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it('every call answers within 5 s and the server keeps serving', async function () {
    if (process.platform === 'win32') this.skip();
    const ws = path.join(tmp, 'ws');
    const cache = path.join(tmp, 'cache');
    fs.mkdirSync(ws);
    fs.writeFileSync(path.join(ws, 'a.txt'), 'one\ntwo\n');
    fs.writeFileSync(path.join(ws, 'b.txt'), 'one\ntwo\n');
    // a first session makes the folders (chip key, memory, chip folder)
    await session(ws, cache, [{ name: 'be-delete', arguments: { file: 'b.txt:2' } }]);
    const state = path.join(cache, 'better-edit-tools-mcp');
    const chipFolders = fs.readdirSync(path.join(state, 'chips')).filter((n) => fs.statSync(path.join(state, 'chips', n)).isDirectory());
    const memoryFolders = fs.readdirSync(path.join(state, 'memory'));
    assert.ok(chipFolders.length > 0 && memoryFolders.length > 0, 'the first session made a chip and a memory folder');
    const fifos = [
      path.join(state, 'chips', chipFolders[0], 'chip-fifo.json'),
      path.join(state, 'memory', memoryFolders[0], 'Zmlmbw.memory.json'),
      path.join(ws, '.a.txt.be-lock'),
    ];
    for (const f of fifos) {
      fs.rmSync(f, { force: true });
      execFileSync('mkfifo', [f]);
    }
    const replies = await session(ws, cache, [
      { name: 'be-chip', arguments: { action: 'list' } },
      { name: 'be-replace', arguments: { file: 'a.txt:1', content: 'ONE' } },
      { name: 'be-delete', arguments: { file: 'b.txt:1' } },
      { name: 'be-memory', arguments: { action: 'window' } },
      { name: 'be-read', arguments: { file: 'b.txt' } },
    ]);
    const slowest = Math.max(...[...replies.values()].map((r) => r.ms));
    figure('fifo: FIFOs planted (chip folder, memory folder, lock path)', fifos.length, '3');
    figure('fifo: replies of 6 calls with those FIFOs', replies.size, '6');
    figure('fifo: spawn to the slowest reply (ms)', slowest.toFixed(0), '< 5000');
    assert.equal(replies.size, 6);
    assert.ok(slowest < 5000, `slowest reply after ${slowest.toFixed(0)} ms`);
    // the FIFOs are still FIFOs: nothing replaced or followed them
    for (const f of fifos) assert.ok(fs.lstatSync(f).isFIFO(), `${f} is still the FIFO`);
    assert.match(replies.get(3)!.text, /lock|not a regular file|FIFO/i, 'the edit behind a FIFO lock path says why it did not land');
    assert.equal(fs.readFileSync(path.join(ws, 'a.txt'), 'utf8'), 'one\ntwo\n');
  });

  it('a FIFO as the chip key: the server stops at once with the one-line fix, it does not hang', async function () {
    if (process.platform === 'win32') this.skip();
    const ws = path.join(tmp, 'ws2');
    const cache = path.join(tmp, 'cache2');
    fs.mkdirSync(ws);
    const key = path.join(cache, 'better-edit-tools-mcp', 'chips', 'chip-hmac.key');
    fs.mkdirSync(path.dirname(key), { recursive: true });
    execFileSync('mkfifo', [key]);
    const t0 = performance.now();
    const r = spawnSync(process.execPath, [CLI, '--root', ws], {
      env: { ...process.env, XDG_CACHE_HOME: cache },
      input: msg({ id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'rel', version: '1' } } }),
      timeout: 10_000,
      encoding: 'utf8',
    });
    const ms = performance.now() - t0;
    figure('fifo: a FIFO chip key, spawn to exit with the fix (ms)', ms.toFixed(0), '< 5000');
    assert.ok(ms < 5000, `exit after ${ms.toFixed(0)} ms`);
    assert.match(r.stderr, /chip signing key .* is a FIFO.*Remove it \(rm /s);
    assert.ok(fs.lstatSync(key).isFIFO(), 'the FIFO was not opened or replaced');
  });
});
