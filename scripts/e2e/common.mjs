// Shared helpers for the e2e Node scripts: playwright-core + Debian chromium against code-server.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
// playwright-core is a devDependency of the extension; PW_DIR may point elsewhere.
const { chromium } = process.env.PW_DIR
  ? createRequire(path.join(process.env.PW_DIR, '/'))('playwright-core')
  : require('playwright-core');

const started = Date.now();
export function lap(msg) {
  console.log(`[${((Date.now() - started) / 1000).toFixed(1)}s] ${msg}`);
}

export const AUTHORITY = `127.0.0.1:${process.env.PORT}`;

export function workbenchUrl(folder, payload) {
  let url = `http://${AUTHORITY}/?folder=${encodeURIComponent(folder)}`;
  if (payload) url += `&payload=${encodeURIComponent(JSON.stringify(payload))}`;
  return url;
}

export async function launchBrowser() {
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'e2e-chromium-'));
  const ctx = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    headless: true,
    viewport: { width: 1400, height: 900 },
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage'],
  });
  const page = ctx.pages()[0] || (await ctx.newPage());
  return {
    page,
    async close() {
      await ctx.close().catch(() => {});
      fs.rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** Known harmless noise of an offline code-server (reference §14). */
export const NOISE = /\[(ChatModelSelection|AgentHost|AccountPolicyGate)|Service Worker|Creating a socket|Resolv(ing|ed) connection token|builtin extensions cache|authentication provider|open-vsx|gallery|ENOTFOUND/;

export const norm = (s) => String(s ?? '').replace(/\s+/g, ' ').trim();

/** Types `text` into the quick input (F1). With a leading '>' it is a command search. Returns the input locator. */
export async function quickOpen(page, text) {
  await page.keyboard.press('Escape');
  await page.keyboard.press('F1');
  const input = page.locator('.quick-input-widget input');
  await input.waitFor({ state: 'visible', timeout: 15000 });
  await input.fill(text);
  return input;
}

/** Runs the command `title` from the command palette once the palette lists it (run: false only finds it). */
export async function palette(page, title, { run = true } = {}) {
  await quickOpen(page, '>' + title);
  await page.locator('.quick-input-widget .monaco-list-row', { hasText: title }).first().waitFor({ timeout: 15000 });
  if (run) await page.keyboard.press('Enter');
}
