/**
 * Property: whenever the stdio fast start would answer a first line itself (an initialize or a 2026-07-28
 * server/discover), the full server — the real stdio transport, the dual-era layer and the SDK server, in process —
 * answers that line with the same bytes. Lines are a plain request with up to three random mutations (a key
 * dropped, a value replaced by any JSON, a key added), at the top, in params, in _meta and in the client info.
 */
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import fc from 'fast-check';
import { earlyReply } from '../../src/mcp/fastStart';
import { connectDualEra, createServer } from '../../src/mcp/server';
import { createServices, type Services } from '../../src/mcp/services';
import { LineStdioServerTransport } from '../../src/mcp/stdio';
import { tmpWorkspace, type Workspace } from '../mcp/helpers';

type Json = Record<string, unknown>;
const META = (): Json => ({
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'prop', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': {},
});
const DISCOVER = (): Json => ({ jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta: META() } });
const INITIALIZE = (): Json => ({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'prop', version: '1' } } });

/** The objects a mutation may touch, by path from the message. */
const PLACES = [[], ['params'], ['params', '_meta'], ['params', '_meta', 'io.modelcontextprotocol/clientInfo'], ['params', '_meta', 'io.modelcontextprotocol/clientCapabilities'], ['params', 'clientInfo'], ['params', 'capabilities']];
const KEYS = ['jsonrpc', 'id', 'method', 'params', '_meta', 'name', 'version', 'title', 'roots', 'extensions', 'protocolVersion', 'capabilities', 'clientInfo',
  'io.modelcontextprotocol/protocolVersion', 'io.modelcontextprotocol/clientInfo', 'io.modelcontextprotocol/clientCapabilities', 'io.modelcontextprotocol/logLevel', 'progressToken', 'x'];
const VALUES = fc.oneof(fc.jsonValue({ maxDepth: 2 }), fc.constantFrom('2026-07-28', '2025-11-25', '2.0', 'server/discover', 'initialize', {}, [], null, 1, 1.5, 2 ** 53 + 2, ''));
const mutation = fc.record({ place: fc.constantFrom(...PLACES), kind: fc.constantFrom('drop', 'set', 'add'), key: fc.constantFrom(...KEYS), value: VALUES });

function mutate(msg: Json, muts: { place: string[]; kind: string; key: string; value: unknown }[]): Json {
  for (const m of muts) {
    let o: unknown = msg;
    for (const k of m.place) o = o && typeof o === 'object' && !Array.isArray(o) ? (o as Json)[k] : undefined;
    if (!o || typeof o !== 'object' || Array.isArray(o)) continue;
    const target = o as Json;
    const existing = Object.keys(target);
    const key = m.kind === 'add' || existing.length === 0 ? m.key : existing[m.key.length % existing.length];
    if (m.kind === 'drop') delete target[key];
    else target[key] = m.value;
  }
  return msg;
}

describe('cli fast start (property): an early reply is always the full server’s reply', function () {
  this.timeout(120000);
  let ws: Workspace;
  let services: Services;
  before(async () => {
    ws = await tmpWorkspace();
    services = await createServices({ roots: [ws.root], chipDir: ws.chipDir, historyDir: ws.historyDir, context: { watch: false } });
  });
  after(async () => {
    await services.close();
    await ws.dispose();
  });

  it('for 400 mutated initialize and server/discover lines', async () => {
    // one full server on the real transport, fed line by line; each early-answered line gets its reply compared
    const input = new PassThrough();
    const output = new PassThrough();
    const server = createServer(services.deps, { sessionId: 'prop', reply: 'json' });
    await connectDualEra(server, new LineStdioServerTransport(input, output));
    let buf = '';
    const waiting: ((line: string) => void)[] = [];
    output.on('data', (d: Buffer) => {
      buf += d.toString('utf8');
      for (let nl = buf.indexOf('\n'); nl !== -1; nl = buf.indexOf('\n')) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        waiting.shift()?.(line);
      }
    });
    const replyTo = (line: string) =>
      new Promise<string>((resolve, reject) => {
        const t = setTimeout(() => reject(new Error(`no reply to ${line}`)), 5000);
        waiting.push((l) => {
          clearTimeout(t);
          resolve(l);
        });
        input.write(line + '\n');
      });
    let answered = 0;
    let handedOver = 0;
    await fc.assert(
      fc.asyncProperty(fc.boolean(), fc.array(mutation, { maxLength: 3 }), async (discover, muts) => {
        const line = JSON.stringify(mutate(discover ? DISCOVER() : INITIALIZE(), muts));
        const early = earlyReply(line);
        if (!early) return void handedOver++;
        answered++;
        assert.equal(await replyTo(line), early.reply, line);
      }),
      { numRuns: 400 },
    );
    await server.close();
    // both classes were reached: the property is not vacuous
    assert.ok(answered >= 40 && handedOver >= 40, `answered ${answered}, handed over ${handedOver}`);
  });
});
