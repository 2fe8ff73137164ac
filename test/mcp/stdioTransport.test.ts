import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { LineStdioServerTransport } from '../../src/mcp/stdio';

function setup(maxLineBytes?: number) {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const t = new LineStdioServerTransport(stdin, stdout, { maxLineBytes });
  const got: JSONRPCMessage[] = [];
  const out: any[] = [];
  let outBuf = '';
  stdout.on('data', (d: Buffer) => {
    outBuf += d.toString();
    let nl: number;
    while ((nl = outBuf.indexOf('\n')) !== -1) {
      out.push(JSON.parse(outBuf.slice(0, nl)));
      outBuf = outBuf.slice(nl + 1);
    }
  });
  t.onmessage = (m) => got.push(m);
  return { stdin, stdout, t, got, out };
}

const tick = () => new Promise((r) => setImmediate(r));

describe('mcp/stdio LineStdioServerTransport', () => {
  it('answers every request written before stdin ended, then closes (a client that pipes and hangs up)', async () => {
    const { stdin, t, out } = setup();
    let closed = false;
    t.onclose = () => (closed = true);
    const pending: number[] = [];
    t.onmessage = (m) => pending.push((m as { id: number }).id);
    await t.start();
    stdin.end('{"jsonrpc":"2.0","id":1,"method":"ping"}\n{"jsonrpc":"2.0","id":2,"method":"ping"}\n');
    await tick();
    await tick();
    assert.deepEqual(pending, [1, 2]);
    assert.equal(closed, false, 'must not close while requests are unanswered');
    await t.send({ jsonrpc: '2.0', id: 2, result: {} });
    assert.equal(closed, false);
    await t.send({ jsonrpc: '2.0', id: 1, result: {} });
    await tick();
    assert.deepEqual(out.map((m) => m.id), [2, 1]);
    assert.equal(closed, true, 'closes once the last answer is out');
  });

  it('splits messages across arbitrary chunk boundaries, CRLF and blank lines included', async () => {
    const { stdin, t, got } = setup();
    await t.start();
    const text = '{"jsonrpc":"2.0","id":1,"method":"ping"}\r\n\n{"jsonrpc":"2.0","method":"notifications/x"}\n';
    for (const ch of text) stdin.write(ch);
    await tick();
    assert.deepEqual(got, [
      { jsonrpc: '2.0', id: 1, method: 'ping' },
      { jsonrpc: '2.0', method: 'notifications/x' },
    ]);
  });

  it('accepts a 20 MiB line (over the SDK ReadBuffer 10 MB limit) in 64 KiB chunks', async () => {
    const { stdin, t, got } = setup();
    await t.start();
    const content = 'x'.repeat(20 * 1024 * 1024);
    const line = Buffer.from(JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'n', arguments: { content } } }) + '\n');
    for (let i = 0; i < line.length; i += 65536) stdin.write(line.subarray(i, i + 65536));
    await tick();
    assert.equal(got.length, 1);
    assert.equal((got[0] as any).params.arguments.content.length, content.length);
  });

  it('skips a line over the limit, answers its id with -32600, and keeps reading', async () => {
    const { stdin, t, got, out } = setup(1000);
    await t.start();
    const big = JSON.stringify({ method: 'tools/call', params: { arguments: { content: 'y'.repeat(5000), id: 99 } }, jsonrpc: '2.0', id: 42 });
    stdin.write(big.slice(0, 700));
    stdin.write(big.slice(700) + '\n{"jsonrpc":"2.0","id":43,"method":"ping"}\n');
    await tick();
    assert.deepEqual(got, [{ jsonrpc: '2.0', id: 43, method: 'ping' }]);
    assert.equal(out.length, 1);
    assert.equal(out[0].id, 42);
    assert.equal(out[0].error.code, -32600);
    assert.match(out[0].error.message, /too large.*\d+ bytes.*at most 1000 bytes/);
  });

  it('answers an unparseable line with -32700 and an invalid request with -32600, then goes on', async () => {
    const { stdin, t, got, out } = setup();
    await t.start();
    stdin.write('{not json\n{"id":5,"foo":1}\n{"jsonrpc":"2.0","id":6,"method":"ping"}\n');
    await tick();
    assert.equal(out[0].error.code, -32700);
    assert.equal(out[0].id, null);
    assert.equal(out[1].error.code, -32600);
    assert.equal(out[1].id, 5);
    assert.deepEqual(got, [{ jsonrpc: '2.0', id: 6, method: 'ping' }]);
  });

  it('closes when stdin ends', async () => {
    const { stdin, t } = setup();
    let closed = 0;
    t.onclose = () => closed++;
    await t.start();
    stdin.end();
    await tick();
    await tick();
    assert.equal(closed, 1);
  });

  describe('JSON-RPC batches', () => {
    it('hands each request on and writes their responses as one array once the last is ready', async () => {
      const { stdin, t, got, out } = setup();
      await t.start();
      stdin.write('[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/x"},{"jsonrpc":"2.0","id":"b","method":"tools/list"}]\n');
      await tick();
      assert.deepEqual(got.map((m) => (m as { method: string }).method), ['ping', 'notifications/x', 'tools/list']);
      await t.send({ jsonrpc: '2.0', id: 'b', result: { tools: [] } });
      await tick();
      assert.equal(out.length, 0, 'nothing written until every request of the batch is answered');
      await t.send({ jsonrpc: '2.0', id: 1, result: {} });
      await tick();
      assert.deepEqual(out, [[{ jsonrpc: '2.0', id: 'b', result: { tools: [] } }, { jsonrpc: '2.0', id: 1, result: {} }]]);
    });

    it('answers invalid members and duplicate ids inside the batch reply, an empty batch with one error', async () => {
      const { stdin, t, got, out } = setup();
      await t.start();
      stdin.write('[]\n[1,{"jsonrpc":"2.0","id":3,"foo":1},{"jsonrpc":"2.0","id":4,"method":"ping"},{"jsonrpc":"2.0","id":4,"method":"ping"}]\n');
      await tick();
      assert.equal(out.length, 1);
      assert.equal(out[0].id, null);
      assert.equal(out[0].error.code, -32600);
      assert.match(out[0].error.message, /empty batch/);
      assert.equal(got.length, 1, 'only the first id 4 reaches the server');
      await t.send({ jsonrpc: '2.0', id: 4, result: {} });
      await tick();
      const reply = out[1] as any[];
      assert.ok(Array.isArray(reply));
      assert.deepEqual(reply.map((r) => [r.id, r.error?.code]), [[null, -32600], [3, -32600], [4, -32600], [4, undefined]]);
      assert.match(reply[2].error.message, /id 4 is already used/);
    });

    it('a batch of notifications only gets no reply', async () => {
      const { stdin, t, got, out } = setup();
      await t.start();
      stdin.write('[{"jsonrpc":"2.0","method":"notifications/a"},{"jsonrpc":"2.0","method":"notifications/b"}]\n');
      await tick();
      assert.equal(got.length, 2);
      assert.equal(out.length, 0);
    });

    it('stdin ending with a batch unanswered waits for the whole batch before closing', async () => {
      const { stdin, t, out } = setup();
      let closed = false;
      t.onclose = () => (closed = true);
      await t.start();
      stdin.end('[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"ping"}]\n');
      await tick();
      await tick();
      await t.send({ jsonrpc: '2.0', id: 1, result: {} });
      assert.equal(closed, false);
      await t.send({ jsonrpc: '2.0', id: 2, result: {} });
      await tick();
      assert.equal(out.length, 1);
      assert.equal(closed, true);
    });
  });
});
