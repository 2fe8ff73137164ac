/**
 * The lean start (src/mcp/leanStart.ts) answers a session's first requests without the SDK server. Wired as the CLI
 * wires it (the fast front, the lean layer, the SDK server it hands over to, one tool caller), in process, with the
 * real v1 and v2 SDK clients: a 2025 session of either is served by the lean layer alone, and every reply is the
 * one an SDK server gives to the same lines; a 2026-07-28 session, an unknown tool, another method or a hand-over
 * at an idle moment go on through the SDK server, in order.
 */
import assert from 'node:assert/strict';
import { PassThrough, type Readable } from 'node:stream';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { Client as ClientV2 } from '@modelcontextprotocol/client';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { createServices, type Services } from '../../src/mcp/services';
import { connectDualEra, createServer } from '../../src/mcp/server';
import { LineStdioServerTransport } from '../../src/mcp/stdio';
import { createToolCaller } from '../../src/mcp/callPipeline';
import { startStdioFront } from '../../src/mcp/fastStart';
import { startLean, type LeanStart } from '../../src/mcp/leanStart';
import { toolListing } from '../../src/mcp/listing';
import { toolTable } from '../../src/mcp/tools/index';
import { tmpWorkspace, type Workspace } from '../mcp/helpers';

/** viewed_code_id carries the file's change time, which differs between two sessions' reads. */
const same = (line: string) => line.replace(/v1\.[A-Za-z0-9_-]+/g, 'v1.<id>');
const byId = (lines: string[]) => new Map(lines.map((l) => [(JSON.parse(l) as { id: unknown }).id, same(l)]));

/** Newline-delimited JSON lines written to `stream`, as they come. */
function linesOf(stream: Readable, each: (line: string) => void): void {
  let buf = '';
  stream.on('data', (d: Buffer) => {
    buf += d.toString('utf8');
    for (let nl = buf.indexOf('\n'); nl !== -1; nl = buf.indexOf('\n')) {
      const line = buf.slice(0, nl);
      buf = buf.slice(nl + 1);
      if (line) each(line);
    }
  });
}

interface Wired {
  /** A client transport on the CLI's stdio. */
  transport: Transport;
  sent: string[];
  received: string[];
  /** The last line sent when the lean layer handed over (the one it left to the SDK server), if it did. */
  handedOverAt(): string | undefined;
  lean: LeanStart;
  close(): Promise<void>;
}

/** The CLI's stdio wiring (main.ts) over in-memory pipes; the calls wait for `ready` (the services composing). */
function wire(services: Services, ready: Promise<unknown> = Promise.resolve()): Wired {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const front = startStdioFront(stdin, stdout);
  const sent: string[] = [];
  const received: string[] = [];
  let handedOver: string | undefined;
  const opts = { sessionId: 'lean-test', reply: 'json' as const };
  const caller = createToolCaller(services.deps, opts);
  let server: ReturnType<typeof createServer> | undefined;
  const lean = startLean({
    input: front.input,
    frontAnswered: front.answered,
    write: (line) => void stdout.write(line),
    caller,
    listing: () => toolTable.map((t) => toolListing(t, caller.listedName(t), 'en')),
    ready,
    handOver: (input) => {
      // handed over on receipt of a line (or at once, by a call): the last line sent then
      handedOver = sent.at(-1);
      server = createServer(services.deps, { ...opts, caller });
      void connectDualEra(server, new LineStdioServerTransport(input, front.output));
    },
    onEnd: () => undefined,
  });
  const transport: Transport = {
    start: async () => undefined,
    send: async (m: JSONRPCMessage) => {
      const line = JSON.stringify(m);
      sent.push(line);
      stdin.write(line + '\n');
    },
    close: async () => {
      stdin.end();
      transport.onclose?.();
    },
  };
  linesOf(stdout, (line) => {
    received.push(line);
    transport.onmessage?.(JSON.parse(line) as JSONRPCMessage);
  });
  return { transport, sent, received, handedOverAt: () => handedOver, lean, close: async () => void (await server?.close()) };
}

/** The replies a plain SDK server (no front, no lean start) gives to `lines`, by id. */
async function sdkReplies(services: Services, lines: string[]): Promise<Map<unknown, string>> {
  const input = new PassThrough();
  const output = new PassThrough();
  const server = createServer(services.deps, { sessionId: 'lean-ref', reply: 'json' });
  await connectDualEra(server, new LineStdioServerTransport(input, output));
  const got: string[] = [];
  const requests = lines.filter((l) => 'id' in (JSON.parse(l) as object)).length;
  await new Promise<void>((resolve) => {
    linesOf(output, (l) => {
      got.push(l);
      if (got.length === requests) resolve();
    });
    input.write(lines.map((l) => l + '\n').join(''));
  });
  await server.close();
  return byId(got);
}

async function session(client: { callTool(p: object): Promise<unknown>; listTools(): Promise<unknown>; ping(): Promise<unknown> }, ping = true): Promise<void> {
  await client.listTools();
  await client.callTool({ name: 'be-read', arguments: { file: 'a.ts' } });
  if (ping) await client.ping(); // not a 2026-07-28 method
  await client.callTool({ name: 'be-read', arguments: { file: 'a.ts:2' } });
  await client.callTool({ name: 'be-read', arguments: { file: 'missing.ts' } });
}

