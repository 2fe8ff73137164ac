// Renders media/icon-large.svg to the 128×128 PNG the Marketplace needs (vsce rejects SVG icons).
// Uses playwright-core (devDependency) + Debian chromium: node scripts/make-icon.mjs
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const { chromium } = createRequire(import.meta.url)('playwright-core');
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu'] });
const page = await browser.newPage({ viewport: { width: 128, height: 128 } });
await page.setContent(`<html><body style="margin:0;background:transparent">${readFileSync('media/icon-large.svg', 'utf8')}</body></html>`);
await page.locator('svg').screenshot({ path: 'media/icon.png', omitBackground: true });
await browser.close();
