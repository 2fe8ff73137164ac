/** A whole stdio session of the CLI, with or without the fast front (shared by the fast-start tests). */
import { spawn } from 'node:child_process';
import { childEnv, cliArgs, type Workspace } from '../mcp/helpers';

/** Writes `lines` to a fresh CLI, closes stdin, and returns every stdout line (the CLI answers them all, then exits). */
export function session(ws: Workspace, lines: unknown[], fastStart: boolean, timeoutMs = 30000): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const env = { ...childEnv(ws), BET_NO_FAST_START: fastStart ? '0' : '1' };
    const p = spawn(process.execPath, cliArgs(ws), { env, cwd: ws.root, stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    const timer = setTimeout(() => p.kill('SIGKILL'), timeoutMs);
    p.stdout.on('data', (d: Buffer) => (out += d.toString('utf8')));
    p.stderr.on('data', (d: Buffer) => (err += d.toString('utf8')));
    p.on('exit', (code) => {
      clearTimeout(timer);
      if (code !== 0) reject(new Error(`exit ${code}: ${err}`));
      else resolve(out.split('\n').filter((l) => l !== ''));
    });
    p.stdin.end(lines.map((l) => (typeof l === 'string' ? l : JSON.stringify(l)) + '\n').join(''));
  });
}
