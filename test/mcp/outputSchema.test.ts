/**
 * Small-data results (be-func-range, be-tag-range, be-balance) keep structuredContent and list an outputSchema that
 * it satisfies; content-heavy results (pages, outlines, maps, diffs) have neither. The model view of a small result
 * is its compact JSON, a few tokens (o200k_base), and does not grow with the schema.
 */
import assert from 'node:assert/strict';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { getEncoding } from 'js-tiktoken';
import { z } from 'zod';
import { toolTable } from '../../src/mcp/tools/index';
import { buildCli, stdioClient, tmpWorkspace, type Connected, type Workspace } from './helpers';

const enc = getEncoding('o200k_base');
const SMALL_DATA = ['be-func-range', 'be-tag-range', 'be-balance'];

describe('mcp outputSchema: structuredContent only on small data', function () {
  this.timeout(60000);
  let ws: Workspace;
  let c: Connected;
  let json: Connected;
  let tools: Tool[];

  before(async () => {
    await buildCli();
    ws = await tmpWorkspace();
    await ws.write('a.ts', 'export function f(x: number): number {\n  const y = x * 2;\n  return y;\n}\n');
    await ws.write('a.html', '<div>\n  <p>hi</p>\n</div>\n');
    c = await stdioClient(ws, ['--reply', 'text']);
    json = await stdioClient(ws); // upstream's JSON replies: the same small results must fit the same schema
    ({ tools } = await c.client.listTools());
  });
  after(async () => {
    await c?.close();
    await json?.close();
    await ws?.dispose();
  });

  it('lists an outputSchema on the small-data tools only', () => {
    for (const t of tools) assert.equal(t.outputSchema !== undefined, SMALL_DATA.includes(t.name), `${t.name}: outputSchema ${JSON.stringify(t.outputSchema)}`);
  });

  it('no schema holds an empty-object keyword schema (`additionalProperties: {}`), which the Inspector --strict flags', () => {
    const empties = (node: unknown, at: string): string[] => {
      if (node === null || typeof node !== 'object') return [];
      return Object.entries(node as Record<string, unknown>).flatMap(([k, v]) =>
        k === 'additionalProperties' && typeof v === 'object' && v !== null && Object.keys(v).length === 0 ? [`${at}.${k}`] : empties(v, `${at}.${k}`));
    };
    const found = tools.flatMap((t) => [...empties(t.outputSchema, `${t.name}.outputSchema`), ...empties(t.inputSchema, `${t.name}.inputSchema`)]);
    assert.deepEqual(found, []);
    assert.ok(tools.some((t) => t.outputSchema), 'output schemas were listed');
  });

  for (const [tool, args] of [
    ['be-func-range', { file: 'a.ts', line: 2 }],
    ['be-tag-range', { file: 'a.html', line: 2 }],
    ['be-balance', { file: 'a.ts' }],
  ] as const) {
    it(`${tool}: structuredContent that satisfies its schema, a model view of a few tokens, the same JSON as the text`, async () => {
      // The SDK client checks structuredContent against the listed outputSchema too (it throws when it does not fit).
      const r = (await c.client.callTool({ name: tool, arguments: args })) as CallToolResult;
      assert.equal(r.isError, undefined, JSON.stringify(r.content));
      assert.ok(r.structuredContent, 'has structuredContent');
      const shape = toolTable.find((t) => t.name === tool)!.outputSchema!;
      z.looseObject(shape).parse(r.structuredContent);
      const view = JSON.stringify(r.structuredContent);
      assert.equal((r.content?.[0] as { text: string }).text, view, 'a client that shows both shows the same few tokens');
      assert.ok(enc.encode(view).length <= 24, `${tool} model view is ${enc.encode(view).length} tokens: ${view}`);
      await json.client.listTools();
      const j = (await json.client.callTool({ name: tool, arguments: args })) as CallToolResult;
      z.looseObject(shape).parse(j.structuredContent);
    });
  }

  it("be-balance: the default reply says `balanced`, never `\"mode\":\"unbalanced\"` of a balanced file; --reply json keeps upstream's fields", async () => {
    await ws.write('bad.ts', 'f(\n');
    const structured = async (conn: Connected, args: Record<string, unknown>) =>
      ((await conn.client.callTool({ name: 'be-balance', arguments: args })) as CallToolResult).structuredContent;
    assert.deepEqual(await structured(c, { file: 'a.ts' }), { balanced: true });
    assert.deepEqual(await structured(c, { file: 'bad.ts' }), { balanced: false, unbalanced: [{ symbol: '(', line: 1, col: 2, expected: ')' }] });
    const verbose = (await structured(c, { file: 'a.ts', verbose: true }))!;
    assert.equal(verbose.balanced, true);
    assert.equal(verbose.mode, undefined);
    assert.deepEqual(await structured(json, { file: 'a.ts' }), { mode: 'unbalanced', status: 'all balanced' });
    assert.deepEqual(await structured(json, { file: 'bad.ts' }), { mode: 'unbalanced', unbalanced: [{ symbol: '(', line: 1, col: 2, expected: ')' }], quote_warnings: null });
  });

  it('content-heavy replies (a page, an outline, a map, an edit) carry no structuredContent', async () => {
    for (const [tool, args] of [
      ['be-read', { file: 'a.ts', mode: 'full' }],
      ['be-read', { file: 'a.ts', mode: 'structure' }],
      ['be-overview', {}],
      ['be-replace', { file: 'a.ts:2', content: '  const y = x * 3;' }],
    ] as const) {
      const r = (await c.client.callTool({ name: tool, arguments: args })) as CallToolResult;
      assert.equal(r.isError, undefined, `${tool}: ${JSON.stringify(r.content)}`);
      assert.equal(r.structuredContent, undefined, `${tool} ${JSON.stringify(args)}`);
    }
  });
});
