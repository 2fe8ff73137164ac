import { strict as assert } from 'node:assert';
import { promises as fs, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { ContextService } from '../../../src/core/context/node/service';
import { OutlinePool } from '../../../src/core/context/node/outlinePool';
import { getTokenizer } from '../../../src/core/memory/node/tokenizer';
import { createServices, type Services } from '../../../src/mcp/services';
import { createServer } from '../../../src/mcp/server';
import { registerContextResources } from '../../../src/mcp/resources/index';
import { tmpWorkspace, type Workspace } from '../../mcp/helpers';
import { MemoryRegistry } from '../../../src/core/memory/node/registry';
import { packagedGrammars, TreeSitterParsers } from '../../../src/core/context/node/treeSitter';
import { memoryDeps } from '../memory/memoryDeps';

const tk = getTokenizer();
const FIXTURES = join(__dirname, '../../fixtures/context');

async function rejectsWith(p: Promise<unknown>, code: string, re?: RegExp): Promise<void> {
  await assert.rejects(p, (e: Error & { code?: string }) => {
    assert.equal(e.code, code, e.message);
    if (re) assert.match(e.message, re);
    return true;
  });
}

describe('context service: modes, bad input, MCP tool and resources', () => {
  let ws: Workspace;
  let services: Services;
  let ctx: ContextService;

  before(async () => {
    ws = await tmpWorkspace();
    await ws.write('src/small.ts', readFileSync(join(FIXTURES, 'sample.ts'), 'utf8'));
    const big = Array.from({ length: 150 }, (_, i) => `export function handler${i}(input: number): number {\n  const doubled = input * 2;\n  return doubled + ${i};\n}\n`).join('\n');
    await ws.write('src/big.ts', big);
    await ws.write('src/broken.py', 'def ok(a):\n    return a\n\ndef broken(:\n    pass\n\nclass Fine:\n    def m(self):\n        return 1\n');
    await ws.write('assets/image.bin', Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0, 0, 0, 0, 1, 2, 3]));
    services = await createServices({ roots: [ws.root], chipDir: ws.chipDir, historyDir: ws.historyDir });
    ctx = new ContextService({ sandbox: services.sandbox, files: services.files, viewed: services.edits.viewed, tokenizer: tk, parsers: new TreeSitterParsers(packagedGrammars) });
  });
  after(() => ws.dispose());

  it('auto reads a small file in full (upstream fields kept) and a large one as structure', async () => {
    const small = await ctx.read({ file: 'src/small.ts' });
    assert.equal(small.mode, 'full');
    assert.equal(small.data_type, 'file_content');
    assert.equal(small.start, 1);
    assert.equal((small as { end: number }).end, 48);
    assert.match(String((small as unknown as Record<string, unknown>).viewed_code_id), /\S/);
    assert.equal((small as unknown as Record<string, unknown>).eol, 'lf');
    assert.match(small.hint, /^complete: lines 1-48 of 48$/);
    const upstream = (await services.edits.read({ file: 'src/small.ts' })) as { content: string };
    assert.equal((small as { content: string }).content, upstream.content, 'same numbered content as upstream be-read');

    const big = await ctx.read({ file: 'src/big.ts' });
    assert.equal(big.mode, 'structure');
    assert.equal(big.data_type, 'context_summary');
    assert.match((big as { outline: string }).outline, /^1-4 handler0\(input: number\): number$/m);
    assert.match(big.hint, /be-read \{"file":"src\/big\.ts:\d+-\d+"\} reads handler/);
    assert.ok(tk.count(JSON.stringify(big)) < tk.count(readFileSync(ws.file('src/big.ts'), 'utf8')));
  });

  it('a range always reads full; mode overview on a file maps its folder; a folder maps itself only with mode overview', async () => {
    const r = await ctx.read({ file: 'src/big.ts:6-9', mode: 'structure' });
    assert.equal(r.mode, 'full');
    assert.equal((r as { content: string }).content.split('\n')[0], '6\texport function handler1(input: number): number {');
    const ov = await ctx.read({ file: 'src/big.ts', mode: 'overview' });
    assert.equal(ov.mode, 'overview');
    assert.equal((ov as { path: string }).path, 'src');
    const dir = await ctx.read({ file: 'src', mode: 'overview' });
    assert.equal(dir.mode, 'overview');
    // Without an explicit overview a folder is refused as upstream be-read does, naming the call that maps it.
    await rejectsWith(ctx.read({ file: 'src', mode: 'full' }), 'invalid_argument', /is a directory.*be-overview \{"path":"src"\}/);
    await rejectsWith(ctx.read({ file: 'src' }), 'invalid_argument', /is a directory/);
  });

  it('bad input: a binary file is refused with binary_file', async () => {
    await rejectsWith(ctx.read({ file: 'assets/image.bin' }), 'binary_file');
    await rejectsWith(ctx.structure('assets/image.bin'), 'binary_file');
  });

  it('bad input: a path outside the roots is refused by the sandbox', async () => {
    await rejectsWith(ctx.read({ file: '/etc/passwd' }), 'outside_roots');
    await rejectsWith(ctx.read({ file: '../../outside.ts' }), 'outside_roots');
    await rejectsWith(ctx.overview({ path: '/tmp' }), 'outside_roots');
  });

  it('bad input: a syntax error still gives the structure of what parsed, with a note', async () => {
    const r = await ctx.structure('src/broken.py');
    assert.match(r.outline, /^1-2 ok\(a\)$/m);
    assert.match(r.outline, /^7-9 class Fine$/m);
    assert.ok(r.notes?.some((n) => /syntax errors near L\d/.test(n)), JSON.stringify(r.notes));
  });

  it('bad input: a 50 MB file gives a bounded first page and a structure note, never a reply over the limit', async function () {
    this.timeout(120_000);
    const line = 'const value = computeSomething(alpha, beta, gamma); // filler\n';
    const big = Buffer.from(line.repeat(Math.ceil((50 * 1024 * 1024) / line.length)));
    await ws.write('data/huge.ts', big);
    const page = await ctx.read({ file: 'data/huge.ts', mode: 'full' });
    assert.equal(page.mode, 'full');
    assert.ok(tk.count((page as { content: string }).content) <= 8000);
    assert.match(page.hint, /continue with be-read \{"file":"data\/huge\.ts:\d+-\d+","mode":"full"\}/);
    const auto = await ctx.read({ file: 'data/huge.ts' });
    assert.equal(auto.mode, 'structure');
    assert.ok((auto as { notes?: string[] }).notes?.some((n) => /too large to outline/.test(n)));
    assert.ok(tk.count(JSON.stringify(auto)) < 1000);
    await fs.rm(ws.file('data'), { recursive: true });
  });

  it('MCP: be-read modes, be-overview and the resources', async () => {
    const memory = new MemoryRegistry({ deps: memoryDeps });
    const server = createServer({ ...services.deps, context: ctx, memory }, { sessionId: 'ctx', reply: 'json' });
    registerContextResources(server, { context: ctx });
    const [a, b] = InMemoryTransport.createLinkedPair();
    await server.connect(a);
    const client = new Client({ name: 'test', version: '1.0.0' });
    await client.connect(b);
    try {
      const tools = await client.listTools();
      const read = tools.tools.find((t) => t.name === 'be-read')!;
      assert.ok('mode' in (read.inputSchema.properties ?? {}));
      assert.ok(tools.tools.some((t) => t.name === 'be-overview'));

      const structure = (await client.callTool({ name: 'be-read', arguments: { file: 'src/small.ts', mode: 'structure' } })) as CallToolResult;
      assert.ok(!structure.isError);
      const sc = structure.structuredContent as Record<string, unknown>;
      assert.equal(sc.mode, 'structure');
      assert.equal(sc.data_type, 'context_summary');
      assert.match(String(sc.outline), /^21-32 class PriceCalculator implements Priced\b/m);

      const ov = (await client.callTool({ name: 'be-overview', arguments: { budget: 300 } })) as CallToolResult;
      const oc = ov.structuredContent as Record<string, unknown>;
      assert.equal(oc.mode, 'overview');
      assert.ok(Number(oc.tokens) <= 300);

      // Seed section 7: the overview pinned into the session's chat memory as its file index (replaced, not duplicated).
      for (let i = 0; i < 2; i++) {
        const pinned = (await client.callTool({ name: 'be-overview', arguments: { path: 'src', pin: true } })) as CallToolResult;
        assert.ok(!pinned.isError, JSON.stringify(pinned.content));
        assert.equal((pinned.structuredContent as Record<string, unknown>).pinned_id, 'file-index:src');
      }
      const mem = memory.get('ctx');
      const index = mem.visibleMessages().filter((m) => m.group === 'file-index');
      assert.equal(index.length, 1);
      assert.ok(index[0]!.pinned);
      assert.match(index[0]!.content, /^\[file index: src\]\noverview of src/);

      const target = (await client.callTool({ name: 'be-read', arguments: { file: 'src/small.ts', target: { kind: 'line', value: '5' } } })) as CallToolResult;
      assert.equal((target.structuredContent as Record<string, unknown>).mode, 'full');

      const list = await client.listResources();
      assert.deepEqual(list.resources.map((r) => r.uri), ['betools://overview']);
      const templates = await client.listResourceTemplates();
      assert.ok(templates.resourceTemplates.some((t) => t.uriTemplate === 'betools://structure/{path}'));
      const res = await client.readResource({ uri: 'betools://structure/src%2Fsmall.ts' });
      const first = res.contents[0] as { text: string; _meta?: Record<string, unknown> };
      assert.match(first.text, /^src\/small\.ts · 48 lines · \d+ tokens\nimports: /);
      assert.equal(first._meta?.data_type, 'context_summary');
      const ovr = await client.readResource({ uri: 'betools://overview' });
      assert.match((ovr.contents[0] as { text: string }).text, /^overview of \. · /);
      await assert.rejects(client.readResource({ uri: 'betools://structure/%2Fetc%2Fpasswd' }), /outside the allowed roots/);
    } finally {
      await client.close();
      await server.close();
    }
  });

  it('the parse workers start once an overview has answered (structure reads come next), not before', async () => {
    const pool = new OutlinePool({ grammarsDir: join(__dirname, '../../..'), size: 1, parallel: 2 });
    try {
      const c = new ContextService({ sandbox: services.sandbox, files: services.files, viewed: services.edits.viewed, tokenizer: tk, parsers: new TreeSitterParsers(packagedGrammars), outlines: pool });
      await new Promise((r) => setTimeout(r, 100));
      assert.equal(pool.workers, 0, 'no worker before any call');
      await c.overview();
      await new Promise((r) => setTimeout(r, 100));
      assert.equal(pool.workers, 1, 'the overview warmed the pool: the one worker a file is parsed on, not the second lane of a large file');
    } finally {
      await pool.close();
    }
  });

  it("a large file's structure read starts the parse workers before it decodes and cuts the text; small files and ranges do not", async () => {
    const calls: string[] = [];
    const outlines = {
      outline: (text: string) => (calls.push(`outline ${text.length >= 1024 * 1024 ? 'large' : 'small'}`), Promise.resolve(undefined)),
      warm: () => void calls.push('warm'),
    };
    const c = new ContextService({ sandbox: services.sandbox, files: services.files, viewed: services.edits.viewed, tokenizer: tk, parsers: new TreeSitterParsers(packagedGrammars), outlines });
    await ws.write('src/large.c', 'int f(void) { return 0; }\n'.repeat(45_000)); // ~1.2 MB
    await c.read({ file: 'src/small.ts', mode: 'structure' });
    assert.deepEqual(calls, ['outline small'], 'a small file: no warm-up');
    calls.length = 0;
    await c.read({ file: 'src/large.c:1-5' });
    assert.deepEqual(calls, [], 'a range of a large file: no outline, no workers');
    await c.read({ file: 'src/large.c', mode: 'structure' });
    assert.deepEqual(calls, ['warm', 'outline large'], 'the workers start before the outline is asked for');
  });
});
