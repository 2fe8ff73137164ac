/**
 * The stdio front (src/mcp/fastStart.ts) may answer an `initialize` only with the reply the full server would give;
 * anything else it must hand over. 46 malformed or unusual initialize requests, each sent to the CLI without the
 * front (the SDK server's answer) and with it: the front's own reply, when it gives one, is the SDK's byte for byte,
 * and the whole session output is the same either way.
 */
import assert from 'node:assert/strict';
import { initializeReply } from '../../src/mcp/fastStart';
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
      const early = initializeReply(r.line);
      return early && early.reply !== r.sdk[0] ? [`${r.name}: front ${early.reply} | SDK ${r.sdk[0] ?? '(no reply)'}`] : [];
    });
    assert.deepEqual(wrong, []);
  });

  it('the whole session output is the same with and without the front', () => {
    const wrong = results.filter((r) => JSON.stringify(r.front) !== JSON.stringify(r.sdk)).map((r) => `${r.name}: with ${r.front.join(' ')} | without ${r.sdk.join(' ')}`);
    assert.deepEqual(wrong, []);
    // the comparison has teeth: some variants are refused by the SDK, and the front still answers the valid ones
    assert.ok(results.some((r) => /"error"/.test(r.sdk[0] ?? '')), 'some variants are errors');
    assert.ok(results.some((r) => initializeReply(r.line) !== undefined), 'the front answers some variants itself');
  });
});