describe('cli lean start: the first requests answered without the SDK server, as it answers them', function () {
  this.timeout(60000);
  let ws: Workspace;
  let services: Services;
  before(async () => {
    ws = await tmpWorkspace();
    await ws.write('a.ts', 'function f() {\n  return 1;\n}\n');
    services = await createServices({ roots: [ws.root], chipDir: ws.chipDir, historyDir: ws.historyDir, context: { watch: false } });
  });
  after(async () => {
    await services.close();
    await ws.dispose();
  });

  const clients = [
    { label: 'SDK v1', make: () => new ClientV1({ name: 'lean-test', version: '1.0.0' }) },
    { label: 'SDK v2 in a 2025 session', make: () => new ClientV2({ name: 'lean-test', version: '2.0.0' }, { versionNegotiation: { mode: 'legacy' } }) },
  ];
  for (const c of clients) {
    it(`${c.label}: served by the lean layer alone, each reply the SDK server's`, async () => {
      const w = wire(services);
      const client = c.make();
      await client.connect(w.transport as never);
      await session(client as never);
      await client.close();
      await w.close();
      assert.equal(w.handedOverAt(), undefined, 'nothing was left to the SDK server');
      const replies = byId(w.received);
      const reference = await sdkReplies(services, w.sent);
      assert.equal(replies.size, reference.size);
      for (const [id, line] of reference) assert.equal(replies.get(id), line, `reply to ${w.sent.find((l) => l.includes(`"id":${JSON.stringify(id)}`))}`);
    });
  }

  it('a 2026-07-28 session goes to the SDK server from its first line, and works', async () => {
    const w = wire(services);
    const client = new ClientV2({ name: 'lean-test', version: '2.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
    await client.connect(w.transport as never);
    await session(client as never, false);
    await client.close();
    await w.close();
    assert.match(w.handedOverAt() ?? '', /"method":"server\/discover"/);
    assert.equal(w.sent.length, w.received.length, 'every request answered once');
  });

  it('an unknown tool, another method: the SDK server takes over at that line and answers it and all after it', async () => {
    for (const odd of [
      { method: 'tools/call', params: { name: 'no-such-tool', arguments: {} } },
      { method: 'resources/list', params: {} },
      { method: 'tools/call', params: { name: 'be-read', arguments: { file: 'a.ts' }, _meta: { progressToken: 1 } } },
    ]) {
      const w = wire(services);
      const client = new ClientV1({ name: 'lean-test', version: '1.0.0' });
      await client.connect(w.transport as never);
      await client.listTools();
      const answer = await client.request({ ...odd } as never, (await import('zod')).z.any() as never).catch((e: Error) => e);
      await session(client as never);
      await client.close();
      await w.close();
      assert.equal(JSON.parse(w.handedOverAt()!).method, odd.method, w.handedOverAt());
      const replies = byId(w.received);
      const reference = await sdkReplies(services, w.sent);
      for (const [id, line] of reference) assert.equal(replies.get(id), line);
      assert.ok(answer !== undefined);
    }
  });

  it('a call cancelled while the services compose never runs (an edit never lands), and gets no answer', async () => {
    await ws.write('c.ts', 'const c = 1;\n');
    let composed!: () => void;
    const w = wire(services, new Promise<void>((resolve) => (composed = resolve)));
    const client = new ClientV1({ name: 'lean-test', version: '1.0.0' });
    await client.connect(w.transport as never);
    const abort = new AbortController();
    const edit = client.callTool({ name: 'be-replace', arguments: { file: 'c.ts:1', content: 'const c = 2;' } }, undefined, { signal: abort.signal });
    const read = client.callTool({ name: 'be-read', arguments: { file: 'c.ts' } });
    abort.abort();
    await assert.rejects(edit);
    composed();
    await read;
    // an edit of the same file after them: it takes the file's lock after the cancelled one, had that one run
    await client.callTool({ name: 'be-insert', arguments: { file: 'c.ts:1', content: 'const d = 0;' } });
    await client.close();
    await w.close();
    assert.equal(w.handedOverAt(), undefined);
    assert.equal((await ws.read('c.ts')).toString('utf8'), 'const c = 1;\nconst d = 0;\n');
    const editId = (JSON.parse(w.sent.find((l) => l.includes('be-replace'))!) as { id: number }).id;
    assert.ok(!w.received.some((l) => (JSON.parse(l) as { id?: unknown }).id === editId), 'no answer to the cancelled call');
  });

  it('handed over at an idle moment, the session goes on through the SDK server with the same replies', async () => {
    const w = wire(services);
    const client = new ClientV1({ name: 'lean-test', version: '1.0.0' });
    await client.connect(w.transport as never);
    await client.listTools();
    const listed = w.sent.at(-1)!;
    w.lean.handOver();
    await session(client as never);
    await client.close();
    await w.close();
    assert.match(listed, /"method":"tools\/list"/);
    assert.equal(w.handedOverAt(), listed, 'handed over after the tools/list the lean layer answered');
    assert.ok(w.received.some((l) => l.includes(`"id":${JSON.parse(listed).id}}`)));
    const replies = byId(w.received);
    const reference = await sdkReplies(services, w.sent);
    for (const [id, line] of reference) assert.equal(replies.get(id), line);
  });
});
