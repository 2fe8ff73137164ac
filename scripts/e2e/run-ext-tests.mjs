// Layer 1: mocha inside the real extension host, started through the smoke-test driver's `payload`.
// Env: PORT, WS, EXT_DEV_PATH (the installed extension folder), TESTS_DIR (folder with index.js exporting run()),
// EXT_ENV (JSON of environment variables for the ext host), TIMEOUT_MS.
import util from 'node:util';
import { AUTHORITY, NOISE, lap, launchBrowser, workbenchUrl } from './common.mjs';

const timeoutMs = Number(process.env.TIMEOUT_MS || 240000);
const payload = [
  ['extensionDevelopmentPath', `vscode-remote://${AUTHORITY}${process.env.EXT_DEV_PATH}`],
  ['extensionTestsPath', `vscode-remote://${AUTHORITY}${process.env.TESTS_DIR}`],
  ['skipWelcome', 'true'],
];
if (process.env.EXT_ENV) payload.push(['extensionEnvironment', process.env.EXT_ENV]);

const browser = await launchBrowser();
let finish;
const exited = new Promise((resolve) => (finish = resolve));
await browser.page.exposeFunction('codeAutomationLog', (type, args) => {
  const line = util.format(...(Array.isArray(args) ? args : [args]));
  if (!NOISE.test(line)) lap(`[${type}] ${line}`);
});
await browser.page.exposeFunction('codeAutomationExit', (code) => finish(code));
lap('opening the workbench with the test payload');
await browser.page.goto(workbenchUrl(process.env.WS, payload));
const timer = setTimeout(() => finish('timeout'), timeoutMs);
const code = await exited;
clearTimeout(timer);
lap(`extension host tests finished: exit ${code}`);
await browser.close();
process.exit(code === 0 ? 0 : 1);
