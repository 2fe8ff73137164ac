/**
 * The stdio front (src/mcp/fastStart.ts) may answer an `initialize` only with the reply the full server would give;
 * anything else it must hand over. 46 malformed or unusual initialize requests, each sent to the CLI without the
 * front (the SDK server's answer) and with it: the front's own reply, when it gives one, is the SDK's byte for byte,
 * and the whole session output is the same either way. The same for 2026-07-28: 36 `server/discover` probes
 * (the first line a 2026 client such as Claude Code sends) and 6 whole 2026 sessions (discover, then requests with
 * the per-request _meta, a fallback to initialize after a probe).
 */
import assert from 'node:assert/strict';
import { earlyReply } from '../../src/mcp/fastStart';
import { buildCli, tmpWorkspace, type Workspace } from '../mcp/helpers';
import { session } from './stdioSession';

const sessionOf = (ws: Workspace, line: string, fastStart: boolean) => session(ws, [line], fastStart);

const good = { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'malformed-test', version: '1.0' } };
const req = (params: unknown, top: Record<string, unknown> = {}) => ({ jsonrpc: '2.0', id: 1, method: 'initialize', params, ...top });
const withCaps = (capabilities: unknown) => req({ ...good, capabilities });
const withInfo = (clientInfo: unknown) => req({ ...good, clientInfo });

export const VARIANTS: [string, unknown][] = [
  ['capabilities.roots a number', withCaps({ roots: 5 })],
  ['capabilities.roots.listChanged a string', withCaps({ roots: { listChanged: 'yes' } })],
  ['capabilities.sampling a number', withCaps({ sampling: 5 })],
  ['capabilities.sampling.tools a number', withCaps({ sampling: { tools: 5 } })],
  ['capabilities.elicitation a string', withCaps({ elicitation: 'x' })],
  ['capabilities.elicitation empty', withCaps({ elicitation: {} })],
  ['capabilities.experimental a number', withCaps({ experimental: 5 })],
  ['capabilities.experimental.a a number', withCaps({ experimental: { a: 5 } })],
  ['capabilities.tasks a number', withCaps({ tasks: 5 })],
  ['capabilities with an unknown key', withCaps({ unknownCap: {} })],
  ['capabilities an array', withCaps([])],
  ['capabilities null', withCaps(null)],
  ['capabilities missing', req({ protocolVersion: good.protocolVersion, clientInfo: good.clientInfo })],
  ['clientInfo missing', req({ protocolVersion: good.protocolVersion, capabilities: {} })],
  ['clientInfo a string', withInfo('x')],
  ['clientInfo.name a number', withInfo({ name: 5, version: '1' })],
  ['clientInfo.version missing', withInfo({ name: 'x' })],
  ['clientInfo.title a number', withInfo({ ...good.clientInfo, title: 5 })],
  ['clientInfo.title a string', withInfo({ ...good.clientInfo, title: 'T' })],
  ['clientInfo.websiteUrl a number', withInfo({ ...good.clientInfo, websiteUrl: 5 })],
  ['clientInfo.icons a string', withInfo({ ...good.clientInfo, icons: 'x' })],
  ['clientInfo.icons[0].src a number', withInfo({ ...good.clientInfo, icons: [{ src: 5 }] })],
  ['clientInfo.description a number', withInfo({ ...good.clientInfo, description: 5 })],
  ['clientInfo with an unknown key', withInfo({ ...good.clientInfo, foo: 1 })],
  ['protocolVersion a number', req({ ...good, protocolVersion: 5 })],
  ['protocolVersion missing', req({ capabilities: {}, clientInfo: good.clientInfo })],
  ['protocolVersion empty', req({ ...good, protocolVersion: '' })],
  ['protocolVersion 2026-07-28', req({ ...good, protocolVersion: '2026-07-28' })],
  ['params missing', { jsonrpc: '2.0', id: 1, method: 'initialize' }],
  ['params an array', req([])],
  ['params null', req(null)],
  ['params._meta a number', req({ ...good, _meta: 5 })],
  ['params._meta.progressToken an object', req({ ...good, _meta: { progressToken: {} } })],
  ['params with an unknown key', req({ ...good, foo: 1 })],
  ['id null', req(good, { id: null })],
  ['id 1.5', req(good, { id: 1.5 })],
  ['id true', req(good, { id: true })],
  ['id missing (a notification)', { jsonrpc: '2.0', method: 'initialize', params: good }],
  ['id an empty string', req(good, { id: '' })],
  ['id -1', req(good, { id: -1 })],
  ['id above 2^53', req(good, { id: 2 ** 53 + 2 })],
  ['jsonrpc "1.0"', req(good, { jsonrpc: '1.0' })],
  ['jsonrpc missing', { id: 1, method: 'initialize', params: good }],
  ['method "Initialize"', req(good, { method: 'Initialize' })],
  ['an unknown top-level key', req(good, { foo: 1 })],
  ['a batch of one initialize', [req(good)]],
];

