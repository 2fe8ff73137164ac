/** The idle gate background work waits on: open while no call is in flight, closed from a call to its result. */
import { strict as assert } from 'node:assert';
import { execFile } from 'node:child_process';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { idleGate } from '../../src/mcp/idleGate';

const REPO = path.resolve(__dirname, '../..');
const call = (callId: string) => ({ sessionId: 's', callId, tool: 'be-read', args: {} });
const result = (callId: string) => ({ ...call(callId), result: { content: [] }, isError: false, durationMs: 1 });
const tick = () => new Promise((r) => setImmediate(r));

describe('mcp/idleGate', () => {
  it('resolves at once when idle, and only after the last call in flight has answered', async () => {
    const gate = idleGate();
    await gate.whenIdle();
    gate.onToolCall(call('a'));
    gate.onToolCall(call('b'));
    let open = false;
    const waiting = gate.whenIdle().then(() => (open = true));
    gate.onToolResult(result('a'));
    await tick();
    assert.equal(open, false, 'one call still in flight');
    gate.onToolResult(result('b'));
    await waiting;
    assert.equal(open, true);
  });

  it('with quietMs, opens only that long after the last call; a call meanwhile starts the wait again', async () => {
    const gate = idleGate({ quietMs: 80 });
    await gate.whenIdle(); // no call yet: open
    gate.onToolCall(call('a'));
    const t0 = performance.now();
    let openedAt = 0;
    const waiting = gate.whenIdle().then(() => (openedAt = performance.now()));
    gate.onToolResult(result('a'));
    await new Promise((r) => setTimeout(r, 40));
    assert.equal(openedAt, 0, 'closed within the quiet time');
    gate.onToolCall(call('b')); // the next call of the burst
    gate.onToolResult(result('b'));
    const second = performance.now();
    await waiting;
    assert.ok(openedAt - second >= 75, `opened ${(openedAt - second).toFixed(0)} ms after the second call`);
    assert.ok(openedAt - t0 >= 115);
  });

  it('a hold closes the gate like a call in flight, once', async () => {
    const gate = idleGate();
    const release = gate.hold();
    let open = false;
    const waiting = gate.whenIdle().then(() => (open = true));
    await tick();
    await tick();
    assert.equal(open, false, 'held');
    gate.onToolCall(call('a'));
    release();
    release(); // a second release does not end the call in flight
    await tick();
    await tick();
    assert.equal(open, false, 'a call still in flight');
    gate.onToolResult(result('a'));
    await waiting;
  });

  // In a process of its own: in a mocha worker an earlier test may have loaded the ranks already.
  it('a background load of the ranks waits for idle; a caller that needs them now is not kept waiting', async function () {
    this.timeout(60_000);
    const script = `
      const t = require('./src/core/memory/node/tokenizer.ts');
      (async () => {
        const before = t.isTokenizerLoaded('cl100k_base');
        let released = false;
        const never = new Promise(() => undefined);
        const background = t.preloadTokenizer(() => never, 'cl100k_base').then(() => (released = true));
        await new Promise((r) => setTimeout(r, 50));
        const whileBusy = t.isTokenizerLoaded('cl100k_base');
        await t.loadTokenizer('cl100k_base');
        const afterLoad = t.isTokenizerLoaded('cl100k_base');
        await background;
        process.stdout.write(JSON.stringify({ before, whileBusy, afterLoad, released }));
      })();`;
    const { stdout } = await promisify(execFile)(process.execPath, ['--require', 'tsx/cjs', '-e', script], { cwd: REPO, encoding: 'utf8', timeout: 50_000 });
    assert.ok(stdout, 'the child printed nothing: its background load never ended');
    const r = JSON.parse(stdout) as Record<string, boolean>;
    assert.equal(r.before, false, 'a fresh process has no ranks');
    assert.equal(r.whileBusy, false, 'nothing loaded while a call is in flight');
    assert.equal(r.afterLoad, true);
    assert.equal(r.released, true, 'the background load ends with the load a caller asked for');
  });

  // The CLI's first calls came in while the ranks file was being read, and its parse (~20 ms) ran in their midst.
  it('a background load asks for idle again before it parses the ranks: a call begun during the read waits for nothing', async function () {
    this.timeout(60_000);
    const script = `
      const t = require('./src/core/memory/node/tokenizer.ts');
      (async () => {
        let asked = 0;
        // idle at first; then a call is in flight for good
        const whenIdle = () => (++asked === 1 ? Promise.resolve() : new Promise(() => undefined));
        void t.preloadTokenizer(whenIdle, 'cl100k_base');
        await new Promise((r) => setTimeout(r, 300));
        const parsed = Object.keys(require.cache).some((k) => k.includes('cl100k_base'));
        process.stdout.write(JSON.stringify({ asked, parsed, loaded: t.isTokenizerLoaded('cl100k_base') }));
        process.exit(0);
      })();`;
    const { stdout } = await promisify(execFile)(process.execPath, ['--require', 'tsx/cjs', '-e', script], { cwd: REPO, encoding: 'utf8', timeout: 50_000 });
    const r = JSON.parse(stdout) as { asked: number; parsed: boolean; loaded: boolean };
    assert.equal(r.asked, 2, 'asked for idle before reading and again before parsing');
    assert.equal(r.parsed, false, 'the ranks were not parsed while a call was in flight');
    assert.equal(r.loaded, false);
  });
});
