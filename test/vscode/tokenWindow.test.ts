/// <reference lib="dom" />
/**
 * The Token Window webview in headless Chromium: the real HTML (with its CSP), script and styles,
 * `acquireVsCodeApi` stubbed, messages built from a real ChatMemory. Checks the DOM after init and
 * after deltas (rows patched in place, not re-rendered), the actions it posts (mouse and keyboard),
 * that the CSP blocks nothing of ours, and saves a screenshot under .e2e/screenshots/ (test output, git-ignored;
 * media/screenshots/ is refreshed only by `npm run screenshots`). Without a usable Chromium it is skipped, saying why.
 */
import assert from 'node:assert/strict';
import { existsSync, promises as fs } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { ChatMemory } from '../../src/core/memory/chatMemory';
import type { MemoryChange } from '../../src/core/memory/types';
import { renderTokenWindowHtml } from '../../src/vscode/tokenWindow/html';
import type { InitMessage } from '../../src/vscode/tokenWindow/protocol';
import { ChartHistory, deltaOf, fingerprintView, messageView, turnView } from '../../src/vscode/tokenWindow/views';
import { TurnLog } from '../../src/core/memory/node/turnLog';
import { assemblePrompt } from '../../src/core/memory/promptAssembly';
import { getTokenizer } from '../../src/core/memory/node/tokenizer';
import { memoryDeps } from '../core/memory/memoryDeps';

const REPO = path.resolve(__dirname, '..', '..');
/** Debian's chromium, or the browser CHROMIUM names (as the e2e scripts take it). */
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
const SHOTS = path.join(REPO, '.e2e', 'screenshots');
const MEDIA = path.join(REPO, 'media', 'tokenWindow');

/** A few VS Code Dark Modern colors, as the workbench would define them. */
const THEME = `
  --vscode-foreground:#cccccc; --vscode-descriptionForeground:#9d9d9d; --vscode-font-family:system-ui, sans-serif;
  --vscode-font-size:13px; --vscode-editor-font-family:monospace; --vscode-sideBar-background:#181818;
  --vscode-input-background:#313131; --vscode-input-foreground:#cccccc; --vscode-input-border:#3c3c3c;
  --vscode-button-secondaryBackground:#313131; --vscode-button-secondaryForeground:#cccccc;
  --vscode-widget-border:#313131; --vscode-focusBorder:#0078d4; --vscode-list-hoverBackground:#2a2d2e;
  --vscode-charts-blue:#3794ff; --vscode-charts-red:#f14c4c; --vscode-charts-yellow:#cca700; --vscode-charts-green:#89d185;
  --vscode-charts-orange:#d18616; --vscode-charts-purple:#b180d7; --vscode-textLink-foreground:#4daafc;
  --vscode-editorWarning-foreground:#cca700; --vscode-textCodeBlock-background:#2b2b2b; --vscode-editorWidget-background:#202020;
  --vscode-editor-inactiveSelectionBackground:#3a3d41; --vscode-errorForeground:#f85149;`;

function sampleMemory(): { memory: ChatMemory; chart: ChartHistory; changes: MemoryChange[] } {
  let t = Date.now() - 30 * 60_000; // ages in the screenshot: minutes
  const memory = new ChatMemory({ maxTokens: 3000, recentKeep: 4 }, { ...memoryDeps, clock: { now: () => (t += 40_000) } });
  const chart = new ChartHistory();
  const changes: MemoryChange[] = [];
  memory.onDidChange((c) => {
    changes.push(c);
    chart.push('s1', { t, used: c.stats.usedTokens, evicted: c.evicted?.length ?? 0 });
  });
  memory.add({ kind: 'note', group: 'goal', content: 'Goal: make the parser accept trailing commas. Never touch migration files.' });
  memory.add({ kind: 'user_query', content: 'Fix the failing parser test and keep the public API unchanged.' });
  const files = ['src/parser.ts', 'src/lexer.ts', 'test/parser.test.ts', 'src/ast.ts'];
  for (let i = 0; i < 14; i++) {
    const file = `${files[i % files.length]}:${10 * i + 1}-${10 * i + 40}`;
    const call = memory.add({ kind: 'tool_call', tool: i % 3 ? 'be-read' : 'be-replace', content: `be-read {"file":"${file}"}`, references: [{ path: file.split(':')[0]!, start: 10 * i + 1, end: 10 * i + 40 }] });
    memory.add({
      kind: 'tool_result',
      tool: call.tool,
      pairId: call.id,
      status: i === 5 ? 'error' : 'ok',
      content: i === 5 ? 'conflict: the file changed since it was read' : `export function parseList${i}(tokens: Token[]): Node[] {\n  const items = [];\n`.repeat(12),
      references: call.references,
    });
    if (i % 4 === 3) memory.add({ kind: 'assistant', content: `Step ${i}: the lexer emits a COMMA token before ${'the closing bracket '.repeat(4)}` });
  }
  return { memory, chart, changes };
}

