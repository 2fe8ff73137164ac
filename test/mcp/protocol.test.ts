/**
 * One test per upstream protocol/transport flaw (spec §14 "Protocol and transport"), against the built CLI
 * over raw NDJSON so nothing in a client library hides what the server sends.
 */
import assert from 'node:assert/strict';
import { LATEST_PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/sdk/types.js';
import { buildCli, RawStdio, tmpWorkspace, type Workspace } from './helpers';

describe('mcp protocol flaws (raw stdio against dist/cli.js)', function () {
  this.timeout(120000);
  let ws: Workspace;
  let raw: RawStdio;

  before(async () => {
    await buildCli();
  });
  beforeEach(async () => {
    ws = await tmpWorkspace();
    raw = new RawStdio(ws);
  });
  afterEach(async () => {
    await raw.close();
    await ws.dispose();
  });

  it('flaw "initialize ignores the client protocol version": a supported version is echoed back', async () => {
    const older = SUPPORTED_PROTOCOL_VERSIONS.find((v) => v !== LATEST_PROTOCOL_VERSION && v !== '2024-11-05')!;
    const r = await raw.initialize(older);
    assert.equal(r.result.protocolVersion, older);
    assert.equal(r.result.serverInfo.name, 'better-edit-tools');
    assert.ok(r.result.capabilities.tools);
  });

  it('flaw "initialize ignores the client protocol version": an unknown version gets the latest we support', async () => {
    const r = await raw.initialize('2099-01-01');
    assert.equal(r.result.protocolVersion, LATEST_PROTOCOL_VERSION);
  });

  it('flaw "ping is answered with -32601": ping gets an empty result', async () => {
    await raw.initialize();
    const r = await raw.request(1, 'ping');
    assert.deepEqual(r, { jsonrpc: '2.0', id: 1, result: {} });
  });

  it('flaw "unknown notifications get an error response with no id": they get no response at all', async () => {
    await raw.initialize();
    raw.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 12345, reason: 'x' } });
    raw.send({ jsonrpc: '2.0', method: 'notifications/made-up' });
    // the very next line must be the ping's answer: nothing was sent for the notifications
    const r = await raw.request(2, 'ping');
    assert.deepEqual(r, { jsonrpc: '2.0', id: 2, result: {} });
  });

  it('an unknown request method gets -32601 with its id', async () => {
    await raw.initialize();
    const r = await raw.request(3, 'tools/frobnicate');
    assert.equal(r.id, 3);
    assert.equal(r.error.code, -32601);
  });

  it('flaw "results use _data": results carry structuredContent and compact JSON text, no _data', async () => {
    await ws.write('a.txt', 'one <b> & "c"\ntwo\n');
    await raw.initialize();
    const r = await raw.request(4, 'tools/call', { name: 'be-read', arguments: { file: 'a.txt' } });
    const result = r.result;
    assert.equal(result.isError, undefined);
    assert.equal(result.structuredContent.total, 2);
    assert.equal(result.content.length, 1);
    assert.equal(result.content[0].type, 'text');
    assert.equal('_data' in result.content[0], false);
    assert.deepEqual(JSON.parse(result.content[0].text), result.structuredContent);
    assert.equal(result.content[0].text, JSON.stringify(result.structuredContent), 'compact, not indented');
    assert.ok(result.content[0].text.includes('<b> &'), 'no \\u003c escaping');
  });

  it('flaw "be-delete has no description": every tool, be-delete included, has a description', async () => {
    await raw.initialize();
    const r = await raw.request(5, 'tools/list');
    const del = r.result.tools.find((t: any) => t.name === 'be-delete');
    assert.ok(del, 'be-delete is listed');
    assert.match(del.description, /Delete lines.*chip/s);
    for (const t of r.result.tools) assert.ok(t.description && t.description.length > 20, `${t.name} has a description`);
  });

  it('flaw "a request line over 64 KiB kills the server": a 70 KB be-write lands and the server stays up', async () => {
    await raw.initialize();
    const content = ('0123456789abcdef'.repeat(8) + '\n').repeat(70 * 1024 / 129 + 1);
    assert.ok(content.length > 70 * 1024);
    const r = await raw.request(6, 'tools/call', { name: 'be-write', arguments: { file: 'big.txt', content } });
    assert.equal(r.result.isError, undefined, JSON.stringify(r).slice(0, 500));
    assert.equal((await ws.read('big.txt')).toString(), content);
    assert.deepEqual(await raw.request(7, 'ping'), { jsonrpc: '2.0', id: 7, result: {} });
  });

  it('an unparseable line gets -32700 (id null) and the server keeps serving', async () => {
    await raw.initialize();
    raw.send('{"jsonrpc":"2.0","id":8,"method":');
    const err = await raw.next();
    assert.equal(err.error.code, -32700);
    assert.equal(err.id, null);
    assert.deepEqual(await raw.request(9, 'ping'), { jsonrpc: '2.0', id: 9, result: {} });
  });

  it('logs go to stderr only: every stdout line is JSON-RPC', async () => {
    await raw.initialize();
    await raw.request(10, 'tools/list');
    // the start-up line comes once the services composed, which may be after tools/list was answered
    for (let i = 0; i < 100 && !/roots: /.test(raw.stderr); i++) await new Promise((r) => setTimeout(r, 50));
    assert.match(raw.stderr, /roots: /);
  });
});
