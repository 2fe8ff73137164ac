/**
 * The stdio front (src/mcp/fastStart.ts) answers `initialize` before the server bundle loads: its reply must be
 * the SDK server's, byte for byte, and the session after it must be the same as without the front.
 */
import assert from 'node:assert/strict';
import { LATEST_PROTOCOL_VERSION as SDK_LATEST, SUPPORTED_PROTOCOL_VERSIONS as SDK_SUPPORTED } from '@modelcontextprotocol/sdk/types.js';
import { initializeReply, LATEST_PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS } from '../../src/mcp/fastStart';
import { spawn } from 'node:child_process';
import { buildCli, childEnv, cliArgs, tmpWorkspace, type Workspace } from '../mcp/helpers';
import { session } from './stdioSession';

/** viewed_code_id carries the file's change time, which differs between the two sessions' reads. */
const same = (lines: string[]) => lines.map((l) => l.replace(/v1\.[A-Za-z0-9_-]+/g, 'v1.<id>'));

const init = (id: string | number, protocolVersion: string, capabilities: object = {}) => ({
  jsonrpc: '2.0', id, method: 'initialize', params: { protocolVersion, capabilities, clientInfo: { name: 'fast-start-test', version: '1.2' } },
});

describe('cli fast start: initialize answered before the bundle loads', function () {
  this.timeout(120000);
  let ws: Workspace;
  before(async () => {
    await buildCli();
    ws = await tmpWorkspace();
  });
  after(async () => ws.dispose());

  it('negotiates protocol versions from the same list as the SDK', () => {
    assert.equal(LATEST_PROTOCOL_VERSION, SDK_LATEST);
    assert.deepEqual([...SUPPORTED_PROTOCOL_VERSIONS], [...SDK_SUPPORTED]);
  });

  it('leaves what is not a plain initialize request to the real server', () => {
    assert.equal(initializeReply('{"jsonrpc":"2.0","id":1,"method":"ping"}'), undefined);
    assert.equal(initializeReply('not json'), undefined);
    assert.equal(initializeReply(JSON.stringify({ ...init(1, '2025-06-18'), params: { protocolVersion: '2025-06-18', capabilities: {} } })), undefined);
    assert.equal(initializeReply(JSON.stringify(init(1.5, '2025-06-18'))), undefined);
    assert.equal(initializeReply(JSON.stringify(init(null as unknown as number, '2025-06-18'))), undefined);
  });

  const versions = [...SDK_SUPPORTED, '1999-01-01', ''];
  it(`replies byte for byte as the SDK server does, for ${versions.length} requested versions and both id types`, async () => {
    for (const [i, v] of versions.entries()) {
      const id = i % 2 === 0 ? i + 1 : `req-${i}`;
      const msgs = [init(id, v, i % 3 === 0 ? { roots: { listChanged: true } } : {})];
      const [fast, slow] = await Promise.all([session(ws, msgs, true), session(ws, msgs, false)]);
      assert.equal(fast.length, 1, `one reply (the real server's duplicate is dropped): ${fast.join('\n')}`);
      assert.equal(fast[0], slow[0], `requested ${JSON.stringify(v)}`);
      assert.equal(fast[0], initializeReply(JSON.stringify(msgs[0]))!.reply);
    }
  });

  it('a client that goes away mid-session (stdout closed) ends the CLI quietly, exit 0', async () => {
    for (const fastStart of [true, false]) {
      const env = { ...childEnv(ws), BET_NO_FAST_START: fastStart ? '0' : '1' };
      const p = spawn(process.execPath, cliArgs(ws), { env, cwd: ws.root, stdio: ['pipe', 'pipe', 'pipe'] });
      let err = '';
      p.stderr.on('data', (d: Buffer) => (err += d.toString('utf8')));
      const exited = new Promise<number | null>((resolve) => p.on('exit', (code) => resolve(code)));
      const timer = setTimeout(() => p.kill('SIGKILL'), 20000);
      p.stdin.write(JSON.stringify(init(1, '2025-06-18')) + '\n');
      await new Promise((resolve) => p.stdout.once('data', resolve));
      p.stdout.destroy(); // the reading end closes: the next replies hit EPIPE
      for (let id = 2; id < 40; id++) p.stdin.write(JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/list' }) + '\n');
      const code = await exited;
      clearTimeout(timer);
      assert.equal(code, 0, `fast start ${fastStart}: exit ${code}; stderr: ${err}`);
      assert.doesNotMatch(err, /Error|fatal|unhandled/i, `fast start ${fastStart}`);
    }
  });

  it('the rest of the session is the same as without the front (tools/list, a call, a ping first)', async () => {
    await ws.write('a.txt', 'one\ntwo\n');
    const msgs = [
      init(7, '2025-06-18'),
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: 8, method: 'tools/list' },
      { jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'be-read', arguments: { file: 'a.txt' } } },
    ];
    const [fast, slow] = await Promise.all([session(ws, msgs, true), session(ws, msgs, false)]);
    assert.deepEqual(fast.map((l) => (JSON.parse(l) as { id: number }).id), [7, 8, 9]);
    assert.deepEqual(same(fast), same(slow));
    // not an initialize first: nothing is answered early, the real server answers everything
    const pingFirst = [{ jsonrpc: '2.0', id: 1, method: 'ping' }, ...msgs];
    const [fastP, slowP] = await Promise.all([session(ws, pingFirst, true), session(ws, pingFirst, false)]);
    assert.deepEqual(fastP.map((l) => (JSON.parse(l) as { id: number }).id), [1, 7, 8, 9]);
    assert.deepEqual(same(fastP), same(slowP));
    // a malformed initialize gets the real server's error, once
    const bad = [{ jsonrpc: '2.0', id: 3, method: 'initialize', params: { protocolVersion: 5 } }];
    const [fastB, slowB] = await Promise.all([session(ws, bad, true), session(ws, bad, false)]);
    assert.deepEqual(fastB, slowB);
    assert.match(fastB[0]!, /"error"/);
  });

  it('replies written back to back are all out before the CLI exits at the end of input', async () => {
    // the front queued a reply behind the previous write's callback, and the exit after the last response lost it
    const msgs = [init(1, '2025-06-18'), { jsonrpc: '2.0', method: 'notifications/initialized' }, ...[2, 3, 4].map((id) => ({ jsonrpc: '2.0', id, method: 'tools/list' }))];
    const [fast, slow] = await Promise.all([session(ws, msgs, true), session(ws, msgs, false)]);
    assert.deepEqual(fast.map((l) => (JSON.parse(l) as { id: number }).id), [1, 2, 3, 4]);
    assert.deepEqual(fast, slow);
  });
});
