// Layer 2: the installed extension through the DOM of a real VS Code (code-server) in headless chromium.
// Runs after layer 1, whose extension host has exited: the chips it created must show here (persistence).
// Screenshots are test output: .e2e/screenshots/ (git-ignored), or SHOTS_DIR. Only `npm run screenshots` copies them
// to media/screenshots/ (the README's pictures), so a test run never rewrites committed files.
// Env: PORT, WS, SHOTS_DIR, FAILSHOT.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { lap, launchBrowser, norm, palette, quickOpen, workbenchUrl } from './common.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const SHOTS = process.env.SHOTS_DIR || path.join(ROOT, '.e2e', 'screenshots');
fs.mkdirSync(SHOTS, { recursive: true });
const { page, close } = await launchBrowser();
const shot = async (name) => {
  await page.waitForTimeout(500); // fades
  await page.screenshot({ path: path.join(SHOTS, name) });
  lap(`screenshot ${name}`);
};

/** The editor's visible lines in visual order (view-lines are absolutely positioned). */
async function editorLines() {
  return page.$$eval('.editor-instance .monaco-editor .view-lines .view-line', (els) =>
    els.map((e) => ({ top: parseFloat(e.style.top || '0'), text: (e.textContent || '').replace(/\u00a0/g, ' ') }))
      .sort((a, b) => a.top - b.top).map((l) => l.text));
}

/**
 * The line numbers whose gutter shows our Agent Edits mark in the visible editor: margin elements painted with
 * media/agent-edit-gutter.svg (the decoration type's gutter icon), matched to the line number beside them.
 */
async function agentGutterLines() {
  return page.evaluate(() => {
    const editor = [...document.querySelectorAll('.editor-instance .monaco-editor')].find((e) => e.offsetParent !== null);
    if (!editor) return null;
    const numbers = [...editor.querySelectorAll('.margin-view-overlays .line-numbers')]
      .map((n) => ({ line: Number(n.textContent), box: n.getBoundingClientRect() }));
    const lines = new Set();
    for (const el of editor.querySelectorAll('.margin *')) {
      if (!getComputedStyle(el).backgroundImage.includes('agent-edit-gutter')) continue;
      const box = el.getBoundingClientRect();
      const mid = (box.top + box.bottom) / 2;
      const n = numbers.find((x) => mid >= x.box.top && mid < x.box.bottom);
      if (n) lines.add(n.line);
    }
    return [...lines].sort((a, b) => a - b);
  });
}

async function chipsView() {
  // The activity-bar container, by its title. Clicking the active container hides the side bar, so click only
  // while the Chips view is not showing, and give a restored side bar time to appear first.
  const container = page.locator('.activitybar .action-item a[aria-label^="Better Edit"], .activitybar .action-item[aria-label^="Better Edit"]').first();
  await container.waitFor({ timeout: 30000 });
  const row = page.locator('.part.sidebar .monaco-list-row', { hasText: 'line 5' }).first();
  const viewTitle = page.locator('.part.sidebar .title-label h2', { hasText: /Better Edit/i });
  for (let attempt = 0; attempt < 5; attempt++) {
    if (await row.isVisible().catch(() => false)) return row;
    await page.waitForTimeout(1500);
    if (await row.isVisible().catch(() => false)) return row;
    if (!(await viewTitle.isVisible().catch(() => false))) await container.click({ timeout: 5000 }).catch(() => undefined);
  }
  return row;
}

const steps = [];
const step = async (name, fn) => {
  lap(`UI: ${name}`);
  await fn();
  steps.push(name);
};