function initOf(memory: ChatMemory, chart: ChartHistory): InitMessage {
  return {
    type: 'init',
    sessionId: 's1',
    sessions: [
      { sessionId: 's1', messages: memory.size, usedTokens: memory.stats().usedTokens, usableTokens: memory.usableTokens, overflow: false, lastActivity: Date.now() },
      { sessionId: 'stdio-2', messages: 3, usedTokens: 420, usableTokens: 34_000, overflow: false, lastActivity: Date.now() - 60_000 },
    ],
    stats: memory.stats(),
    messages: memory.visibleMessages().map(messageView),
    summary: memory.summary(),
    fingerprints: memory.fingerprints().map(fingerprintView),
    chart: chart.get('s1'),
    now: Date.now(),
  };
}

describe('vscode/tokenWindow webview (headless Chromium)', function () {
  this.timeout(60_000);
  let browser: Browser;
  let server: http.Server;
  let origin: string;
  let page: Page;
  const errors: string[] = [];

  before(async function () {
    // A missing browser, or one that cannot start (a distribution's wrapper that asks for a snap, missing libraries),
    // is the machine's state, not a failure of ours: skip and say how to get the test running.
    const skip = (why: string) => {
      console.log(`      Chromium is not usable at ${CHROMIUM} (${why}): the Token Window browser test is skipped. ` +
        'Install it (Debian: apt-get install chromium) or set CHROMIUM=/path/to/chromium.');
      this.skip();
    };
    if (!existsSync(CHROMIUM)) skip('not found');
    try {
      browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'], timeout: 30_000 });
    } catch (e) {
      skip(String(e instanceof Error ? e.message : e).split('\n')[0]!.slice(0, 200));
    }
    const html = (o: string) =>
      renderTokenWindowHtml({ cspSource: o, nonce: 'n0nce1234567890', scriptUri: `${o}/main.js`, styleUri: `${o}/style.css`, strings: {} });
    server = http.createServer(async (req, res) => {
      if (req.url === '/favicon.ico') {
        res.statusCode = 204;
        res.end();
        return;
      }
      if (req.url === '/') {
        res.setHeader('Content-Type', 'text/html; charset=utf-8');
        res.end(html(origin));
        return;
      }
      const file = path.join(MEDIA, path.basename(req.url ?? ''));
      try {
        const body = await fs.readFile(file);
        res.setHeader('Content-Type', file.endsWith('.js') ? 'text/javascript' : 'text/css');
        res.end(body);
      } catch {
        res.statusCode = 404;
        res.end();
      }
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  after(async () => {
    await browser?.close();
    if (server) await new Promise((r) => server.close(r)); // undefined when the suite was skipped
  });

  beforeEach(async () => {
    page = await browser.newPage({ viewport: { width: 440, height: 1250 }, deviceScaleFactor: 1 });
    // A string, not a function: the test runner's transpiler decorates functions with helpers the page lacks.
    // The theme goes through the CSSOM (allowed by the CSP), as VS Code's own injection does.
    await page.addInitScript(`
      window.__posted = [];
      window.__violations = [];
      window.acquireVsCodeApi = () => ({ postMessage: (m) => window.__posted.push(m), getState: () => undefined, setState: () => undefined });
      document.addEventListener('securitypolicyviolation', (e) => window.__violations.push(e.violatedDirective + ' ' + e.blockedURI));
      document.addEventListener('DOMContentLoaded', () => {
        for (const decl of ${JSON.stringify(THEME)}.split(';')) {
          const i = decl.indexOf(':');
          if (i > 0) document.body.style.setProperty(decl.slice(0, i).trim(), decl.slice(i + 1).trim());
        }
      });
    `);
    page.on('pageerror', (e) => errors.push(String(e)));
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(m.text());
    });
    await page.goto(origin + '/');
  });

  afterEach(async () => {
    await page?.close();
    assert.deepEqual(errors.splice(0), [], 'no script errors in the webview');
  });

  const posted = (): Promise<Record<string, unknown>[]> => page.evaluate(() => (window as unknown as { __posted: Record<string, unknown>[] }).__posted);
  const send = (m: unknown): Promise<void> => page.evaluate((msg) => window.postMessage(msg, '*'), m as never);

  it('renders a session from init: budget, breakdowns, messages, summary, fingerprints, chart; CSP blocks nothing of ours', async () => {
    const { memory, chart } = sampleMemory();
    assert.ok(memory.stats().evictions > 0, 'the sample evicted something');
    assert.deepEqual(await posted(), [{ type: 'ready' }]);
    await send(initOf(memory, chart));

    const rows = page.locator('#messages li.msg');
    assert.equal(await rows.count(), memory.size);
    const first = memory.visibleMessages()[0]!;
    assert.match(await rows.first().innerText(), new RegExp(`${first.id}[\\s\\S]*${first.tokens} tok`));
    assert.equal(await rows.first().getAttribute('class'), 'msg p-medium pinned');
    const stats = memory.stats();
    assert.match(await page.locator('#budget-numbers').innerText(), new RegExp(`${stats.usedTokens.toLocaleString('en')} / ${stats.usableTokens.toLocaleString('en')} tokens`));
    assert.match(await page.locator('#summary').innerText(), /be-(read|replace) src\//);
    assert.equal(await page.locator('#fingerprints li').count(), Math.min(50, memory.fingerprints().length));
    assert.ok((await page.locator('#chart polyline').getAttribute('points'))!.split(' ').length > 10);
    assert.ok((await page.locator('#chart circle.evict-mark').count()) > 0, 'eviction marks on the chart');
    assert.equal(await page.locator('#session option').count(), 2);
    assert.match(await page.locator('#by-priority').innerText(), /high[\s\S]*medium[\s\S]*low/);
    const used = await page.locator('#bar-used').evaluate((e) => parseFloat((e as HTMLElement).style.width));
    assert.ok(used > 0 && used <= 100);
    assert.deepEqual(await page.evaluate(() => (window as unknown as { __violations: string[] }).__violations), []);
    await fs.mkdir(SHOTS, { recursive: true });
    await page.screenshot({ path: path.join(SHOTS, 'token-window-webview.png'), fullPage: true });
  });

  it('applies deltas in place: new rows appended, evicted rows removed, other rows untouched', async () => {
    const { memory, chart, changes } = sampleMemory();
    await send(initOf(memory, chart));
    const keep = memory.visibleMessages().at(-1)!.id;
    await page.locator(`li[data-id="${keep}"]`).evaluate((e) => ((e as HTMLElement & { __marker?: string }).__marker = 'same-node'));
    const before = changes.length;
    const big = memory.add({ kind: 'tool_result', tool: 'be-read', content: 'const x = 1;\n'.repeat(700) });
    const change = changes.slice(before).at(-1)!;
    assert.ok(change.evicted && change.evicted.length > 0, 'the add evicted messages');
    await send(deltaOf({ sessionId: 's1', change }, memory, { t: Date.now(), used: change.stats.usedTokens, evicted: change.evicted.length }, Date.now()));
    for (const id of change.evicted) assert.equal(await page.locator(`li[data-id="${id}"]`).count(), 0, `${id} removed`);
    assert.equal(await page.locator('#messages li.msg').last().getAttribute('data-id'), big.id);
    assert.equal(await page.locator('#messages li.msg').count(), memory.size);
    assert.equal(await page.locator(`li[data-id="${keep}"]`).evaluate((e) => (e as HTMLElement & { __marker?: string }).__marker), 'same-node');
    // a delta for another session is ignored
    await send({ ...deltaOf({ sessionId: 'other', change }, memory, { t: 0, used: 0, evicted: 0 }, Date.now()), sessionId: 'other' });
    assert.equal(await page.locator('#messages li.msg').count(), memory.size);
    // an update (pin) re-renders only that row
    const before2 = changes.length;
    memory.pin(keep);
    await send(deltaOf({ sessionId: 's1', change: changes.slice(before2).at(-1)! }, memory, { t: Date.now(), used: 1, evicted: 0 }, Date.now()));
    assert.match((await page.locator(`li[data-id="${keep}"]`).getAttribute('class'))!, /pinned/);
  });

  it('posts actions from the mouse and the keyboard', async () => {
    const { memory, chart } = sampleMemory();
    await send(initOf(memory, chart));
    const target = memory.visibleMessages().find((m) => !m.pinned)!;
    const row = page.locator(`li[data-id="${target.id}"]`);
    await row.locator('button.pin').click();
    await row.locator('select.prio-select').selectOption('high');
    await row.focus();
    await page.keyboard.press('e');
    await page.keyboard.press('3');
    await page.keyboard.press('p');
    await page.locator('#budget-input').fill('12000');
    await page.locator('#budget-form button').click();
    const sent = (await posted()).slice(1);
    assert.deepEqual(sent, [
      { type: 'pin', id: target.id },
      { type: 'setPriority', id: target.id, priority: 'high' },
      { type: 'evict', id: target.id },
      { type: 'setPriority', id: target.id, priority: 'low' },
      { type: 'pin', id: target.id },
      { type: 'setBudget', maxTokens: 12000 },
    ]);
    await page.locator('#session').selectOption('stdio-2');
    assert.deepEqual((await posted()).at(-1), { type: 'selectSession', sessionId: 'stdio-2' });
  });

  it('lists @better-edit turns: prompt against the budget, what entered, what slid out and why', async () => {
    const memory = new ChatMemory({ maxTokens: 100_000, reserveRatio: 0, recentKeep: 2 }, memoryDeps);
    const log = new TurnLog();
    const count = (t: string) => getTokenizer().count(t);
    for (let turn = 1; turn <= 5; turn++) {
      const rec = log.begin('s1', memory, 'scripted/coder', `read src/f${turn}.ts`, Date.now());
      memory.add({ kind: 'user_query', content: `read src/f${turn}.ts` });
      const call = memory.add({ kind: 'tool_call', tool: 'be-read', content: `be-read {"file":"src/f${turn}.ts"}` });
      memory.add({ kind: 'tool_result', tool: 'be-read', status: 'ok', pairId: call.id, content: 'export const x = 1;\n'.repeat(80) });
      const p = assemblePrompt(memory, { systemPrompt: 'sys', toolTokens: 50, maxInputTokens: 1500, reserveTokens: 200, count });
      rec.request({ round: 1, tokens: p.tokens, limit: p.limit, maxInputTokens: 1500, reserveTokens: 200, messages: p.messages.length });
      rec.finish();
    }
    const { memory: shown, chart } = sampleMemory();
    await send(initOf(shown, chart));
    assert.equal(await page.locator('#turns-section').isHidden(), true, 'no turns: no section');
    await send({ type: 'turns', sessionId: 's1', turns: log.list('s1').map(turnView) });
    const rows = page.locator('#turns li.turn');
    assert.equal(await rows.count(), 5);
    assert.equal(await page.locator('#turns-section').isVisible(), true);
    assert.equal(await rows.first().getAttribute('data-turn'), '5', 'newest first');
    for (let i = 0; i < 5; i++) {
      const prompt = Number(await rows.nth(i).getAttribute('data-prompt'));
      assert.ok(prompt > 0 && prompt <= Number(await rows.nth(i).getAttribute('data-limit')));
    }
    const text = await page.locator('#turns').innerText();
    assert.match(text, /#5 scripted\/coder — [\d,]+ \/ 1,300 tokens/);
    assert.match(text, /slid out[\s\S]*(window full|window budget set)/);
    await send({ type: 'turns', sessionId: 'other', turns: [] });
    assert.equal(await rows.count(), 5, 'another session\'s turns are ignored');
  });

  it('shows an empty state without sessions', async () => {
    await send({ type: 'init', sessionId: undefined, sessions: [], stats: undefined, messages: [], summary: '', fingerprints: [], chart: [], now: Date.now() });
    assert.equal(await page.locator('#empty').isVisible(), true);
    assert.equal(await page.locator('#main').isVisible(), false);
  });
});
