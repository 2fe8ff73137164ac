/**
 * The safety net under load, through the real stdio CLI and a real SDK client:
 * - removed text survives 500 failed calls of every kind and can be inserted back;
 * - a 15 MiB argument gives an error text of a few KB and adds a few KB of chips;
 * - a 300 MB upstream-shaped chip and FIFOs in the chip and memory directories do not slow or stop the start;
 * - the be-memory window recap stays within its token budget with 4,000 pins.
 * Run: npm run test:reliability (or: npx mocha --config test/reliability/.mocharc.json test/reliability/safety-net.rel.ts)
 */
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { createWriteStream, promises as fs } from 'node:fs';
import * as path from 'node:path';
import { once } from 'node:events';
import { workspaceKey } from '../../src/core/files/workspaceKey';
import { getTokenizer } from '../../src/core/memory/node/tokenizer';
import { buildCli, call, callError, callProtocolError, chipIdIn, cliArgs, childEnv, stdioClient, tmpWorkspace, type Workspace } from '../mcp/helpers';
import { figure } from './figures';

const MiB = 1024 * 1024;

async function dirBytes(dir: string): Promise<number> {
  let total = 0;
  for (const name of await fs.readdir(dir)) {
    const st = await fs.lstat(path.join(dir, name));
    if (st.isFile()) total += st.size;
  }
  return total;
}