describe('cli fast start: 46 malformed initialize requests, answered as the SDK server answers or handed over', function () {
  this.timeout(300000);
  let ws: Workspace;
  const results: { name: string; line: string; sdk: string[]; front: string[] }[] = [];
  before(async () => {
    await buildCli();
    ws = await tmpWorkspace();
    // 2 sessions per variant, 4 at a time
    const queue = VARIANTS.map(([name, msg]) => ({ name, line: JSON.stringify(msg) }));
    const worker = async () => {
      for (let v = queue.shift(); v; v = queue.shift()) {
        const [sdk, front] = await Promise.all([sessionOf(ws, v.line, false), sessionOf(ws, v.line, true)]);
        results.push({ ...v, sdk, front });
      }
    };
    await Promise.all([worker(), worker()]);
  });
  after(async () => ws.dispose());

  it('has 46 variants', () => assert.equal(VARIANTS.length, 46));

  it("the front's own reply, where it gives one, is the SDK server's first line byte for byte", () => {
    const wrong = results.flatMap((r) => {
      const early = earlyReply(r.line);
      return early && early.reply !== r.sdk[0] ? [`${r.name}: front ${early.reply} | SDK ${r.sdk[0] ?? '(no reply)'}`] : [];
    });
    assert.deepEqual(wrong, []);
  });

  it('the whole session output is the same with and without the front', () => {
    const wrong = results.filter((r) => JSON.stringify(r.front) !== JSON.stringify(r.sdk)).map((r) => `${r.name}: with ${r.front.join(' ')} | without ${r.sdk.join(' ')}`);
    assert.deepEqual(wrong, []);
    // the comparison has teeth: some variants are refused by the SDK, and the front still answers the valid ones
    assert.ok(results.some((r) => /"error"/.test(r.sdk[0] ?? '')), 'some variants are errors');
    assert.ok(results.some((r) => earlyReply(r.line) !== undefined), 'the front answers some variants itself');
  });
});

const M = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientInfo': { name: 'discover-test', version: '1.0' }, 'io.modelcontextprotocol/clientCapabilities': {} };
const disc = (params: unknown, top: Record<string, unknown> = {}) => ({ jsonrpc: '2.0', id: 1, method: 'server/discover', params, ...top });
const withMeta = (patch: Record<string, unknown>) => disc({ _meta: { ...M, ...patch } });
const without = (key: string) => {
  const meta: Record<string, unknown> = { ...M };
  delete meta[key];
  return disc({ _meta: meta });
};

