import { strict as assert } from 'node:assert';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { CrossProcessLocks, type LockRecord } from '../../../src/core/files/crossProcessLock';
import { currentOwner, isOwnerAlive } from '../../../src/core/files/processIdentity';
import { ToolError } from '../../../src/core/errors';

const SRC = path.resolve(__dirname, '../../../src/core/files');

/** A pid that just exited (reaped), for locks whose owner is dead. */
export function deadPid(): number {
  return spawnSync(process.execPath, ['-e', '']).pid!;
}

function child(dir: string, body: string): ChildProcess {
  const script = path.join(dir, `child-${Math.random().toString(36).slice(2)}.ts`);
  fs.writeFileSync(
    script,
    `import { CrossProcessLocks } from ${JSON.stringify(path.join(SRC, 'crossProcessLock'))};\n` +
      `import * as fs from 'node:fs';\nvoid fs;\n(async () => {\n${body}\n})().catch((e) => { console.error(e); process.exit(1); });\n`,
  );
  return spawn(process.execPath, ['--import', 'tsx', script], { stdio: ['ignore', 'pipe', 'inherit'] });
}

function firstLine(cp: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let buf = '';
    cp.stdout!.on('data', (d) => {
      buf += d;
      if (buf.includes('\n')) resolve(buf.split('\n')[0]);
    });
    cp.on('exit', (code) => reject(new Error(`child exited (${code}) before printing`)));
  });
}

function exited(cp: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => (cp.exitCode !== null ? resolve(cp.exitCode) : cp.on('exit', (c) => resolve(c))));
}