describe('reliability: the safety net', function () {
  this.timeout(600_000);
  let ws: Workspace;

  before(async () => {
    await buildCli();
  });
  beforeEach(async () => {
    ws = await tmpWorkspace();
  });
  afterEach(async () => {
    await ws.dispose();
  });

  it('removed text survives 500 failed calls of every kind and is insertable afterwards', async () => {
    await ws.write('a.txt', 'one\ntwo\nthree\n');
    const c = await stdioClient(ws);
    try {
      const del = await call(c.client, 'be-delete', { file: 'a.txt:2' });
      const longPath = `no/such/dir/${'x'.repeat(80)}.txt`;
      const kinds: [string, Record<string, unknown>][] = [
        ['be-read', { file: `${longPath}:1` }],
        ['be-func-range', { file: longPath, line: 3 }],
        ['be-tag-range', { file: longPath, line: 3 }],
        ['be-balance', { file: longPath }],
        ['be-overview', { path: longPath }],
        ['be-replace', { file: 'a.txt:40-50', content: 'replacement that does not fit anywhere\n' }],
        ['be-insert', { file: 'a.txt:99', content: 'an insertion far past the end of the file\n' }],
        ['be-write', { file: longPath, content: 'x', preveiw: true }],
        ['be-delete', { file: 'a.txt:77-88', extra_argument_name_that_is_long: true }],
        ['be-insert-chip', { from: 'chip://ffffff', to: 'a.txt:1', padding: 'p'.repeat(40) }],
        ['be-frobnicate', { file: longPath }],
        ['be-trx', { action: 'status', step: 'not a number at all, not at all' }],
        ['be-chip', { action: 'get', id: 'ffffff', padding: 'p'.repeat(60) }],
        ['be-memory', { action: 'pin', id: 'no-such-message-id-anywhere-in-this-session' }],
      ];
      const started = Date.now();
      let failed = 0;
      let withChip = 0;
      for (let round = 0; round < 500; round++) {
        for (const [tool, args] of kinds) {
          // an unknown tool is a JSON-RPC error (-32602), not a tool result
          const text = tool === 'be-frobnicate' ? await callProtocolError(c.client, tool, args) : await callError(c.client, tool, args);
          failed++;
          if (chipIdIn(text)) withChip++;
        }
      }
      const seconds = (Date.now() - started) / 1000;
      const list = await call(c.client, 'be-insert-chip', {});
      const present = list.chips.includes(del.chip_id);
      figure('safety-net: failed calls (14 kinds x 500)', failed, '7000');
      figure('safety-net: failed calls that saved a chip (edits only)', withChip, '< failed calls');
      figure('safety-net: failed calls per second', Math.round(failed / seconds), 'informational');
      figure('safety-net: deleted-text chip still present', present ? 'yes' : 'no', 'yes');
      await call(c.client, 'be-insert-chip', { from: `chip://${del.chip_id}`, to: 'a.txt:1' });
      const restored = (await ws.read('a.txt')).toString();
      figure('safety-net: deleted text inserted back byte for byte', restored === 'one\ntwo\nthree\n' ? 'yes' : 'no', 'yes');
      assert.ok(present, 'the deleted-text chip was evicted');
      assert.equal(restored, 'one\ntwo\nthree\n');
      assert.ok(withChip < failed);
    } finally {
      await c.close();
    }
  });

  it('a 15 MiB argument gives an error text of a few KB and a few KB of chips', async () => {
    await ws.write('a.txt', 'one\n');
    const c = await stdioClient(ws);
    try {
      const huge = 'q'.repeat(15 * MiB);
      const cases: [string, Record<string, unknown>][] = [
        ['be-read', { file: huge }],
        ['be-replace', { file: huge, content: 'the agent\'s work\n' }],
        ['be-replace', { file: 'nope.txt:1', content: 'work\n', old: huge }],
        ['be-write', { file: 'w.txt', content: 'x', [huge.slice(0, 1 * MiB)]: true }],
        ['be-insert', { file: 'a.txt:9', content: `${'c'.repeat(1000)}\n`, note: huge }],
      ];
      let maxError = 0;
      const before = await dirBytes(ws.chipDir).catch(() => 0);
      for (const [tool, args] of cases) {
        const text = await callError(c.client, tool, args);
        maxError = Math.max(maxError, Buffer.byteLength(text, 'utf8'));
      }
      const added = (await dirBytes(ws.chipDir)) - before;
      figure('safety-net: largest error text for a 15 MiB argument (bytes)', maxError, '<= 5000 (was 31 MiB)');
      figure('safety-net: chip bytes added by 5 such failures', added, '<= 50000 (was 46 MiB)');
      assert.ok(maxError <= 5000);
      assert.ok(added <= 50_000);
    } finally {
      await c.close();
    }
  });

  it('starts within 2 s past a 300 MB upstream-shaped chip and FIFOs in the chip and memory directories', async function () {
    if (process.platform === 'win32') this.skip();
    await fs.mkdir(ws.chipDir, { recursive: true });
    const memoryDir = path.join(ws.cache, 'better-edit-tools-mcp', 'memory', workspaceKey([ws.root]));
    await fs.mkdir(memoryDir, { recursive: true });
    // upstream's shape: no seq, no size, no preview; one 300 MB line of removed text
    const big = createWriteStream(path.join(ws.chipDir, 'chip-abcdef.json'));
    big.write('{"id":"abcdef","tool":"be-delete","args":{"_content":"');
    const block = 'z'.repeat(MiB);
    for (let i = 0; i < 300; i++) if (!big.write(block)) await once(big, 'drain');
    big.end('"},"created_at":1700000000}');
    await once(big, 'finish');
    execFileSync('mkfifo', [path.join(ws.chipDir, 'chip-fedcba.json'), path.join(memoryDir, 'c3RkaW8.memory.json')]);
    await ws.write('a.txt', 'one\ntwo\n');

    const child = spawn(process.execPath, cliArgs(ws), { env: childEnv(ws), cwd: ws.root });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    let out = '';
    const started = Date.now();
    const answered = new Promise<number>((resolve, reject) => {
      const t = setTimeout(() => reject(new Error(`no answer within 30 s; stderr: ${stderr}`)), 30_000);
      child.stdout.on('data', (d: Buffer) => {
        out += d.toString();
        // id 2, not the initialize: the CLI answers initialize before its server has loaded (fast start), the
        // tools/list after it, so this is the time until the server really serves
        if (out.includes('"id":2')) {
          clearTimeout(t);
          resolve(Date.now() - started);
        }
      });
    });
    child.stdin.write(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'rel', version: '0' } } }) + '\n');
    child.stdin.write(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) + '\n');
    child.stdin.write(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }) + '\n');
    try {
      const ms = await answered;
      figure('safety-net: start to serving (tools/list answered) with a 300 MB chip and two FIFOs (ms)', ms, '<= 2000');
      // tools/list is answered while the services compose; a tool call waits for them, and they warn as they open
      const composed = performance.now();
      child.stdin.write(JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'be-memory', arguments: { action: 'window' } } }) + '\n');
      await new Promise<void>((resolve, reject) => {
        const t = setTimeout(() => reject(new Error(`no answer to the tool call within 10 s; stderr: ${stderr}`)), 10_000);
        const look = () => (out.includes('"id":3') ? (clearTimeout(t), resolve()) : setTimeout(look, 20));
        look();
      });
      figure('safety-net: then a tool call answered (ms)', Math.round(performance.now() - composed), '<= 2000');
      const allWarned = () => /chip-abcdef\.json: it is \d+ bytes, over the/.test(stderr) && /chip-fedcba\.json: it is a FIFO/.test(stderr) && /c3RkaW8\.memory\.json: it is a FIFO/.test(stderr);
      // the saved memory sessions are read at the first quiet moment after the call (it does not wait for them)
      for (let i = 0; i < 100 && !allWarned(); i++) await new Promise((r) => setTimeout(r, 50));
      const warned = allWarned();
      figure('safety-net: warned about each skipped file', warned ? 'yes' : 'no', 'yes');
      assert.ok(ms <= 2000, `${ms} ms`);
      assert.ok(warned, stderr);
    } finally {
      child.stdin.end();
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await once(child, 'exit');
      clearTimeout(timer);
    }
  });

  it('the be-memory window recap stays within its token budget with 4,000 pins', async () => {
    const c = await stdioClient(ws);
    try {
      for (let i = 0; i < 4000; i++) {
        await call(c.client, 'be-memory', { action: 'add', kind: 'constraint', content: `constraint ${i}: never edit generated/${i}.ts; ${'because '.repeat(12)}` });
      }
      const recap = await call(c.client, 'be-memory', { action: 'window' });
      const json = JSON.stringify(recap);
      const tokens = getTokenizer('o200k_base').count(json);
      figure('safety-net: window recap with 4,000 pins (bytes)', Buffer.byteLength(json), '<= 25000 (was 578 KB)');
      figure('safety-net: window recap with 4,000 pins (tokens)', tokens, '<= 4000 (the default budget)');
      figure('safety-net: pins listed / omitted', `${recap.pinned.length} / ${recap.pinned_omitted?.count}`, 'omitted counted');
      assert.ok(tokens <= 4000);
      assert.equal(recap.pinned.length + recap.pinned_omitted.count, 4000);
      const page = await call(c.client, 'be-memory', { action: 'pins', offset: recap.pinned_omitted.list_with.offset });
      assert.equal(page.pinned[0].id, recap.pinned_omitted.first_ids[0]);
    } finally {
      await c.close();
    }
  });
});