export const DISCOVER_VARIANTS: [string, unknown][] = [
  ['a plain discover', disc({ _meta: M })],
  ['a plain discover, string id', disc({ _meta: M }, { id: 'probe-1' })],
  ['clientInfo missing (optional)', without('io.modelcontextprotocol/clientInfo')],
  ['clientInfo with a title', withMeta({ 'io.modelcontextprotocol/clientInfo': { name: 'x', version: '1', title: 'X' } })],
  ['clientInfo a string', withMeta({ 'io.modelcontextprotocol/clientInfo': 'x' })],
  ['clientInfo.name a number', withMeta({ 'io.modelcontextprotocol/clientInfo': { name: 5, version: '1' } })],
  ['clientInfo.version missing', withMeta({ 'io.modelcontextprotocol/clientInfo': { name: 'x' } })],
  ['clientCapabilities missing', without('io.modelcontextprotocol/clientCapabilities')],
  ['clientCapabilities an array', withMeta({ 'io.modelcontextprotocol/clientCapabilities': [] })],
  ['clientCapabilities null', withMeta({ 'io.modelcontextprotocol/clientCapabilities': null })],
  ['clientCapabilities.roots a number', withMeta({ 'io.modelcontextprotocol/clientCapabilities': { roots: 5 } })],
  ['clientCapabilities with extensions', withMeta({ 'io.modelcontextprotocol/clientCapabilities': { extensions: { 'io.modelcontextprotocol/ui': {} } } })],
  ['clientCapabilities with an unknown key', withMeta({ 'io.modelcontextprotocol/clientCapabilities': { foo: 1 } })],
  ['protocolVersion 2025-11-25 (a 2025 version in the envelope)', withMeta({ 'io.modelcontextprotocol/protocolVersion': '2025-11-25' })],
  ['protocolVersion 2099-01-01 (unknown)', withMeta({ 'io.modelcontextprotocol/protocolVersion': '2099-01-01' })],
  ['protocolVersion a number', withMeta({ 'io.modelcontextprotocol/protocolVersion': 5 })],
  ['protocolVersion missing (no 2026 claim)', without('io.modelcontextprotocol/protocolVersion')],
  ['logLevel info', withMeta({ 'io.modelcontextprotocol/logLevel': 'info' })],
  ['logLevel unknown', withMeta({ 'io.modelcontextprotocol/logLevel': 'loud' })],
  ['progressToken an object', withMeta({ progressToken: {} })],
  ['_meta with an unknown key', withMeta({ 'example.com/x': 1 })],
  ['_meta a number', disc({ _meta: 5 })],
  ['_meta missing', disc({})],
  ['params missing', { jsonrpc: '2.0', id: 1, method: 'server/discover' }],
  ['params an array', disc([])],
  ['params with an unknown key', disc({ _meta: M, cursor: 'x' })],
  ['id null', disc({ _meta: M }, { id: null })],
  ['id 1.5', disc({ _meta: M }, { id: 1.5 })],
  ['id missing (a notification)', { jsonrpc: '2.0', method: 'server/discover', params: { _meta: M } }],
  ['id above 2^53', disc({ _meta: M }, { id: 2 ** 53 + 2 })],
  ['jsonrpc "1.0"', disc({ _meta: M }, { jsonrpc: '1.0' })],
  ['method "Server/Discover"', disc({ _meta: M }, { method: 'Server/Discover' })],
  ['an unknown top-level key', disc({ _meta: M }, { foo: 1 })],
  ['a batch of one discover', [disc({ _meta: M })]],
  ['initialize with a 2026 envelope', { jsonrpc: '2.0', id: 1, method: 'initialize', params: { ...good, _meta: M } }],
  ['tools/list first (no discover)', { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: M } }],
];

const r26 = (id: number, method: string, params: Record<string, unknown> = {}) => ({ jsonrpc: '2.0', id, method, params: { ...params, _meta: M } });
export const SESSIONS_2026: [string, unknown[]][] = [
  ['discover, tools/list, be-read, resources', [disc({ _meta: M }), r26(2, 'tools/list'), r26(3, 'tools/call', { name: 'be-read', arguments: { file: 'a.txt' } }), r26(4, 'resources/templates/list'), r26(5, 'resources/read', { uri: 'betools://nope' })]],
  ['discover, then methods 2026 does not have', [disc({ _meta: M }), r26(2, 'ping'), r26(3, 'logging/setLevel', { level: 'info' }), r26(4, 'resources/subscribe', { uri: 'betools://overview' })]],
  ['discover, an unknown tool, a call without a name', [disc({ _meta: M }), r26(2, 'tools/call', { name: 'nope', arguments: {} }), r26(3, 'tools/call', { arguments: {} })]],
  ['discover, then the 2025 fallback (initialize) on the same pipe', [disc({ _meta: M }), { ...req(good), id: 2 }, { jsonrpc: '2.0', method: 'notifications/initialized' }, { jsonrpc: '2.0', id: 3, method: 'tools/list' }]],
  ['an unsupported version, then a good discover', [withMeta({ 'io.modelcontextprotocol/protocolVersion': '2099-01-01' }), { ...disc({ _meta: M }), id: 2 }, r26(3, 'tools/list')]],
  ['initialize (2025), then a 2026 request beside the session', [req(good), { jsonrpc: '2.0', method: 'notifications/initialized' }, r26(2, 'tools/list'), { jsonrpc: '2.0', id: 3, method: 'tools/list' }]],
];

