/** JSON-RPC batches against the real stdio server (dist/cli.js): answered as one array, never dropped. */
import assert from 'node:assert/strict';
import { buildCli, RawStdio, tmpWorkspace, type Workspace } from './helpers';

describe('mcp stdio JSON-RPC batches (dist/cli.js)', function () {
  this.timeout(60_000);
  let ws: Workspace;
  let raw: RawStdio;

  before(async () => {
    await buildCli();
    ws = await tmpWorkspace();
    await ws.write('a.txt', 'one\ntwo\n');
    raw = new RawStdio(ws);
    await raw.initialize();
  });
  after(async () => {
    await raw.close();
    await ws.dispose();
  });

  it('answers a batch of requests with one array holding every response', async () => {
    raw.send([
      { jsonrpc: '2.0', id: 11, method: 'ping' },
      { jsonrpc: '2.0', id: 12, method: 'tools/list' },
      { jsonrpc: '2.0', id: 13, method: 'tools/call', params: { name: 'be-read', arguments: { file: ws.file('a.txt') } } },
    ]);
    const reply = await raw.next();
    assert.ok(Array.isArray(reply), `a batch reply is an array: ${JSON.stringify(reply).slice(0, 200)}`);
    const byId = new Map(reply.map((r: any) => [r.id, r]));
    assert.deepEqual([...byId.keys()].sort(), [11, 12, 13]);
    assert.deepEqual((byId.get(11) as any).result, {});
    assert.ok((byId.get(12) as any).result.tools.some((t: any) => t.name === 'be-read'));
    assert.match(JSON.stringify((byId.get(13) as any).result), /two/);
  });

  it('answers an empty batch and invalid members with errors, and keeps serving', async () => {
    raw.send([]);
    const empty = await raw.next();
    assert.equal(empty.error.code, -32600);
    raw.send([{ jsonrpc: '2.0', id: 21, method: 'ping' }, 42]);
    const mixed = await raw.next();
    assert.deepEqual(mixed.map((r: any) => [r.id, r.error?.code]).sort(), [[21, undefined], [null, -32600]].sort());
    assert.deepEqual((await raw.request(22, 'ping')).result, {});
  });
});