try {
  await page.goto(workbenchUrl(process.env.WS));
  await page.locator('.monaco-workbench').waitFor({ timeout: 90000 });
  lap('workbench loaded');

  await step('status bar item shows server state and chip count', async () => {
    const item = page.locator('.statusbar-item', { hasText: /BE\s*\d+/ }).first();
    await item.waitFor({ timeout: 90000 });
    lap(`status bar: "${norm(await item.textContent())}"`);
  });

  let row;
  await step('activity-bar container "Better Edit" and the Chips tree with the chip from layer 1', async () => {
    row = await chipsView();
    await row.waitFor({ timeout: 20000 });
    lap(`chip row: "${norm(await row.textContent())}"`);
  });

  await step('open src/notes.txt with the cursor on line 3', async () => {
    await quickOpen(page, 'notes.txt');
    await page.locator('.quick-input-widget .monaco-list-row', { hasText: 'notes.txt' }).first().waitFor({ timeout: 15000 });
    await page.keyboard.press('Enter');
    await page.locator('.tab', { hasText: 'notes.txt' }).first().waitFor({ timeout: 15000 });
    // Enter only once the go-to-line row offers line 3, then wait for the status bar: on a loaded machine an early
    // Enter left the input open and the cursor on line 1 (the chip then went to the top)
    await quickOpen(page, ':3');
    await page.locator('.quick-input-widget .monaco-list-row', { hasText: 'line 3' }).first().waitFor({ timeout: 15000 });
    await page.keyboard.press('Enter');
    await page.locator('.statusbar-item', { hasText: /Ln 3, Col 1/ }).first().waitFor({ timeout: 15000 });
    await page.locator('.quick-input-widget').first().waitFor({ state: 'hidden', timeout: 15000 }).catch(() => undefined);
    const lines = await editorLines();
    if (lines[2] !== 'line 3') throw new Error(`notes.txt line 3 is "${lines[2]}" before the insert`);
  });
  await shot('chips-tree.png');

  await step('inline "Insert at Cursor" clicked with the mouse puts the chip text at the cursor line', async () => {
    await row.hover();
    const action = row.locator('.action-label[aria-label^="Insert at Cursor"]');
    await action.waitFor({ state: 'visible', timeout: 10000 });
    await action.click();
    await page.waitForFunction(() => {
      const lines = [...document.querySelectorAll('.editor-instance .monaco-editor .view-lines .view-line')]
        .map((e) => ({ top: parseFloat(e.style.top || '0'), text: (e.textContent || '').replace(/\u00a0/g, ' ') }))
        .sort((a, b) => a.top - b.top).map((l) => l.text);
      return lines[2] === 'line 5' && lines[3] === 'line 6' && lines[4] === 'line 7' && lines[5] === 'line 3';
    }, undefined, { timeout: 15000 });
    lap(`editor: ${JSON.stringify((await editorLines()).slice(0, 8))}`);
  });
  await shot('insert-at-cursor.png');

  await step('palette: "Better Edit: Recover Chip…" lists the chips', async () => {
    await palette(page, 'Better Edit: Recover Chip');
    await page.locator('.quick-input-widget .monaco-list-row', { hasText: 'line 5' }).first().waitFor({ timeout: 15000 });
  });
  await shot('recover-chip.png');

  await step('status bar click opens the actions', async () => {
    await page.keyboard.press('Escape');
    await page.locator('.statusbar-item', { hasText: /BE\s*\d+/ }).first().click();
    await page.locator('.quick-input-widget .monaco-list-row', { hasText: 'Restart MCP Server' }).first().waitFor({ timeout: 15000 });
  });
  await shot('status-actions.png');

  await step('MCP: List Servers shows "Better Edit Tools"', async () => {
    await palette(page, 'MCP: List Servers');
    await page.locator('.quick-input-widget .monaco-list-row', { hasText: 'Better Edit Tools' }).first().waitFor({ timeout: 20000 });
  });
  await shot('mcp-servers.png');

  await step('palette: "Better Edit: Show Token Window" shows the session of layer 1 (restored from disk)', async () => {
    await palette(page, 'Better Edit: Show Token Window');
    // Webviews live in nested iframes overlaid on the part; look through every frame for the rendered view.
    const deadline = Date.now() + 30000;
    for (;;) {
      let text = '';
      for (const frame of page.frames()) {
        const t = await frame.evaluate(() => document.body?.innerText ?? '').catch(() => '');
        if (/budget/i.test(t) && /tool_result/.test(t)) text = t;
      }
      if (text) { lap(`token window: "${norm(text).slice(0, 120)}…"`); break; }
      if (Date.now() > deadline) throw new Error('the Token Window webview did not render a session');
      await page.waitForTimeout(500);
    }
  });

  await step('Token Window: be-* tool_call rows with their token counts, and the chart of the restored session', async () => {
    // Pick layer 1's session (the one with the most messages; VS Code's reconnected client may have opened a newer one).
    for (const frame of page.frames()) {
      const value = await frame.evaluate(() => {
        const select = document.querySelector('#session');
        if (!select) return undefined;
        const msgs = (o) => Number((/(\d+) msgs/.exec(o.textContent ?? '') ?? [])[1] ?? 0);
        const best = [...select.options].sort((x, y) => msgs(y) - msgs(x))[0];
        return best && best.value !== select.value ? best.value : undefined;
      }).catch(() => undefined);
      if (value) {
        await frame.selectOption('#session', value);
        lap(`token window: selected session ${value}`);
      }
    }
    const deadline = Date.now() + 15000;
    for (;;) {
      let found;
      for (const frame of page.frames()) {
        const r = await frame.evaluate(() => {
          const rows = [...document.querySelectorAll('#messages li.msg')].map((li) => ({
            kind: li.querySelector('.kind')?.textContent ?? '',
            tok: li.querySelector('.tok')?.textContent ?? '',
          }));
          const calls = rows.filter((r) => /^tool_call be-[a-z-]+/.test(r.kind));
          const points = (document.querySelector('#chart polyline')?.getAttribute('points') ?? '').split(' ').filter(Boolean).length;
          return rows.length ? { rows: rows.length, calls, points } : undefined;
        }).catch(() => undefined);
        if (r) found = r;
      }
      if (found) {
        const counted = found.calls.filter((c) => Number(c.tok.replace(/[^0-9]/g, '')) > 0);
        if (counted.length > 0 && found.points >= 2) {
          lap(`token window: ${found.rows} rows, ${counted.length} be-* calls with tokens (e.g. "${counted[0].kind}: ${counted[0].tok}"), chart of ${found.points} points`);
          break;
        }
        if (Date.now() > deadline) throw new Error(`Token Window: want a be-* tool_call with tokens > 0 and a chart; got ${JSON.stringify(found).slice(0, 300)}`);
      } else if (Date.now() > deadline) throw new Error('Token Window: no message rows');
      await page.waitForTimeout(500);
    }
  });
  // Collapse the Chips view for the screenshot so the Token Window has the side bar's height (chart and messages).
  const chipsHeader = page.locator('.part.sidebar .pane-header', { hasText: /chips/i }).first();
  const chipsExpanded = async () => (await chipsHeader.getAttribute('aria-expanded').catch(() => null)) === 'true';
  if (await chipsExpanded()) await chipsHeader.click({ timeout: 5000 }).catch(() => undefined);
  for (const frame of page.frames()) await frame.evaluate(() => window.scrollTo(0, 0)).catch(() => undefined);
  await shot('token-window.png');
  if (!(await chipsExpanded())) await chipsHeader.click({ timeout: 5000 }).catch(() => undefined);

  await step('palette: "Better Edit: Run Demo" (confirmed) runs a scripted session: chips appear, Insert at Cursor fills the demo file, the Token Window shows it', async () => {
    await palette(page, 'Better Edit: Run Demo');
    const confirm = page.locator('.monaco-dialog-box .monaco-button', { hasText: /^Run Demo$/ }).first();
    if (await confirm.waitFor({ timeout: 10000 }).then(() => true, () => false)) await confirm.click();
    // Insert at Cursor of the failed call's content, in the demo file the demo opened.
    await page.locator('.tab', { hasText: 'better-edit-demo.ts' }).first().waitFor({ timeout: 60000 });
    await page.waitForFunction(() => [...document.querySelectorAll('.editor-instance .monaco-editor .view-lines .view-line')]
      .some((e) => (e.textContent || '').replace(/\u00a0/g, ' ').includes('export function taxFor(')), undefined, { timeout: 60000 });
    // Both chips in the tree: the failed be-replace (its content's first line) and the deleted legacyTax().
    await page.locator('.part.sidebar .monaco-list-row', { hasText: 'legacyTax' }).first().waitFor({ timeout: 20000 });
    await page.locator('.part.sidebar .monaco-list-row', { hasText: 'VAT by country' }).first().waitFor({ timeout: 20000 });
    // The Token Window follows the demo session: rows that name the demo file, and (small budget) evictions on the chart.
    const deadline = Date.now() + 30000;
    for (;;) {
      let seen = { rows: 0, evictions: 0 };
      for (const frame of page.frames()) {
        const r = await frame.evaluate(() => ({
          rows: [...document.querySelectorAll('#messages li.msg')].filter((li) => (li.textContent || '').includes('better-edit-demo.ts')).length,
          evictions: document.querySelectorAll('#chart circle.evict-mark').length,
        })).catch(() => ({ rows: 0, evictions: 0 }));
        if (r.rows > seen.rows) seen = r;
      }
      if (seen.rows >= 2 && seen.evictions >= 1) { lap(`token window: ${seen.rows} rows of the demo session, ${seen.evictions} eviction marks`); break; }
      if (Date.now() > deadline) throw new Error(`the Token Window did not show the demo session filling: ${JSON.stringify(seen)}`);
      await page.waitForTimeout(500);
    }
    // The closing notification (a toast may already have gone to the notification center: logged, not required).
    const done = page.locator('.notifications-toasts .notification-toast', { hasText: 'Demo done' }).first();
    if (await done.waitFor({ timeout: 15000 }).then(() => true, () => false)) lap(`notification: "${norm(await done.textContent()).slice(0, 160)}"`);
  });
  await shot('run-demo.png');

  // The web workbench has no "Restart Extension Host" in the palette; a reload starts a new extension host too.
  await step('chips survive "Developer: Reload Window" (a new extension host)', async () => {
    await palette(page, 'Developer: Reload Window');
    await page.waitForTimeout(3000);
    await page.locator('.monaco-workbench').waitFor({ timeout: 90000 });
    const again = await chipsView();
    await again.waitFor({ timeout: 60000 });
    await page.locator('.statusbar-item', { hasText: /BE\s*\d+/ }).first().waitFor({ timeout: 60000 });
  });

  await step('view title "Clear Chips" (confirmed) empties the tree and shows the welcome view', async () => {
    await page.keyboard.press('Escape');
    const header = page.locator('.part.sidebar .pane-header', { hasText: /chips/i }).first();
    await header.hover();
    await header.locator('.action-label[aria-label^="Clear Chips"]').click({ timeout: 10000 });
    // The modal confirmation (auto-accepted only in the payload connection of the smoke-test driver).
    const confirm = page.locator('.monaco-dialog-box .monaco-button', { hasText: /^Clear$/ }).first();
    // A loaded machine can take more than 5 s to show the dialog after a reload (seen: visible at the 25 s failure).
    if (await confirm.waitFor({ timeout: 20000 }).then(() => true, () => false)) {
      await shot('clear-confirm.png');
      await confirm.click();
    }
    await page.locator('.part.sidebar .welcome-view-content', { hasText: 'No chips yet' }).waitFor({ timeout: 20000 });
    await page.locator('.statusbar-item', { hasText: /BE\s*0/ }).first().waitFor({ timeout: 10000 });
  });
  await shot('chips-empty.png');

  await step('Agent Edits view lists the demo agent\'s edits by session; clicking an edit opens its diff', async () => {
    const header = page.locator('.part.sidebar .pane-header', { hasText: /agent edits/i }).first();
    await header.waitFor({ timeout: 20000 });
    if ((await header.getAttribute('aria-expanded').catch(() => null)) !== 'true') await header.click({ timeout: 5000 });
    const edit = page.locator('.part.sidebar .monaco-list-row', { hasText: 'better-edit-demo.ts:' }).first();
    await edit.waitFor({ timeout: 20000 });
    lap(`agent edit row: "${norm(await edit.textContent())}"`);
    await page.locator('.part.sidebar .monaco-list-row', { hasText: /session/ }).first().waitFor({ timeout: 10000 });
    await edit.click();
    const tab = page.locator('.tab', { hasText: /\(edit [0-9a-f]{6}/ }).first();
    await tab.waitFor({ timeout: 20000 });
    await page.locator('.monaco-diff-editor').first().waitFor({ timeout: 20000 });
    lap(`diff tab: "${norm(await tab.textContent())}"`);
  });
  await shot('agent-edits.png');

  await step('the gutter marks the lines of an agent\'s pending edit (review-gutter.txt, from layer 1); Revert Edit removes the marks', async () => {
    await quickOpen(page, 'review-gutter.txt');
    await page.locator('.quick-input-widget .monaco-list-row', { hasText: 'review-gutter.txt' }).first().waitFor({ timeout: 15000 });
    await page.keyboard.press('Enter');
    await page.locator('.tab.active', { hasText: 'review-gutter.txt' }).first().waitFor({ timeout: 15000 });
    const want = async (lines, what) => {
      const deadline = Date.now() + 20000;
      for (let got; ; await page.waitForTimeout(300)) {
        got = await agentGutterLines();
        if (JSON.stringify(got) === JSON.stringify(lines)) return lap(`gutter: ${what}: lines ${JSON.stringify(got)}`);
        if (Date.now() > deadline) throw new Error(`gutter: want ${what} ${JSON.stringify(lines)}, got ${JSON.stringify(got)}`);
      }
    };
    await want([6, 7], 'the inserted lines marked, nothing else');
    await shot('agent-edits-gutter.png');
    // The edit is listed under layer 1's session, below the rows in view (the tree renders only what it shows):
    // give the tree the side bar's height, then scroll it until the row is there.
    for (const name of [/chips/i, /token window/i]) {
      const h = page.locator('.part.sidebar .pane-header', { hasText: name }).first();
      if ((await h.getAttribute('aria-expanded').catch(() => null)) === 'true') await h.click({ timeout: 5000 }).catch(() => undefined);
    }
    const row = page.locator('.part.sidebar .monaco-list-row', { hasText: 'review-gutter.txt:6-7' }).first();
    const tree = page.locator('.part.sidebar .pane', { has: page.locator('.pane-header', { hasText: /agent edits/i }) }).locator('.monaco-list').first();
    for (let i = 0; i < 30 && !(await row.isVisible().catch(() => false)); i++) {
      await tree.hover({ timeout: 5000 });
      await page.mouse.wheel(0, 120);
      await page.waitForTimeout(250);
    }
    await row.waitFor({ timeout: 10000 });
    await row.hover();
    await row.locator('.action-label[aria-label^="Revert Edit"]').click({ timeout: 10000 });
    await want([], 'no mark after the revert');
    const lines = await editorLines();
    if (lines.includes('five-a') || lines[5] !== 'six') throw new Error(`the revert did not restore review-gutter.txt: ${JSON.stringify(lines)}`);
  });

  lap(`UI PASS: ${steps.length} steps`);
  await close();
  process.exit(0);
} catch (err) {
  console.log(`UI FAIL after ${steps.length} passed steps: ${String(err?.message ?? err).split('\n')[0]}`);
  await page.screenshot({ path: process.env.FAILSHOT || path.join(SHOTS, 'ui-fail.png') }).catch(() => {});
  await close();
  process.exit(1);
}
