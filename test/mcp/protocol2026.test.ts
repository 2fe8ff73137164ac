/**
 * The 2026-07-28 wire as the spec writes it, on the built CLI: raw NDJSON over stdio and raw POSTs over `--http`
 * (what the SDK clients would hide): the DiscoverResult, the result fields (resultType, ttlMs/cacheScope,
 * serverInfo), the errors (-32022 with the supported list, -32602 for a bad envelope and an unknown resource,
 * -32601 for methods the revision removed), the HTTP header checks (-32020) and statuses, and the client named per
 * request sizing the reply (hostProfiles.ts) beside a 2025 session in the same process.
 */
import assert from 'node:assert/strict';
import { buildCli, RawStdio, startHttpCli, tmpWorkspace, type Workspace } from './helpers';

const V = '2026-07-28';
const meta = (name = 'raw-2026', extra: Record<string, unknown> = {}) => ({
  'io.modelcontextprotocol/protocolVersion': V,
  'io.modelcontextprotocol/clientInfo': { name, version: '1' },
  'io.modelcontextprotocol/clientCapabilities': {},
  ...extra,
});
const SERVER_INFO = { name: 'better-edit-tools' };
const TOKEN = 'p2026p2026p2026p2026p2026p2026cd';

describe('MCP 2026-07-28 on the wire: stdio and HTTP', function () {
  this.timeout(60000);
  let ws: Workspace;
  before(async () => {
    await buildCli();
    ws = await tmpWorkspace();
    await ws.write('a.txt', 'alpha\n');
    await ws.write('b.txt', 'beta\n');
    // a file longer than VS Code's 8192-character spill, shorter than Claude Code's limit
    await ws.write('big.txt', Array.from({ length: 1500 }, (_, i) => `line ${i} ${'x'.repeat(20)}`).join('\n') + '\n');
  });
  after(async () => ws.dispose());

  describe('stdio', () => {
    let raw: RawStdio;
    beforeEach(() => (raw = new RawStdio(ws, ['--reply', 'text', '--reply-max-chars', 'auto'])));
    afterEach(async () => raw.close());

    it('server/discover: versions, the capabilities initialize declares, identity in _meta, cache fields', async () => {
      const d = await raw.request(1, 'server/discover', { _meta: meta() });
      assert.deepEqual(d.result.supportedVersions, [V]);
      assert.equal(d.result.resultType, 'complete');
      assert.equal(d.result.ttlMs, 0);
      assert.equal(d.result.cacheScope, 'private');
      assert.equal(d.result._meta['io.modelcontextprotocol/serverInfo'].name, SERVER_INFO.name);
      const init = await raw.initialize();
      assert.deepEqual(d.result.capabilities, init.result.capabilities);
    });

    it('requests carry their era: the same tools either way, 2026 results stamped, errors renumbered, removed methods -32601', async () => {
      const modern = await raw.request(1, 'tools/list', { _meta: meta() });
      assert.equal(modern.result.resultType, 'complete');
      assert.equal(modern.result.cacheScope, 'private');
      assert.equal(modern.result._meta['io.modelcontextprotocol/serverInfo'].name, SERVER_INFO.name);
      await raw.initialize();
      const legacy = await raw.request(2, 'tools/list');
      assert.deepEqual(modern.result.tools, legacy.result.tools);
      assert.equal(legacy.result.resultType, undefined, 'a 2025 session sees 2025 results');
      const call = await raw.request(3, 'tools/call', { name: 'be-read', arguments: { file: 'a.txt' }, _meta: meta() });
      assert.equal(call.result.resultType, 'complete');
      assert.equal(call.result.ttlMs, undefined, 'tools/call is not cacheable');
      assert.match(JSON.stringify(call.result.content), /alpha/);
      const missing = await raw.request(4, 'resources/read', { uri: 'betools://nope', _meta: meta() });
      assert.deepEqual([missing.error.code, missing.error.data], [-32602, { uri: 'betools://nope' }]);
      assert.equal((await raw.request(5, 'resources/read', { uri: 'betools://nope' })).error.code, -32002, '2025 keeps -32002');
      assert.equal((await raw.request(6, 'tools/call', { name: 'nope', arguments: {}, _meta: meta() })).error.code, -32602);
      for (const [i, method] of ['ping', 'logging/setLevel', 'resources/subscribe', 'initialize'].entries()) {
        assert.equal((await raw.request(10 + i, method, { _meta: meta() })).error.code, -32601, method);
      }
      assert.deepEqual((await raw.request(20, 'ping')).result, {}, '2025 ping still answered');
    });

    it('an unsupported version is -32022 naming the supported ones; a bad envelope -32602', async () => {
      const u = await raw.request(1, 'tools/list', { _meta: meta('x', { 'io.modelcontextprotocol/protocolVersion': '2099-01-01' }) });
      assert.equal(u.error.code, -32022);
      assert.deepEqual(u.error.data, { supported: [V], requested: '2099-01-01' });
      const noCaps = meta();
      delete (noCaps as Record<string, unknown>)['io.modelcontextprotocol/clientCapabilities'];
      const bad = await raw.request(2, 'tools/list', { _meta: noCaps });
      assert.equal(bad.error.code, -32602);
      assert.match(bad.error.message, /clientCapabilities/);
    });

    it('the client named per request sizes its reply, beside a 2025 session of another client', async () => {
      const r = await raw.request(0, 'initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'claude-code', version: '2' } });
      assert.ok(r.result);
      raw.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      const textOf = (m: { result: { content: { text?: string }[] } }) => m.result.content.map((c) => c.text ?? '').join('');
      const asClaude = textOf(await raw.request(1, 'tools/call', { name: 'be-read', arguments: { file: 'big.txt', mode: 'full' } }));
      const asVsCode = textOf(await raw.request(2, 'tools/call', { name: 'be-read', arguments: { file: 'big.txt', mode: 'full' }, _meta: meta('Visual Studio Code') }));
      assert.ok(asVsCode.length <= 8192, `VS Code's reply is ${asVsCode.length} chars`);
      assert.ok(asClaude.length > 8192, `Claude Code's reply is ${asClaude.length} chars`);
    });
  });

  describe('HTTP', () => {
    let url = '';
    let stop: () => Promise<void>;
    before(async () => {
      ({ url, stop } = await startHttpCli(ws, TOKEN));
    });
    after(async () => stop());

    const post = async (body: Record<string, any>, headers: Record<string, string | undefined> = {}) => {
      const h: Record<string, string> = {
        Authorization: `Bearer ${TOKEN}`,
        'Content-Type': 'application/json',
        Accept: 'application/json, text/event-stream',
        'MCP-Protocol-Version': body.params?._meta?.['io.modelcontextprotocol/protocolVersion'] ?? V,
        'Mcp-Method': body.method,
        ...(body.params?.name ? { 'Mcp-Name': body.params.name } : body.params?.uri ? { 'Mcp-Name': body.params.uri } : {}),
      };
      for (const [k, v] of Object.entries(headers)) {
        if (v === undefined) delete h[k];
        else h[k] = v;
      }
      const res = await fetch(url, { method: 'POST', headers: h, body: JSON.stringify(body) });
      const text = await res.text();
      return { status: res.status, session: res.headers.get('mcp-session-id'), json: text ? JSON.parse(text) : undefined };
    };
    const rpc = (id: number | string, method: string, params: Record<string, unknown> = {}) => ({ jsonrpc: '2.0', id, method, params: { ...params, _meta: meta() } });

    it('serves a request without a session: one JSON object, no Mcp-Session-Id, 2026 result fields', async () => {
      const d = await post(rpc(1, 'server/discover'));
      assert.equal(d.status, 200);
      assert.equal(d.session, null);
      assert.deepEqual(d.json.result.supportedVersions, [V]);
      const call = await post(rpc(2, 'tools/call', { name: 'be-read', arguments: { file: 'a.txt' } }));
      assert.equal(call.status, 200);
      assert.equal(call.json.id, 2);
      assert.equal(call.json.result.resultType, 'complete');
      assert.match(JSON.stringify(call.json.result.content), /alpha/);
    });

    it('checks the mirrored headers (-32020), the version (-32022), the method (404), the envelope (-32602)', async () => {
      const missing = await post(rpc(1, 'tools/list'), { 'MCP-Protocol-Version': undefined });
      assert.deepEqual([missing.status, missing.json.error.code], [400, -32020]);
      const otherMethod = await post(rpc(2, 'tools/list'), { 'Mcp-Method': 'tools/call' });
      assert.deepEqual([otherMethod.status, otherMethod.json.error.code], [400, -32020]);
      const noName = await post(rpc(3, 'tools/call', { name: 'be-read', arguments: { file: 'a.txt' } }), { 'Mcp-Name': undefined });
      assert.deepEqual([noName.status, noName.json.error.code], [400, -32020]);
      const otherName = await post(rpc(4, 'tools/call', { name: 'be-read', arguments: { file: 'a.txt' } }), { 'Mcp-Name': 'be-write' });
      assert.deepEqual([otherName.status, otherName.json.error.code], [400, -32020]);
      const b64 = await post(rpc(5, 'tools/call', { name: 'be-read', arguments: { file: 'a.txt' } }), { 'Mcp-Name': `=?base64?${Buffer.from('be-read').toString('base64')}?=` });
      assert.equal(b64.status, 200, 'a Base64-encoded Mcp-Name is decoded before the comparison');
      const future = { ...rpc(6, 'tools/list'), params: { _meta: meta('x', { 'io.modelcontextprotocol/protocolVersion': '2099-01-01' }) } };
      const unsupported = await post(future);
      assert.deepEqual([unsupported.status, unsupported.json.error.code, unsupported.json.error.data], [400, -32022, { supported: [V], requested: '2099-01-01' }]);
      const ping = await post(rpc(7, 'ping'));
      assert.deepEqual([ping.status, ping.json.error.code], [404, -32601]);
      const noCaps = { ...rpc(8, 'tools/list'), params: { _meta: { 'io.modelcontextprotocol/protocolVersion': V } } };
      const bad = await post(noCaps);
      assert.deepEqual([bad.status, bad.json.error.code], [400, -32602]);
      const notification = await post({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1, _meta: meta() } });
      assert.equal(notification.status, 202);
      const noToken = await post(rpc(9, 'tools/list'), { Authorization: undefined });
      assert.equal(noToken.status, 401);
    });

    it('two clients using the same request id at once each get their own answer', async () => {
      const [a, b] = await Promise.all([
        post(rpc(1, 'tools/call', { name: 'be-read', arguments: { file: 'a.txt' } })),
        post(rpc(1, 'tools/call', { name: 'be-read', arguments: { file: 'b.txt' } })),
      ]);
      assert.deepEqual([a.json.id, b.json.id], [1, 1]);
      assert.match(JSON.stringify(a.json.result.content), /alpha/);
      assert.match(JSON.stringify(b.json.result.content), /beta/);
    });

    it('a 2025 session on the same host is untouched: initialize, Mcp-Session-Id, no 2026 fields', async () => {
      const init = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'legacy', version: '1' } } };
      const res = await fetch(url, { method: 'POST', headers: { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' }, body: JSON.stringify(init) });
      assert.equal(res.status, 200);
      assert.ok(res.headers.get('mcp-session-id'));
      const body = await res.text();
      assert.match(body, /"protocolVersion":"2025-11-25"/);
      assert.doesNotMatch(body, /resultType/);
    });
  });
});