/** viewed_code_id carries the file's change time, which differs between the two sessions' reads. */
const same = (lines: string[]) => lines.map((l) => l.replace(/v1\.[A-Za-z0-9_-]+/g, 'v1.<id>'));

describe('cli fast start, 2026-07-28: 36 server/discover probes and 6 sessions, answered as the full server answers or handed over', function () {
  this.timeout(300000);
  let ws: Workspace;
  const probes: { name: string; line: string; full: string[]; front: string[] }[] = [];
  const sessions: { name: string; full: string[]; front: string[] }[] = [];
  before(async () => {
    await buildCli();
    ws = await tmpWorkspace();
    await ws.write('a.txt', 'one\ntwo\n');
    const queue: (() => Promise<void>)[] = [
      ...DISCOVER_VARIANTS.map(([name, msg]) => async () => {
        const line = JSON.stringify(msg);
        const [full, front] = await Promise.all([session(ws, [line], false), session(ws, [line], true)]);
        probes.push({ name, line, full, front });
      }),
      ...SESSIONS_2026.map(([name, msgs]) => async () => {
        const [full, front] = await Promise.all([session(ws, msgs, false), session(ws, msgs, true)]);
        sessions.push({ name, full: same(full), front: same(front) });
      }),
    ];
    const worker = async () => {
      for (let job = queue.shift(); job; job = queue.shift()) await job();
    };
    await Promise.all([worker(), worker()]);
  });
  after(async () => ws.dispose());

  it('has 36 probes and 6 sessions', () => {
    assert.equal(DISCOVER_VARIANTS.length, 36);
    assert.equal(SESSIONS_2026.length, 6);
  });

  it("the front's own reply, where it gives one, is the full server's first line byte for byte", () => {
    const wrong = probes.flatMap((r) => {
      const early = earlyReply(r.line);
      return early && early.reply !== r.full[0] ? [`${r.name}: front ${early.reply} | full ${r.full[0] ?? '(no reply)'}`] : [];
    });
    assert.deepEqual(wrong, []);
    assert.ok(probes.filter((r) => earlyReply(r.line) !== undefined).length >= 4, 'the front answers the plain probes itself');
  });

  it('the whole output is the same with and without the front, for every probe and session', () => {
    const wrong = [...probes, ...sessions]
      .filter((r) => JSON.stringify(r.front) !== JSON.stringify(r.full))
      .map((r) => `${r.name}: with ${r.front.join(' ')} | without ${r.full.join(' ')}`);
    assert.deepEqual(wrong, []);
    const first = (name: string) => JSON.parse(probes.find((r) => r.name === name)!.full[0]);
    // the comparison has teeth: the probes cover a served discover, each error class and a hand-over to 2025
    assert.deepEqual(first('a plain discover').result.supportedVersions, ['2026-07-28']);
    assert.equal(first('protocolVersion 2099-01-01 (unknown)').error.code, -32022);
    assert.deepEqual(first('protocolVersion 2099-01-01 (unknown)').error.data, { supported: ['2026-07-28'], requested: '2099-01-01' });
    assert.equal(first('clientCapabilities missing').error.code, -32602);
    assert.equal(first('protocolVersion missing (no 2026 claim)').error.code, -32601);
    assert.equal(first('initialize with a 2026 envelope').error.code, -32601);
  });
});
