// `npm run test:vscode`: the extension-host suite in desktop VS Code (@vscode/test-electron via @vscode/test-cli,
// config .vscode-test.mjs), under Xvfb when there is no display. Needs to download VS Code from
// update.code.visualstudio.com (a developer laptop, a hosted CI): where that host cannot be reached it prints a SKIP
// banner and exits 0 - the same suite still runs in code-server in the e2e stage (npm run test:e2e).
// Env: VSCODE_VERSION (default stable), VSCODE_PATH (an installed VS Code: no download), TEST_VSCODE_STRICT=1 (a
// skip fails).
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createDemoWorkspace } from '../demo-workspace.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const say = (m) => console.log(`[test:vscode] ${m}`);
function skip(why) {
  console.log('############################################################################');
  console.log('## SKIPPED: npm run test:vscode (desktop VS Code via @vscode/test-electron)');
  console.log(`## ${why}`);
  console.log('## The same extension-host suite runs in code-server: npm run test:e2e');
  console.log('############################################################################');
  process.exit(process.env.TEST_VSCODE_STRICT === '1' ? 1 : 0);
}

if (!process.env.VSCODE_PATH) {
  try {
    const res = await fetch('https://update.code.visualstudio.com/api/releases/stable', { signal: AbortSignal.timeout(15000) });
    if (!res.ok) skip(`update.code.visualstudio.com answered HTTP ${res.status}: VS Code cannot be downloaded here.`);
  } catch (err) {
    skip(`update.code.visualstudio.com cannot be reached (${err.cause?.code ?? err.message}): VS Code cannot be downloaded here.`);
  }
}

// Electron needs a display: Xvfb on a headless Linux machine.
let wrap = [];
if (process.platform === 'linux' && !process.env.DISPLAY) {
  const has = (cmd) => spawnSync('sh', ['-c', `command -v ${cmd}`]).status === 0;
  if (!has('xvfb-run') && process.getuid?.() === 0) {
    say('installing xvfb (apt)…');
    spawnSync('sh', ['-c', 'apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends xvfb xauth'], { stdio: 'ignore' });
  }
  if (!has('xvfb-run')) skip('no display and no xvfb-run (install the xvfb package, or run it on a desktop).');
  wrap = ['xvfb-run', '-a'];
}

say('building the extension and the suite…');
execFileSync(process.execPath, ['esbuild.mjs'], { cwd: root, stdio: 'inherit' });
execFileSync(process.execPath, ['scripts/e2e/build-tests.mjs', path.join(root, '.e2e/out/suite')], { cwd: root, stdio: 'inherit' });
const ws = path.join(root, '.e2e', 'vscode-test', 'ws');
rmSync(ws, { recursive: true, force: true });
mkdirSync(path.dirname(ws), { recursive: true });
createDemoWorkspace(ws);

const bin = path.join(root, 'node_modules/@vscode/test-cli/out/bin.mjs');
if (!existsSync(bin)) skip('@vscode/test-cli is not installed (npm install first).');
const cmd = [...wrap, process.execPath, bin, '--config', path.join(root, '.vscode-test.mjs')];
say(cmd.join(' '));
const r = spawnSync(cmd[0], cmd.slice(1), { cwd: root, stdio: 'inherit', env: { ...process.env, BET_VSCODE_WS: ws } });
process.exit(r.status ?? 1);
