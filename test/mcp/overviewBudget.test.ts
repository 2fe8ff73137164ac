/** be-overview with a query and no budget answers within QUERY_OVERVIEW_BUDGET; an explicit budget, or no query, keeps its own. */
import assert from 'node:assert/strict';
import { QUERY_OVERVIEW_BUDGET } from '../../src/mcp/tools/beOverview';
import { createServices } from '../../src/mcp/services';
import { call, stdioClient, tmpWorkspace, type Connected, type Workspace } from './helpers';

describe('mcp be-overview: a smaller default budget when a query is given', function () {
  this.timeout(60000);
  let ws: Workspace;
  let c: Connected;

  before(async () => {
    ws = await tmpWorkspace();
    // ~120 files in 12 folders: a map that fills the 1,024-token default
    for (let d = 0; d < 12; d++) {
      for (let f = 0; f < 10; f++) {
        await ws.write(`src/area${d}/module${f}.ts`, `/** Handles part ${f} of area ${d}. */\nexport function handle${d}x${f}(input: number): number {\n  return input + ${f};\n}\n`);
      }
    }
    await ws.write('src/payment/refund.ts', '/** Refunds a payment. */\nexport function refundPayment(id: string): void {}\n');
    c = await stdioClient(ws); // JSON replies: the budget and token fields
  });
  after(async () => {
    await c?.close();
    await ws?.dispose();
  });

  it('a query alone: the query budget, and the matching file first', async () => {
    const r = await call(c.client, 'be-overview', { query: 'refund payment' });
    // `budget` in the reply is what is left for the map after the hint line
    assert.ok(r.budget < QUERY_OVERVIEW_BUDGET && r.tokens <= r.budget, `${r.tokens}/${r.budget} tokens`);
    assert.match(String(r.overview), /key files[^\n]*\n {2}src\/payment\/refund\.ts /);
  });

  it('an explicit budget, or no query, keeps its budget', async () => {
    const withBudget = await call(c.client, 'be-overview', { query: 'refund payment', budget: 1024 });
    assert.ok(withBudget.budget > QUERY_OVERVIEW_BUDGET && withBudget.tokens > QUERY_OVERVIEW_BUDGET, `${withBudget.tokens}/${withBudget.budget} tokens: the map fills more than the query budget`);
    const noQuery = await call(c.client, 'be-overview', {});
    assert.ok(noQuery.budget > QUERY_OVERVIEW_BUDGET && noQuery.tokens > QUERY_OVERVIEW_BUDGET, `${noQuery.tokens}/${noQuery.budget} tokens`);
  });
});

describe('core overview: a query without a budget follows the user overviewBudget', () => {
  it('overviewBudget 4000: a query gets half of it, not a fixed 512', async () => {
    const ws = await tmpWorkspace();
    const services = await createServices({ roots: [ws.root], chipDir: ws.chipDir, historyDir: ws.historyDir, context: { watch: false } });
    try {
      for (let f = 0; f < 200; f++) await ws.write(`src/m${f}.ts`, `/** Part ${f}. */\nexport function handle${f}(input: number): number {\n  return input + ${f};\n}\n`);
      services.context!.updateSettings({ overviewBudget: 4000 });
      const r = await services.context!.overview({ query: 'handle part' });
      assert.ok(r.budget > 1500 && r.budget <= 2000, `budget ${r.budget}`);
    } finally {
      await services.close();
      await ws.dispose();
    }
  });
});
