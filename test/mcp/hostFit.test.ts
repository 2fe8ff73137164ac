/**
 * Every reply of every tool fits the limit of the host that asked, counted as that host counts it (hostProfiles.ts),
 * through the real MCP SDK client over the in-memory transport, for each profile's client name; and nothing is
 * lost: the `next:` pages of a read cover the file, a paged reply's `reply_page` calls give back the whole text.
 */
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import fc from 'fast-check';
import { createServer } from '../../src/mcp/server';
import { createServices, type Services } from '../../src/mcp/services';
import { replyLimitFor, type ReplyLimit } from '../../src/mcp/hostProfiles';
import { measureFor, modelView } from '../../src/mcp/replyFit';
import { MemoryRegistry } from '../../src/core/memory/node/registry';
import { getTokenizer } from '../../src/core/memory/node/tokenizer';
import { tmpWorkspace, type Workspace } from './helpers';

const CLIENTS = ['Visual Studio Code', 'claude-code', 'codex-mcp-client', 'github-copilot-cli', 'some-new-agent'];

interface Session {
  client: Client;
  services: Services;
  limit: ReplyLimit;
  call(name: string, args: Record<string, unknown>): Promise<CallToolResult>;
  close(): Promise<void>;
}

async function open(ws: Workspace, clientName: string, reply: 'text' | 'json' = 'text', override?: number): Promise<Session> {
  const memory = await MemoryRegistry.open({ dir: `${ws.cache}/memory`, deps: { tokenizerFor: getTokenizer } });
  const services = await createServices({ roots: [ws.root], chipDir: ws.chipDir, historyDir: ws.historyDir, memory, context: { watch: false } });
  const replyLimit = (c: string | undefined) => replyLimitFor(c, { override });
  const server = createServer(services.deps, { sessionId: `s-${clientName}`, reply, replyLimit });
  const [a, b] = InMemoryTransport.createLinkedPair();
  await server.connect(a);
  const client = new Client({ name: clientName, version: '1.0.0' });
  await client.connect(b);
  const limit = replyLimit(clientName)!;
  const measure = measureFor(limit, services.deps.context?.tokenizer);
  return {
    client,
    services,
    limit,
    async call(name, args) {
      const r = (await client.callTool({ name, arguments: args })) as CallToolResult;
      const seen = modelView(r);
      assert.ok(measure(seen) <= limit.max, `${clientName}: ${name} ${JSON.stringify(args).slice(0, 120)} is ${measure(seen)} ${limit.unit} > ${limit.max}:\n${seen.slice(0, 300)}`);
      return r;
    },
    async close() {
      await client.close();
      await server.close();
      await services.close();
    },
  };
}

const text = (r: CallToolResult) => r.content.map((c) => (c.type === 'text' ? c.text : '')).join('');

