// Layer 2b: the Token Window shows the @better-edit session of layer 1 as it really was: one row per turn with the
// prompt sent against the model's budget, what entered and what slid out (restored from disk in a new window).
// Env: PORT, WS, SHOTS_DIR (default .e2e/screenshots: test output, see scripts/screenshots.mjs), FAILSHOT.
import fs from 'node:fs';
import path from 'node:path';
import { lap, launchBrowser, norm, palette, workbenchUrl } from './common.mjs';

const SHOTS = process.env.SHOTS_DIR || path.join(path.dirname(new URL(import.meta.url).pathname), '..', '..', '.e2e', 'screenshots');
fs.mkdirSync(SHOTS, { recursive: true });
const { page, close } = await launchBrowser();

try {
  await page.goto(workbenchUrl(process.env.WS));
  await page.locator('.monaco-workbench').waitFor({ timeout: 90000 });
  await page.locator('.statusbar-item', { hasText: /BE\s*\d+/ }).first().waitFor({ timeout: 90000 });
  await palette(page, 'Better Edit: Show Token Window');
  const deadline = Date.now() + 45000;
  let turns;
  for (;;) {
    for (const frame of page.frames()) {
      // Select the chat session (its id starts with "chat-") once the view lists it.
      await frame.evaluate(() => {
        const select = document.querySelector('#session');
        const chat = select && [...select.options].find((o) => o.value.startsWith('chat-'));
        if (chat && select.value !== chat.value) {
          select.value = chat.value;
          select.dispatchEvent(new Event('change', { bubbles: true }));
        }
      }).catch(() => undefined);
      const r = await frame.evaluate(() => {
        const rows = [...document.querySelectorAll('#turns li.turn')];
        return rows.length ? rows.map((li) => ({ turn: Number(li.dataset.turn), prompt: Number(li.dataset.prompt), limit: Number(li.dataset.limit), text: li.textContent ?? '' })) : undefined;
      }).catch(() => undefined);
      if (r && r.length >= 30) turns = r;
    }
    if (turns) break;
    if (Date.now() > deadline) throw new Error('the Token Window did not list 30 @better-edit turns');
    await page.waitForTimeout(500);
  }
  const asked = turns.filter((t) => t.prompt > 0);
  const over = asked.filter((t) => t.prompt > t.limit);
  if (asked.length < 30) throw new Error(`want ≥ 30 turns with a prompt, got ${asked.length}`);
  if (over.length) throw new Error(`turns over budget in the Token Window: ${JSON.stringify(over.slice(0, 3))}`);
  if (!turns.some((t) => /slid out/.test(t.text) && /window full|budget|limit/.test(t.text))) throw new Error('no turn says what slid out and why');
  lap(`token window: ${turns.length} turns, e.g. "${norm(turns.find((t) => t.prompt > 0).text).slice(0, 160)}"`);
  const chipsHeader = page.locator('.part.sidebar .pane-header', { hasText: /chips/i }).first();
  if ((await chipsHeader.getAttribute('aria-expanded').catch(() => null)) === 'true') await chipsHeader.click({ timeout: 5000 }).catch(() => undefined);
  await page.waitForTimeout(500);
  await page.screenshot({ path: path.join(SHOTS, 'token-window-chat.png') });
  lap('UI PASS: @better-edit turns in the Token Window');
  await close();
  process.exit(0);
} catch (err) {
  console.log(`UI (participant) FAIL: ${String(err?.message ?? err).split('\n')[0]}`);
  await page.screenshot({ path: process.env.FAILSHOT || path.join(SHOTS, 'ui-participant-fail.png') }).catch(() => {});
  await close();
  process.exit(1);
}
