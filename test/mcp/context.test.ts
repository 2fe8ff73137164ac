/**
 * Context modes over the real stdio CLI (dist/cli.js --root <tmp>) with the SDK Client: be-read modes,
 * be-overview, the betools:// resources, and a warm overview that sees an edit.
 */
import assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import { getTokenizer } from '../../src/core/memory/node/tokenizer';
import { buildCli, call, stdioClient, tmpWorkspace, type Connected, type Workspace } from './helpers';

const ORDERS = [
  "import { round } from './money';", // 1
  '', // 2
  '/** Prices order lines. */', // 3
  'export class PriceCalculator {', // 4
  '  constructor(private readonly rate: number = 1) {}', // 5
  '', // 6
  '  /** Amount for one line. */', // 7
  '  calculate(price: number, quantity: number): number {', // 8
  '    return round(price * quantity * this.rate);', // 9
  '  }', // 10
  '}', // 11
  '', // 12
  'export function total(lines: number[]): number {', // 13
  '  let sum = 0;', // 14
  '  for (const l of lines) sum += l;', // 15
  '  return sum;', // 16
  '}', // 17
].join('\n') + '\n';

const MONEY = 'export function round(x: number): number {\n  return Math.round(x * 100) / 100;\n}\n';

/** Well over the 2,000-token auto threshold. */
const BIG = Array.from(
  { length: 40 },
  (_, i) =>
    `export function handler${i}(input: number): number {\n  const doubled = input * ${i + 2};\n  if (doubled > ${i * 100}) {\n` +
    `    console.log('handler ${i} saw a large input', input, doubled);\n    return doubled - ${i};\n  }\n` +
    `  const rest = doubled % ${i + 3};\n  return doubled + rest + ${i};\n}\n`,
).join('\n');