/** Follows a paged reply's `reply_page` calls; returns the whole text. */
async function wholeReply(s: Session, tool: string, first: CallToolResult): Promise<string> {
  let t = text(first);
  if (!t.startsWith('(reply page ')) return t;
  const parts: string[] = [];
  for (;;) {
    const nl = t.indexOf('\n');
    parts.push(t.slice(nl + 1));
    const next = /next: \S+ (\{"reply_page":"[^"]+"\})/.exec(t.slice(0, nl));
    if (!next) break;
    t = text(await s.call(tool, JSON.parse(next[1]!)));
  }
  // a page that ends inside a line goes on in the next one: pages were cut at newlines otherwise
  return parts.join('\n');
}

/** Follows a read's `next:` calls; returns the line ranges read, in order. */
async function readAll(s: Session, file: string): Promise<{ ranges: [number, number][]; total: number }> {
  const ranges: [number, number][] = [];
  let args: Record<string, unknown> = { file, mode: 'full' };
  let total = 0;
  for (let i = 0; i < 400; i++) {
    const r = await s.call('be-read', args);
    assert.ok(!r.isError, text(r));
    const head = text(r).split('\n', 1)[0]!;
    assert.ok(!head.startsWith('(reply page '), `a read pages by lines with its own next call, not by the last-resort guard: ${head}`);
    const m = /^(\d+)-(\d+)\/(\d+)/.exec(head);
    if (!m) return { ranges, total: total || -1 }; // the whole file in one page
    ranges.push([Number(m[1]), Number(m[2])]);
    total = Number(m[3]);
    const next = /next: \S+ (\{.*\})$/.exec(head);
    if (!next) return { ranges, total };
    args = JSON.parse(next[1]!);
  }
  throw new Error('no end of pages');
}

/**
 * Follows an outline's `next:` calls: each page starts at or after the line it was asked for, repeats only the
 * containers of its first row, and the next page starts further on. Returns the rows shown as new, in order.
 */
async function outlineAll(s: Session, first: CallToolResult, file: string): Promise<string[]> {
  const rows: string[] = [];
  let r = first;
  for (let from = 1, i = 0; ; i++) {
    assert.ok(i < 2000, 'no end of outline pages');
    const t = text(r);
    assert.ok(!t.startsWith('(reply page '), `an outline is paged by symbols, not by the guard:\n${t.slice(0, 200)}`);
    const [head, ...body] = t.split('\n');
    const starts = body.map((l) => /^(\s*)(\d+)(?:-\d+)? /.exec(l)).filter((m): m is RegExpExecArray => m !== null);
    // rows before the first one at `from` are its containers, repeated for context
    rows.push(...starts.filter((m) => Number(m[2]) >= from).map((m) => m[0]));
    const next = /next: \S+ (\{.*\})$/.exec(head!);
    if (!next) return rows;
    const args = JSON.parse(next[1]!) as { file: string; mode: string; from: number };
    assert.equal(args.file, file);
    assert.ok(args.from > from, `${args.from} > ${from}`);
    from = args.from;
    r = await s.call('be-read', args);
  }
}

const line = fc.oneof(
  fc.string({ maxLength: 120 }),
  fc.string({ unit: fc.constantFrom('数', '据', '表', '\t', ' ', 'x', '😀'), maxLength: 300 }),
  fc.string({ unit: 'grapheme-ascii', minLength: 400, maxLength: 3000 }),
);
const tenK = (n: number) => Array.from({ length: n }, (_, i) => `  const v${i} = compute(${i}, "${'x'.repeat(i % 40)}");`).join('\n');
const files = fc.oneof(
  { arbitrary: fc.array(line, { minLength: 1, maxLength: 400 }).map((ls) => ls.join('\n')), weight: 3 },
  { arbitrary: fc.array(line, { minLength: 1, maxLength: 300 }).map((ls) => ls.join('\r\n')), weight: 3 },
  { arbitrary: fc.string({ unit: 'grapheme-ascii', minLength: 20_000, maxLength: 60_000 }).map((s) => s.replace(/\n/g, ';')), weight: 2 }, // one minified line
  { arbitrary: fc.integer({ min: 10_000, max: 10_400 }).map(tenK), weight: 1 },
);
/** One file of each class runs first, whatever the random runs draw (fast-check `examples`). */
const EXAMPLES: [string][] = [
  // indented comment lines: few tokens for many characters (a page that fit in tokens was over in characters)
  [Array.from({ length: 130 }, (_, i) => (i % 9 ? `            # the documentation explains configuration behaviour thoroughly` : `    def method_${i}(a, b)`)).join('\n')],
  [Array.from({ length: 300 }, (_, i) => `\t${'数据表'.repeat(i % 9)}\tv${i}`).join('\n')],
  [Array.from({ length: 200 }, (_, i) => `row ${i};`.repeat(i % 30)).join('\r\n')],
  ['x=1;'.repeat(12_000)],
  [tenK(10_000)],
];

describe('replies fit the host that asked (hostProfiles)', function () {
  this.timeout(400_000);
  let ws: Workspace;
  before(async () => (ws = await tmpWorkspace()));
  after(() => ws.dispose());

  for (const clientName of CLIENTS) {
    it(`${clientName}: reads, outlines, overviews, edits, chips, trx, memory and errors fit, and pages cover everything`, async () => {
      const s = await open(ws, clientName);
      try {
        let n = 0;
        await fc.assert(
          fc.asyncProperty(files, async (content) => {
            const rel = `p/${clientName.replace(/\W/g, '')}-${n++}.ts`;
            await ws.write(rel, content);
            const lines = content.split(/\r?\n/).length;
            const { ranges, total } = await readAll(s, rel);
            if (total !== -1) {
              assert.equal(total, lines);
              assert.equal(ranges[0]![0], 1);
              assert.equal(ranges.at(-1)![1], lines);
              for (let i = 1; i < ranges.length; i++) {
                const gap = ranges[i]![0] - ranges[i - 1]![1];
                assert.ok(gap === 0 || gap === 1, `pages ${JSON.stringify(ranges.slice(i - 1, i + 1))} leave lines out`);
              }
            }
            await s.call('be-read', { file: `${rel}:2-${Math.max(2, lines - 1)}` });
            const outline = await s.call('be-read', { file: rel, mode: 'structure' });
            await outlineAll(s, outline, rel);
            // an outline narrowed to a query, its "all" call, and the small-data tools on the same file
            const narrowed = text(await s.call('be-read', { file: rel, mode: 'structure', query: 'compute const 数据 row' }));
            const all = /; all \d+: \S+ (\{.*\})$/m.exec(narrowed);
            if (all) assert.match(text(await s.call('be-read', JSON.parse(all[1]!))), /^\d+ lines, \d+ tokens \(structure\)/); // the plain outline walked above
            await s.call('be-func-range', { file: rel, line: Math.ceil(lines / 2) });
            await s.call('be-tag-range', { file: rel, line: 1 });
            await s.call('be-balance', { file: rel, verbose: true });
            // a be-apply preview of a big change, and an insert and a delete
            await s.call('be-apply', { edits: [{ file: `${rel}:1-${lines}`, content: content.replace(/\r\n/g, '\n').toUpperCase() }], preview: true });
            assert.ok(!(await s.call('be-insert', { file: `${rel}:0`, content: 'top\n' })).isError);
            assert.ok(!(await s.call('be-delete', { file: `${rel}:1` })).isError);
            await s.call('be-read', { file: rel });
            await s.call('be-overview', {});
            await s.call('be-read', { file: 'p', mode: 'overview' });
            // a big edit: its diff is paged, the edit lands once
            const replaced = await s.call('be-replace', { file: `${rel}:1-${lines}`, content: content.replace(/\r\n/g, '\n') + '\nend' });
            assert.ok(!replaced.isError, text(replaced));
            await s.call('be-trx', { action: 'status' });
            await s.call('be-insert-chip', {});
            await s.call('be-chip', { action: 'list' });
            await s.call('be-memory', { action: 'window' });
            const err = await s.call('be-read', { file: `${rel}:${lines + 5}-${lines + 9}` });
            assert.equal(err.isError, true);
          }),
          { numRuns: 7, seed: 19, examples: EXAMPLES }, // the 5 examples and 2 random files
        );
      } finally {
        await s.close();
      }
    });
  }

  it('a paged reply gives back its whole text through reply_page, and a page not kept is a clear error', async () => {
    const s = await open(ws, 'some-new-agent');
    try {
      const body = Array.from({ length: 3000 }, (_, i) => `row ${i} ${'数'.repeat(i % 7)}`).join('\n');
      await ws.write('big.txt', 'x\n');
      const r = await s.call('be-write', { file: 'big.txt', content: body });
      assert.ok(!r.isError);
      const replaced = await s.call('be-replace', { file: 'big.txt:1-3000', content: body.replace(/row/g, 'line') });
      const whole = await wholeReply(s, 'be-replace', replaced);
      assert.match(text(replaced), /^\(reply page 1\/\d+\) next: be-replace \{"reply_page":"[0-9a-f]{8}\/2"\}/);
      for (let i = 0; i < 3000; i += 250) assert.ok(whole.includes(`+line ${i} `), `row ${i} is in the pages`);
      const gone = await s.call('be-replace', { reply_page: '00000000/2' });
      assert.equal(gone.isError, true);
      assert.match(text(gone), /is not kept.*repeat the call/);
    } finally {
      await s.close();
    }
  });

  it('an edit of lines read over two smaller pages is guarded by the second page\'s id', async () => {
    const s = await open(ws, 'Visual Studio Code');
    try {
      const body = Array.from({ length: 1500 }, (_, i) => `export const v${i} = ${i}; // row ${i}`).join('\n') + '\n';
      await ws.write('guard.ts', body);
      const p1 = text(await s.call('be-read', { file: 'guard.ts', mode: 'full' })).split('\n', 1)[0]!;
      const m1 = /^1-(\d+)\/1500 id=(\S+) next: \S+ (\{.*\})$/.exec(p1);
      assert.ok(m1, p1);
      const end1 = Number(m1[1]);
      assert.ok(end1 < 1500, 'the first page is smaller than the file');
      const p2 = text(await s.call('be-read', JSON.parse(m1[3]!))).split('\n', 1)[0]!;
      const m2 = /^(\d+)-(\d+)\/1500 id=(\S+)/.exec(p2);
      assert.ok(m2 && Number(m2[1]) === end1 + 1, p2);
      const inPage2 = `guard.ts:${end1 + 1}-${end1 + 2}`;
      // a line of the first page changes behind the agent's back: the second page's id (it hashes every byte
      // from line 1) refuses an edit of its lines
      const changed = body.replace('// row 3\n', '// row three\n');
      await ws.write('guard.ts', changed);
      const refused = await s.call('be-replace', { file: inPage2, content: 'x', viewed_code_id: m2[3] });
      assert.equal(refused.isError, true, text(refused));
      assert.equal((await ws.read('guard.ts')).toString(), changed);
      await ws.write('guard.ts', body);
      // an edit across the two pages is refused with the read that covers it, as with the 8,000-token pages
      const span = `guard.ts:${end1 - 1}-${end1 + 2}`;
      const across = await s.call('be-replace', { file: span, content: 'x', viewed_code_id: m2[3] });
      assert.equal(across.isError, true);
      assert.match(text(across), new RegExp(`Read ${span} first`));
      const spanId = /id=(\S+)/.exec(text(await s.call('be-read', { file: span })))![1];
      const done = await s.call('be-replace', { file: span, content: 'x', viewed_code_id: spanId });
      assert.ok(!done.isError, text(done));
    } finally {
      await s.close();
    }
  });

  it('--reply json keeps the upstream fields of a read page and fits the limit', async () => {
    const s = await open(ws, 'Visual Studio Code', 'json');
    try {
      await ws.write('j.ts', Array.from({ length: 3000 }, (_, i) => `\tfoo("${i}")\t// "quoted"`).join('\n'));
      const r = await s.call('be-read', { file: 'j.ts', mode: 'full' });
      const sc = r.structuredContent as Record<string, unknown>;
      assert.equal(sc.mode, 'full');
      assert.equal(sc.start, 1);
      assert.ok(typeof sc.viewed_code_id === 'string' && typeof sc.content === 'string');
      assert.ok((sc.end as number) < 3000 && sc.next, 'a smaller page with the next call');
    } finally {
      await s.close();
    }
  });
});