describe('core/files CrossProcessLocks', function () {
  this.timeout(30_000);
  let tmp: string;
  let lockDir: string;
  beforeEach(() => {
    tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'be-lock-')));
    lockDir = path.join(tmp, 'state', 'locks');
  });
  afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it('keeps its lock files private (folder 0700, lock 0600) and removes the lock on release', async () => {
    const locks = new CrossProcessLocks({ dir: lockDir });
    const release = await locks.acquire('/some/file.txt');
    const file = locks.lockFileOf('/some/file.txt');
    assert.equal(fs.statSync(lockDir).mode & 0o777, 0o700);
    assert.equal(fs.statSync(file).mode & 0o777, 0o600);
    const rec = JSON.parse(fs.readFileSync(file, 'utf8')) as LockRecord;
    assert.equal(rec.pid, process.pid);
    assert.equal(rec.path, '/some/file.txt');
    await release();
    assert.equal(fs.existsSync(file), false);
    assert.deepEqual(fs.readdirSync(lockDir), [], 'no temp or claim files left');
  });

  it('a second holder waits for the first (several instances, one process)', async () => {
    const intervals: [number, number][] = [];
    const instances = Array.from({ length: 5 }, () => new CrossProcessLocks({ dir: lockDir }));
    await Promise.all(
      instances.map(async (l) => {
        const release = await l.acquire('/x');
        const t0 = performance.now();
        await new Promise((r) => setTimeout(r, 15));
        intervals.push([t0, performance.now()]);
        await release();
      }),
    );
    intervals.sort((a, b) => a[0] - b[0]);
    for (let i = 1; i < intervals.length; i++) assert.ok(intervals[i][0] >= intervals[i - 1][1], 'holds never overlap');
  });

  it('real processes: read-increment-write under the lock loses no increment', async () => {
    const counter = path.join(tmp, 'counter');
    fs.writeFileSync(counter, '0');
    const body = `
      const locks = new CrossProcessLocks({ dir: ${JSON.stringify(lockDir)} });
      for (let i = 0; i < 40; i++) {
        const release = await locks.acquire(${JSON.stringify(counter)});
        const n = Number(fs.readFileSync(${JSON.stringify(counter)}, 'utf8'));
        await new Promise((r) => setImmediate(r));
        fs.writeFileSync(${JSON.stringify(counter)}, String(n + 1));
        await release();
      }`;
    const kids = [child(tmp, body), child(tmp, body), child(tmp, body)];
    assert.deepEqual(await Promise.all(kids.map(exited)), [0, 0, 0]);
    assert.equal(fs.readFileSync(counter, 'utf8'), '120');
  });

  it('a lock whose owner died is broken, and the owner is handed to onAbandoned', async () => {
    const target = path.join(tmp, 'f.txt');
    const kid = child(tmp, `
      const locks = new CrossProcessLocks({ dir: ${JSON.stringify(lockDir)} });
      await locks.acquire(${JSON.stringify(target)});
      process.exit(0); // crash while holding it`);
    assert.equal(await exited(kid), 0);
    const seen: LockRecord[] = [];
    const locks = new CrossProcessLocks({ dir: lockDir, timeoutMs: 2000, onAbandoned: async (o) => void seen.push(o) });
    assert.ok(fs.existsSync(locks.lockFileOf(target)), 'the dead owner left its lock');
    const t0 = performance.now();
    const release = await locks.acquire(target);
    assert.ok(performance.now() - t0 < 1000, 'broken at once, not after the timeout');
    assert.equal(seen.length, 1);
    assert.equal(seen[0].pid, kid.pid);
    assert.equal(seen[0].path, target);
    await release();
  });

  it('a live owner is waited for, then the wait ends with an error naming it; its exit frees the lock', async () => {
    const target = path.join(tmp, 'g.txt');
    const kid = child(tmp, `
      const locks = new CrossProcessLocks({ dir: ${JSON.stringify(lockDir)} });
      await locks.acquire(${JSON.stringify(target)});
      console.log('held');
      setTimeout(() => {}, 60_000);`);
    try {
      assert.equal(await firstLine(kid), 'held');
      const locks = new CrossProcessLocks({ dir: lockDir, timeoutMs: 300 });
      const t0 = performance.now();
      await assert.rejects(
        locks.acquire(target),
        (e: unknown) => e instanceof ToolError && e.code === 'conflict' && e.message.includes(`process ${kid.pid}`) && /nothing was changed/.test(e.message),
      );
      assert.ok(performance.now() - t0 < 1500);
      kid.kill('SIGKILL');
      await exited(kid);
      const release = await new CrossProcessLocks({ dir: lockDir, timeoutMs: 2000 }).acquire(target);
      await release();
    } finally {
      kid.kill('SIGKILL');
    }
  });

  it('a pid that now belongs to another process (start time differs) is a dead owner', async function () {
    if (process.platform !== 'linux') this.skip();
    const locks = new CrossProcessLocks({ dir: lockDir, timeoutMs: 1000 });
    const stale: LockRecord = { ...currentOwner(), start: currentOwner().start + 1, host: os.hostname(), token: 'old', path: '/y', since: 0 };
    assert.equal(await isOwnerAlive(stale), false);
    fs.mkdirSync(lockDir, { recursive: true, mode: 0o700 });
    fs.writeFileSync(locks.lockFileOf('/y'), JSON.stringify(stale));
    await (await locks.acquire('/y'))();
  });

  it('an unreadable lock is waited for while young (being written), broken once old', async () => {
    const locks = new CrossProcessLocks({ dir: lockDir, timeoutMs: 300 });
    fs.mkdirSync(lockDir, { recursive: true, mode: 0o700 });
    const file = locks.lockFileOf('/z');
    fs.writeFileSync(file, '');
    await assert.rejects(locks.acquire('/z'), (e: unknown) => e instanceof ToolError && e.code === 'conflict');
    const old = new Date(Date.now() - 60_000);
    fs.utimesSync(file, old, old);
    await (await locks.acquire('/z'))();
  });

  it('many waiters breaking one dead lock: exactly one holds it at a time', async () => {
    fs.mkdirSync(lockDir, { recursive: true, mode: 0o700 });
    const dead: LockRecord = { pid: deadPid(), start: 0, host: os.hostname(), token: 'dead', path: '/w', since: 0 };
    const probe = new CrossProcessLocks({ dir: lockDir });
    fs.writeFileSync(probe.lockFileOf('/w'), JSON.stringify(dead));
    let inside = 0;
    let most = 0;
    let abandoned = 0;
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        const l = new CrossProcessLocks({ dir: lockDir, onAbandoned: async () => void abandoned++ });
        const release = await l.acquire('/w');
        most = Math.max(most, ++inside);
        await new Promise((r) => setTimeout(r, 5));
        inside--;
        await release();
      }),
    );
    assert.equal(most, 1);
    assert.equal(abandoned, 1, 'the dead owner is cleaned up after once');
    assert.deepEqual(fs.readdirSync(lockDir), []);
  });

  it('recover() at start breaks dead owners\' locks only', async () => {
    fs.mkdirSync(lockDir, { recursive: true, mode: 0o700 });
    const probe = new CrossProcessLocks({ dir: lockDir });
    const host = os.hostname();
    fs.writeFileSync(probe.lockFileOf('/dead'), JSON.stringify({ pid: deadPid(), start: 0, host, token: 'a', path: '/dead', since: 0 }));
    fs.writeFileSync(probe.lockFileOf('/live'), JSON.stringify({ ...currentOwner(), host, token: 'b', path: '/live', since: 0 }));
    const seen: string[] = [];
    const broken = await new CrossProcessLocks({ dir: lockDir, onAbandoned: async (o) => void seen.push(o.path) }).recover();
    assert.equal(broken, 1);
    assert.deepEqual(seen, ['/dead']);
    assert.equal(fs.existsSync(probe.lockFileOf('/dead')), false);
    assert.equal(fs.existsSync(probe.lockFileOf('/live')), true);
  });

  it('a lock folder removed while the server runs (a cache clean-up) is made again', async () => {
    const locks = new CrossProcessLocks({ dir: lockDir });
    await (await locks.acquire('/a'))();
    fs.rmSync(lockDir, { recursive: true });
    await (await locks.acquire('/a'))();
    assert.equal(fs.statSync(lockDir).mode & 0o777, 0o700);
  });

  it('refuses a lock folder that is not a private directory of this user', async () => {
    fs.mkdirSync(path.join(tmp, 'state'), { recursive: true });
    fs.writeFileSync(lockDir, 'not a folder');
    await assert.rejects(new CrossProcessLocks({ dir: lockDir }).acquire('/a'), (e: unknown) => e instanceof ToolError && e.code === 'io' && /lock folder/.test(e.message));
    assert.throws(() => new CrossProcessLocks({ dir: 'relative/locks' }), /absolute/);
  });
});
