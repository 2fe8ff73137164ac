/**
 * be-read mode structure under a host's limit, through the real MCP SDK client: a big outline pages by whole
 * symbols with the exact `next:` call (a class larger than a page breaks between its methods, its row repeated);
 * a query (or the session's last overview query) narrows the outline to the matching symbols and their
 * neighbours within a small budget, says what it left out and names the call for all of it.
 */
import assert from 'node:assert/strict';
import { replyLimitFor } from '../../src/mcp/hostProfiles';
import { getTokenizer } from '../../src/core/memory/node/tokenizer';
import { memoryClient, textOf, tmpWorkspace, type Connected, type Workspace } from './helpers';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

const tokens = (t: string) => getTokenizer('o200k_base').count(t);

/** A file of `classes` classes of `methods` methods each, then a few functions. */
function source(classes: number, methods: number): string {
  const out: string[] = [];
  for (let c = 0; c < classes; c++) {
    out.push(`export class Store${c} {`);
    for (let m = 0; m < methods; m++) out.push(`  /** Loads record ${m} of the store. */`, `  load${c}x${m}(key: string, limit: number): Promise<number> {`, `    return Promise.resolve(${m});`, '  }');
    out.push('}');
  }
  out.push('export function parseCookieHeader(header: string): Map<string, string> {', '  return new Map();', '}');
  out.push('export function serializeCookie(name: string, value: string): string {', '  return name + value;', '}');
  out.push('export function mergePaths(a: string, b: string): string {', '  return a + b;', '}');
  return out.join('\n') + '\n';
}

describe('be-read structure: pages of whole symbols, and a query', function () {
  this.timeout(60_000);
  let ws: Workspace;
  let c: Connected;
  const call = async (args: Record<string, unknown>, tool = 'be-read'): Promise<string> => {
    const r = (await c.client.callTool({ name: tool, arguments: args })) as CallToolResult;
    const t = textOf(r);
    assert.ok(!r.isError, t);
    assert.ok(t.length <= 8192, `${t.length} characters > Copilot's 8,192`);
    return t;
  };
  before(async () => {
    ws = await tmpWorkspace();
    await ws.write('src/store.ts', source(3, 120));
    await ws.write('src/small.ts', source(1, 3));
    c = await memoryClient(ws, { reply: 'text', replyLimit: () => replyLimitFor('Visual Studio Code') }, { context: { watch: false } });
  });
  after(async () => {
    await c.close();
    await ws.dispose();
  });

  it('a big outline pages by whole symbols: a class larger than a page breaks between methods, its row repeated', async () => {
    const seen: string[] = [];
    let args: Record<string, unknown> | undefined = { file: 'src/store.ts', mode: 'structure' };
    let pages = 0;
    while (args) {
      const t = await call(args);
      pages++;
      const [head, ...rows] = t.split('\n');
      const from = (args.from as number | undefined) ?? 1;
      const numbered = rows.filter((l) => /^\s*\d/.test(l));
      if (from > 1) {
        assert.match(head!, new RegExp(`\\(structure from line ${from}\\)`));
        assert.match(numbered[0]!, /^1-\d+ class Store0|^\d+-\d+ class Store\d/, 'the class row comes first as context');
      }
      for (const l of numbered) if (Number(/^\s*(\d+)/.exec(l)![1]) >= from) seen.push(l.trim());
      const next = /next: be-read (\{.*\})$/.exec(head!);
      args = next ? JSON.parse(next[1]!) : undefined;
      if (args) assert.deepEqual(Object.keys(args), ['file', 'mode', 'from']);
    }
    assert.ok(pages >= 3, `${pages} pages`);
    // every class, method and function once, in file order
    assert.equal(seen.length, 3 + 3 * 120 + 3);
    const starts = seen.map((l) => Number(/^(\d+)/.exec(l)![1]));
    assert.deepEqual(starts, [...starts].sort((a, b) => a - b));
    assert.equal(new Set(starts).size, starts.length);
  });

  it('--reply json: the outline page carries next as a field and fits the limit as the model sees it', async () => {
    const j = await memoryClient(ws, { reply: 'json', replyLimit: () => replyLimitFor('Visual Studio Code') }, { context: { watch: false } });
    try {
      let args: Record<string, unknown> | undefined = { file: 'src/store.ts', mode: 'structure' };
      let pages = 0;
      for (; args; pages++) {
        const r = (await j.client.callTool({ name: 'be-read', arguments: args })) as CallToolResult;
        const sc = r.structuredContent as Record<string, unknown>;
        assert.ok(JSON.stringify(sc).length <= 8192, `${JSON.stringify(sc).length} characters`);
        assert.equal(sc.mode, 'structure');
        args = sc.next as Record<string, unknown> | undefined;
      }
      assert.ok(pages >= 3, `${pages} pages`);
    } finally {
      await j.close();
    }
  });

  it('a query: the matching symbols and their neighbours within a small budget, what was left out and the call for it', async () => {
    const t = await call({ file: 'src/store.ts', mode: 'structure', query: 'parse cookie header' });
    assert.ok(tokens(t) <= 600, `${tokens(t)} tokens`);
    assert.match(t, /! \d+ of 366 symbols: the \d+ matching "parse cookie header" and their neighbours; all 366: be-read \{"file":"src\/store.ts","mode":"structure","from":1\}/);
    const rows = t.split('\n').filter((l) => /^\s*\d/.test(l));
    assert.match(rows.join('\n'), /parseCookieHeader\(header: string\)/);
    assert.match(rows.join('\n'), /serializeCookie/, 'a neighbour (and a match on "cookie")');
    assert.ok(rows.length < 20, rows.join('\n'));
    assert.match(t, /be-read \{"file":"src\/store.ts:\d+-\d+"\} reads parseCookieHeader$/);
  });

  it("the overview's query is carried over to the structure reads of the session; query \"\" or from gives the plain outline", async () => {
    await call({ query: 'merge paths' }, 'be-overview');
    const carried = await call({ file: 'src/store.ts', mode: 'structure' });
    assert.match(carried, /matching "merge paths" \(the overview's query\)/);
    assert.match(carried, /mergePaths/);
    const plain = await call({ file: 'src/store.ts', mode: 'structure', query: '' });
    assert.doesNotMatch(plain, /matching/);
    assert.match(plain, /next: be-read/);
    const all = await call({ file: 'src/store.ts', mode: 'structure', from: 1 });
    assert.equal(all, plain);
    // a small file whose symbols do not match: the whole outline, and the reply says so
    await call({ query: 'zebra' }, 'be-overview');
    const none = await call({ file: 'src/small.ts', mode: 'structure' });
    assert.match(none, /no symbol matches "zebra" \(the overview's query\): the outline in file order/);
    // an overview without a query ends the carry-over
    await call({}, 'be-overview');
    assert.doesNotMatch(await call({ file: 'src/small.ts', mode: 'structure' }), /matches|matching/);
  });
});
