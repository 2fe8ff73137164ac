/**
 * First calls as a host makes them: the built stdio server (dist/cli.js) started fresh, `initialize`, `tools/list`,
 * then at once the call: a 4 MB C (or TypeScript data) file's `be-read` in structure mode (the workers start, the grammar loads, the
 * tokenizer's ranks load unless the background load has finished), or a cold `be-overview`. Wall from the request
 * to its reply, and the server's CPU in that time over all its threads (Linux: /proc/PID/stat; NaN elsewhere). The
 * in-process rows of scale.ts run the workers from the TypeScript source through tsx (~0.2-0.5 s more CPU per
 * worker than the built one).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { cSource } from './generate';

const CLI = resolve(__dirname, '../../dist/cli.js');

/** User + system CPU of a process, all threads, in ms. */
function processCpuMs(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12])) * 10; // USER_HZ 100
  } catch {
    return NaN;
  }
}

/** One fresh server's first structure read of a 4 MB file (C by default); undefined without a build. */
export async function firstOutlineOverStdio(file = 'big.c', text: () => string = () => cSource(4_000_000)): Promise<{ wall: number; cpu: number; peakRss: number } | undefined> {
  if (!existsSync(CLI)) return undefined;
  const dir = mkdtempSync(join(tmpdir(), 'bench-ctx-stdio-'));
  const root = join(dir, 'root');
  mkdirSync(root);
  writeFileSync(join(root, file), text());
  try {
    return await firstCallOverStdio(root, join(dir, 'cache'), 'be-read', { file, mode: 'structure' });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The peak resident set of a process so far (Linux: VmHWM in /proc/PID/status, all threads), in MB; NaN elsewhere. */
function peakRssMb(pid: number): number {
  try {
    const m = /^VmHWM:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : NaN;
  } catch {
    return NaN;
  }
}

/**
 * One fresh built server over `root` (its state in `cacheHome`): `initialize`, `tools/list`, then at once the call
 * `name(args)`. Wall from the request to its reply, the server's CPU in that time over all its threads, and the
 * server process's peak RSS (the shipped bundle and workers, as every host runs them) after the reply to the last
 * of the `then` calls made after it.
 */
export async function firstCallOverStdio(
  root: string,
  cacheHome: string,
  name: string,
  args: object,
  then: { name: string; args: object }[] = [],
  env: Record<string, string> = {},
): Promise<{ wall: number; cpu: number; peakRss: number }> {
  const child = spawn(process.execPath, [CLI, '--root', root], { stdio: 'pipe', env: { ...process.env, ...env, XDG_CACHE_HOME: cacheHome } });
  const waiting = new Map<number, (m: { result?: { isError?: boolean } }) => void>();
  let buf = '';
  let nextId = 1;
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (d: string) => {
    buf += d;
    for (let nl = buf.indexOf('\n'); nl >= 0; nl = buf.indexOf('\n')) {
      const line = buf.slice(0, nl);
      buf = buf.slice(nl + 1);
      if (!line.trim()) continue;
      const m = JSON.parse(line) as { id?: number; result?: { isError?: boolean } };
      if (typeof m.id === 'number') waiting.get(m.id)?.(m);
    }
  });
  child.stderr.resume();
  const request = (method: string, params: unknown) =>
    new Promise<{ result?: { isError?: boolean } }>((res, rej) => {
      const id = nextId++;
      const timer = setTimeout(() => rej(new Error(`${method}: no reply in 60 s`)), 60_000);
      waiting.set(id, (m) => (clearTimeout(timer), res(m)));
      child.stdin.write(JSON.stringify({ jsonrpc: '2.0', id, method, params }) + '\n');
    });
  try {
    await request('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'bench-scale', version: '1.0.0' } });
    child.stdin.write(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) + '\n');
    await request('tools/list', {});
    const cpu0 = processCpuMs(child.pid!);
    const t = performance.now();
    const reply = await request('tools/call', { name, arguments: args });
    const wall = performance.now() - t;
    const cpu = processCpuMs(child.pid!) - cpu0;
    if (!reply.result || reply.result.isError) throw new Error(`${name} failed: ${JSON.stringify(reply).slice(0, 300)}`);
    for (const call of then) {
      const r = await request('tools/call', { name: call.name, arguments: call.args });
      if (!r.result || r.result.isError) throw new Error(`${call.name} failed: ${JSON.stringify(r).slice(0, 300)}`);
    }
    return { wall, cpu, peakRss: peakRssMb(child.pid!) };
  } finally {
    child.stdin.end();
    await new Promise((r) => (child.exitCode !== null ? r(undefined) : child.once('exit', r)));
  }
}