describe('mcp context modes (stdio, dist/cli.js)', function () {
  this.timeout(60_000);
  let ws: Workspace;
  let conn: Connected;
  const tk = getTokenizer();

  before(async () => {
    await buildCli();
    ws = await tmpWorkspace();
    await ws.write('src/orders.ts', ORDERS);
    await ws.write('src/money.ts', MONEY);
    await ws.write('src/big.ts', BIG);
    await ws.write('src/checkout.ts', "import { total } from './orders';\nimport { round } from './money';\nexport const pay = (xs: number[]) => round(total(xs));\n");
    conn = await stdioClient(ws);
  });

  after(async () => {
    await conn?.close();
    await ws?.dispose();
  });

  it('be-read mode "structure" on a TypeScript file: symbols with exact line ranges first, context_summary, a hint', async () => {
    const r = await call(conn.client, 'be-read', { file: 'src/orders.ts', mode: 'structure' });
    assert.equal(r.mode, 'structure');
    assert.equal(r.data_type, 'context_summary');
    assert.equal(r.total, 17);
    const outline = String(r.outline);
    assert.match(outline, /^imports: money$/m);
    assert.match(outline, /^4-11 class PriceCalculator — Prices order lines$/m);
    assert.match(outline, /^ 5 constructor\(rate\?: number\)$/m);
    assert.match(outline, /^ 8-10 calculate\(price: number, quantity: number\): number — Amount for one line$/m);
    assert.match(outline, /^13-17 total\(lines: number\[\]\): number$/m);
    assert.match(String(r.hint), /be-read \{"file":"src\/orders\.ts:\d+-\d+"\} reads \w+/);
  });

  it('be-read without a range on a big file answers with the structure (auto), a small one in full', async () => {
    const big = await call(conn.client, 'be-read', { file: 'src/big.ts' });
    assert.equal(big.mode, 'structure');
    assert.match(String(big.outline), /^\d+-\d+ handler39\(input: number\): number$/m);
    assert.ok(tk.count(JSON.stringify(big)) < big.file_tokens / 2, 'the structure is much smaller than the file');
    const small = await call(conn.client, 'be-read', { file: 'src/money.ts' });
    assert.equal(small.mode, 'full');
    assert.equal(small.data_type, 'file_content');
    assert.ok(small.viewed_code_id, 'full reads keep upstream metadata');
  });

  it('be-overview returns a map within its budget, most referenced files first', async () => {
    const r = await call(conn.client, 'be-overview', { budget: 200 });
    assert.equal(r.mode, 'overview');
    assert.equal(r.data_type, 'context_summary');
    assert.equal(r.files, 4);
    assert.ok(tk.count(JSON.stringify(r)) <= 200, `reply is ${tk.count(JSON.stringify(r))} tokens`);
    const keyFiles = String(r.overview).split('\n').filter((l) => /^ {2}src\/\S+\.ts /.test(l));
    assert.match(keyFiles[0]!, /src\/(money|orders)\.ts/);
  });

  it('lists and reads the betools:// resources', async () => {
    const caps = conn.client.getServerCapabilities();
    assert.ok(caps?.resources, 'the server declares the resources capability');
    const list = await conn.client.listResources();
    assert.ok(list.resources.some((r) => r.uri === 'betools://overview'));
    const templates = await conn.client.listResourceTemplates();
    assert.ok(templates.resourceTemplates.some((t) => t.uriTemplate === 'betools://structure/{path}'));
    const s = await conn.client.readResource({ uri: 'betools://structure/src/orders.ts' });
    const text = String((s.contents[0] as { text: string }).text);
    assert.match(text, /^src\/orders\.ts · 17 lines · \d+ tokens\n/);
    assert.match(text, /8-10 calculate\(price: number, quantity: number\): number/);
    assert.equal((s.contents[0]!._meta as { mode: string }).mode, 'structure');
    const ov = await conn.client.readResource({ uri: 'betools://overview' });
    assert.match(String((ov.contents[0] as { text: string }).text), /^overview of \. · 4 files/);
    await assert.rejects(conn.client.readResource({ uri: 'betools://structure/../outside.ts' }));
    // MCP 2025-11-25: a resource that does not exist is -32002 "Resource not found"
    await assert.rejects(conn.client.readResource({ uri: 'betools://nothing' }), (e: { code?: number; message: string }) =>
      e.code === -32002 && /unknown resource betools:\/\/nothing/.test(e.message));
    await assert.rejects(conn.client.readResource({ uri: 'betools://structure/src/missing.ts' }), (e: { code?: number }) => e.code === -32002);
  });

  it('a warm overview reflects an edit made through a tool and one made on disk (file watcher)', async () => {
    const before = await call(conn.client, 'be-overview', { budget: 1024 });
    assert.match(String(before.overview), /src\/checkout\.ts 3L/);
    // Through a tool: the server invalidates the written file at once.
    await call(conn.client, 'be-insert', { file: 'src/checkout.ts:3', content: 'export const refund = (xs: number[]) => -pay(xs);' });
    const afterTool = await call(conn.client, 'be-overview', { budget: 1024 });
    assert.match(String(afterTool.overview), /src\/checkout\.ts 4L/);
    assert.equal(afterTool.lines, before.lines + 1);
    // On disk, behind the server's back: the watcher reports it (give its event a moment to arrive).
    await fs.appendFile(ws.file('src/money.ts'), 'export const CENT = 0.01;\nexport const EURO = 1;\n');
    let lines = 0;
    for (let i = 0; i < 50 && lines !== before.lines + 3; i++) {
      if (i) await new Promise((r) => setTimeout(r, 50));
      lines = (await call(conn.client, 'be-overview', { budget: 1024 })).lines;
    }
    assert.equal(lines, before.lines + 3);
    // A new file joins the map too.
    await ws.write('src/refunds.ts', 'export function refundAll(): void {}\n');
    let files = 0;
    for (let i = 0; i < 50 && files !== 5; i++) {
      if (i) await new Promise((r) => setTimeout(r, 50));
      files = (await call(conn.client, 'be-overview', {})).files;
    }
    assert.equal(files, 5);
  });

  it('a folder given to be-read without mode overview is refused with the call that maps it', async () => {
    const r = await conn.client.callTool({ name: 'be-read', arguments: { file: 'src' } });
    assert.equal(r.isError, true);
    assert.match(JSON.stringify(r.content), /is a directory.*be-overview/);
    const ov = await call(conn.client, 'be-read', { file: 'src', mode: 'overview' });
    assert.equal(ov.mode, 'overview');
  });
});
