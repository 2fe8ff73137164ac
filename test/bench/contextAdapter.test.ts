/**
 * The context benchmark reads our replies through bench/context/adapter.ts. These tests run the real stdio server
 * and check that the adapter still understands what it returns: when the reply rendering changes, they say which
 * parser to update (instead of the benchmark quietly counting "answer not found").
 */
import { strict as assert } from 'node:assert';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { nextPage, outlineRange, overviewFiles, pageLimited, readLines, viewedCodeId } from '../../bench/context/adapter';
import { nameScore, readFull } from '../../bench/context/agents';
import { modelView, startServer, type Server } from '../../bench/context/mcp';
import { queryWords } from '../../bench/context/tasks';
import { buildCli, CLI, tmpWorkspace, type Workspace } from '../mcp/helpers';

const PRICING = `import { Order } from './order';

export class PriceCalculator {
  rate = 1;

  calculate(price: number, quantity: number): number {
    const total = price * quantity;
    return total * this.rate;
  }

  discount(order: Order): number {
    return order.items.length > 10 ? 0.1 : 0;
  }
}

export function total(): number {
  return 0;
}
`;
const ORDER = `import { PriceCalculator } from './pricing';

export interface Order {
  items: string[];
}

export function orderTotal(order: Order): number {
  return new PriceCalculator().calculate(order.items.length, 1);
}
`;

describe('bench/context adapter on real replies of the stdio server', function () {
  this.timeout(60_000);
  let ws: Workspace;
  let server: Server;

  before(async () => {
    await buildCli();
    ws = await tmpWorkspace();
    await ws.write('src/pricing.ts', PRICING);
    await ws.write('src/order.ts', ORDER);
    // ~20k tokens: more than one 8,000-token full page
    await ws.write('src/big.ts', Array.from({ length: 1500 }, (_, i) => `export const value${i} = ${i} * 17 + ${i % 7}; // line ${i}`).join('\n') + '\n');
    server = await startServer({
      name: 'ours',
      command: process.execPath,
      args: [CLI, '--root', ws.root, '--chip-dir', ws.chipDir, '--history-dir', ws.historyDir],
      env: { XDG_CACHE_HOME: ws.cache, LANG: 'C' },
    });
  });
  after(async () => {
    await server?.close();
    await ws?.dispose();
  });

  const call = async (tool: string, args: Record<string, unknown>): Promise<CallToolResult> => {
    const { result } = await server.call(tool, args, 'test');
    assert.equal(result.isError, undefined, JSON.stringify(result.content));
    return result;
  };

  it('lists the overview key files in order, with the queried file first', async () => {
    const files = overviewFiles(await call('be-overview', { query: 'pricing calculator' }));
    assert.ok(files.includes('src/order.ts'), files.join(', '));
    assert.equal(files[0], 'src/pricing.ts');
  });

  it("finds a method's line range in a structure outline, under its class", async () => {
    const outline = await call('be-read', { file: 'src/pricing.ts', mode: 'structure' });
    assert.deepEqual(
      (({ start, end }) => ({ start, end }))(outlineRange(outline, 'PriceCalculator.calculate')!),
      { start: 6, end: 9 },
    );
    assert.equal(outlineRange(outline, 'discount')?.start, 11);
    // a member is looked for under its container only, not in what follows it
    assert.equal(outlineRange(outline, 'PriceCalculator.total'), undefined);
    assert.equal(outlineRange(outline, 'total')?.start, 16);
  });

  it('reads numbered lines and the viewed_code_id of a range read', async () => {
    const r = await call('be-read', { file: 'src/pricing.ts:6-9' });
    const lines = readLines(r);
    assert.deepEqual([...lines.keys()], [6, 7, 8, 9]);
    assert.equal(lines.get(7), '    const total = price * quantity;');
    assert.match(viewedCodeId(r) ?? '', /\S{16,}/);
    assert.equal(nextPage(r), undefined);
  });

  it('follows the next-page hint of a full read to the last line', async () => {
    const first = await call('be-read', { file: 'src/big.ts', mode: 'full' });
    assert.ok(pageLimited(first), 'the first page should stop at the page limit');
    assert.ok(nextPage(first), 'a limited page names the next one');
    const { lines, pages } = await readFull(server, 'src/big.ts', 'test');
    assert.ok(pages.length >= 2);
    assert.equal(lines.size, 1500);
    assert.equal(lines.get(1500), 'export const value1499 = 1499 * 17 + 1; // line 1499');
  });
});

describe('bench/context rules', () => {
  it('model view is the structured content when there is one, else the text', () => {
    assert.equal(modelView({ content: [{ type: 'text', text: 'x\ny' }], structuredContent: { a: 1 } }), '{"a":1}');
    assert.equal(modelView({ content: [{ type: 'text', text: 'x' }, { type: 'text', text: 'y' }] }), 'x\ny');
  });

  it('derives query words by the fixed rule and scores paths by them', () => {
    assert.deepEqual(queryWords('Reject negative timeout values when a Timeout is created'), ['reject', 'negative', 'timeout', 'values', 'created']);
    const q = queryWords('Show durations in the logger middleware');
    assert.equal(nameScore('src/middleware/logger/index.ts', q), 2);
    assert.equal(nameScore('src/utils/url.ts', q), 0);
    assert.equal(nameScore('src/httpException.ts', ['exception']), 1); // camelCase parts are words
  });
});
