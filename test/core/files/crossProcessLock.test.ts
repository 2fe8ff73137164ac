import { strict as assert } from 'node:assert';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { CrossProcessLocks, lockFileOf, type LockRecord } from '../../../src/core/files/crossProcessLock';
import { currentOwner, isOwnerAlive } from '../../../src/core/files/processIdentity';
import { ToolError } from '../../../src/core/errors';

const SRC = path.resolve(__dirname, '../../../src/core/files');

/** A pid that just exited (reaped), for locks whose owner is dead. */
export function deadPid(): number {
  return spawnSync(process.execPath, ['-e', '']).pid!;
}

function child(dir: string, body: string, env: Record<string, string> = {}): ChildProcess {
  const script = path.join(dir, `child-${Math.random().toString(36).slice(2)}.ts`);
  fs.writeFileSync(
    script,
    `import { CrossProcessLocks } from ${JSON.stringify(path.join(SRC, 'crossProcessLock'))};\n` +
      `import * as fs from 'node:fs';\nvoid fs;\n(async () => {\n${body}\n})().catch((e) => { console.error(e); process.exit(1); });\n`,
  );
  return spawn(process.execPath, ['--import', 'tsx', script], { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, ...env } });
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
  let ws: string;
  const host = os.hostname();
  const at = (name: string) => path.join(ws, name);
  const aged = (file: string, ms: number) => {
    const t = new Date(Date.now() - ms);
    fs.utimesSync(file, t, t);
  };
  beforeEach(() => {
    tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'be-lock-')));
    ws = path.join(tmp, 'ws');
    fs.mkdirSync(ws);
  });
  afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it('the lock is a file beside the target, whatever the environment, and is removed on release', async () => {
    const locks = new CrossProcessLocks();
    const target = at('file.txt');
    const release = await locks.acquire(target);
    const file = locks.lockFileOf(target);
    assert.equal(file, path.join(ws, '.file.txt.be-lock'));
    const rec = JSON.parse(fs.readFileSync(file, 'utf8')) as LockRecord;
    assert.equal(rec.pid, process.pid);
    assert.equal(rec.path, target);
    await release();
    await release(); // twice is harmless
    assert.deepEqual(fs.readdirSync(ws), [], 'no lock, temp or claim file left');
  });

  it('a long file name gets a lock name under the usual 255-byte limit, distinct per name', () => {
    const a = lockFileOf(path.join('/w', 'é'.repeat(120) + 'a'));
    const b = lockFileOf(path.join('/w', 'é'.repeat(120) + 'b'));
    assert.notEqual(a, b);
    assert.ok(Buffer.byteLength(path.basename(a)) < 200);
  });

  it('a heartbeat keeps a held lock fresh', async () => {
    const locks = new CrossProcessLocks({ heartbeatMs: 50 });
    const target = at('h.txt');
    const release = await locks.acquire(target);
    aged(locks.lockFileOf(target), 60_000);
    await new Promise((r) => setTimeout(r, 200));
    assert.ok(Date.now() - fs.statSync(locks.lockFileOf(target)).mtimeMs < 1000);
    await release();
  });

  it('a second holder waits for the first (several instances, one process)', async () => {
    const intervals: [number, number][] = [];
    const instances = Array.from({ length: 5 }, () => new CrossProcessLocks());
    await Promise.all(
      instances.map(async (l) => {
        const release = await l.acquire(at('x'));
        const t0 = performance.now();
        await new Promise((r) => setTimeout(r, 15));
        intervals.push([t0, performance.now()]);
        await release();
      }),
    );
    intervals.sort((a, b) => a[0] - b[0]);
    for (let i = 1; i < intervals.length; i++) assert.ok(intervals[i][0] >= intervals[i - 1][1], 'holds never overlap');
  });

  it('real processes with different HOME / XDG_CACHE_HOME: read-increment-write under the lock loses no increment', async () => {
    const counter = at('counter');
    fs.writeFileSync(counter, '0');
    const body = `
      const locks = new CrossProcessLocks();
      for (let i = 0; i < 40; i++) {
        const release = await locks.acquire(${JSON.stringify(counter)});
        const n = Number(fs.readFileSync(${JSON.stringify(counter)}, 'utf8'));
        await new Promise((r) => setImmediate(r));
        fs.writeFileSync(${JSON.stringify(counter)}, String(n + 1));
        await release();
      }`;
    const kids = [0, 1, 2].map((i) => child(tmp, body, { HOME: path.join(tmp, `home${i}`), XDG_CACHE_HOME: path.join(tmp, `cache${i}`) }));
    assert.deepEqual(await Promise.all(kids.map(exited)), [0, 0, 0]);
    assert.equal(fs.readFileSync(counter, 'utf8'), '120');
    assert.deepEqual(fs.readdirSync(ws), ['counter']);
  });

  it('a lock whose owner died is broken, and the owner is handed to onAbandoned', async () => {
    const target = at('f.txt');
    const kid = child(tmp, `
      const locks = new CrossProcessLocks();
      await locks.acquire(${JSON.stringify(target)});
      process.exit(0); // crash while holding it`);
    assert.equal(await exited(kid), 0);
    const seen: LockRecord[] = [];
    const locks = new CrossProcessLocks({ timeoutMs: 2000, onAbandoned: async (o) => void seen.push(o) });
    assert.ok(fs.existsSync(locks.lockFileOf(target)), 'the dead owner left its lock');
    const t0 = performance.now();
    const release = await locks.acquire(target);
    assert.ok(performance.now() - t0 < 1000, 'broken at once, not after the timeout');
    assert.equal(seen.length, 1);
    assert.equal(seen[0].pid, kid.pid);
    assert.equal(seen[0].path, target);
    await release();
    assert.deepEqual(fs.readdirSync(ws), []);
  });

  it('a live owner is waited for, then the wait ends with an error naming it; its exit frees the lock', async () => {
    const target = at('g.txt');
    const kid = child(tmp, `
      const locks = new CrossProcessLocks();
      await locks.acquire(${JSON.stringify(target)});
      console.log('held');
      setTimeout(() => {}, 60_000);`);
    try {
      assert.equal(await firstLine(kid), 'held');
      const locks = new CrossProcessLocks({ timeoutMs: 300 });
      const t0 = performance.now();
      await assert.rejects(
        locks.acquire(target),
        (e: unknown) => e instanceof ToolError && e.code === 'conflict' && e.message.includes(`process ${kid.pid}`) && /nothing was changed/.test(e.message),
      );
      assert.ok(performance.now() - t0 < 1500);
      kid.kill('SIGKILL');
      await exited(kid);
      const release = await new CrossProcessLocks({ timeoutMs: 2000 }).acquire(target);
      await release();
    } finally {
      kid.kill('SIGKILL');
    }
  });

  it('a pid that now belongs to another process (start time differs) is a dead owner', async function () {
    if (process.platform !== 'linux') this.skip();
    const locks = new CrossProcessLocks({ timeoutMs: 1000 });
    const stale: LockRecord = { ...currentOwner(), start: currentOwner().start + 1, host, token: 'old', path: at('y'), since: 0 };
    assert.equal(await isOwnerAlive(stale), false);
    fs.writeFileSync(locks.lockFileOf(at('y')), JSON.stringify(stale));
    await (await locks.acquire(at('y')))();
  });

  describe('records that cannot be checked (another host, pid 1, no start time, another pid namespace)', () => {
    const forms: [string, (t: string) => Partial<LockRecord>][] = [
      ['another host', () => ({ host: 'elsewhere.example', pid: 4242, start: 99 })],
      ['pid 1', () => ({ pid: 1, start: 1 })],
      ['start 0 on a live pid', () => ({ pid: process.ppid, start: 0 })],
      ['another pid namespace', () => ({ pid: process.ppid, start: 5, pidns: 'pid:[1]' })],
    ];
    for (const [name, form] of forms) {
      it(`${name}: waited for while its heartbeat is fresh, with a true one-line fix; broken once stale`, async () => {
        const target = at('u.txt');
        const locks = new CrossProcessLocks({ timeoutMs: 300, staleMs: 2_000 });
        const file = locks.lockFileOf(target);
        fs.writeFileSync(file, JSON.stringify({ ...currentOwner(), host, token: 'unk', path: target, since: Date.now(), ...form(target) }));
        const t0 = performance.now();
        await assert.rejects(locks.acquire(target), (e: unknown) => {
          assert.ok(e instanceof ToolError && e.code === 'conflict', String(e));
          assert.match(e.message, /cannot check; waited 0 s for it, nothing was changed\. Retry in 2 s: such a lock counts as abandoned 2 s after/);
          assert.doesNotMatch(e.message, /end it/, 'never tells the user to end a process it cannot see');
          return true;
        });
        assert.ok(performance.now() - t0 < 1500, 'a bounded wait');
        aged(file, 3_000);
        const t1 = performance.now();
        const release = await locks.acquire(target);
        assert.ok(performance.now() - t1 < 500, 'a stale unverifiable lock is broken at once');
        await release();
        assert.deepEqual(fs.readdirSync(ws), []);
      });
    }

    it('with the default bounds an abandoned record of another host frees the file within the default wait', async () => {
      const target = at('v.txt');
      const locks = new CrossProcessLocks();
      fs.writeFileSync(locks.lockFileOf(target), JSON.stringify({ pid: 7, start: 3, host: 'gone.example', token: 't', path: target, since: 0 }));
      aged(locks.lockFileOf(target), 11_000);
      await (await locks.acquire(target))();
    });
  });

  it('a FIFO, a link or a folder at the lock path: a quick clear error with the command that clears it', async function () {
    if (process.platform === 'win32') this.skip();
    const locks = new CrossProcessLocks({ timeoutMs: 5_000 });
    const outside = path.join(tmp, 'outside');
    fs.writeFileSync(outside, 'keep');
    const makers: [string, (p: string) => void][] = [
      ['a FIFO', (p) => spawnSync('mkfifo', [p])],
      ['a symbolic link', (p) => fs.symlinkSync(outside, p)],
      ['a directory', (p) => fs.mkdirSync(p)],
    ];
    for (const [kind, make] of makers) {
      const target = at(`k${kind.length}.txt`);
      const file = locks.lockFileOf(target);
      make(file);
      const t0 = performance.now();
      await assert.rejects(locks.acquire(target), (e: unknown) => {
        assert.ok(e instanceof ToolError, String(e));
        assert.ok(e.message.includes(`${file} is ${kind}`) && e.message.includes(`not a lock file; nothing was changed. Remove it (${kind === 'a directory' ? 'rm -r' : 'rm'} "${file}")`), e.message);
        return true;
      });
      assert.ok(performance.now() - t0 < 1000, `${kind}: answered at once`);
      fs.rmSync(file, { recursive: true });
      await (await locks.acquire(target))();
    }
    assert.equal(fs.readFileSync(outside, 'utf8'), 'keep');
  });

  it('an unreadable lock is waited for while young (being written), broken once old', async () => {
    const locks = new CrossProcessLocks({ timeoutMs: 300 });
    const file = locks.lockFileOf(at('z'));
    fs.writeFileSync(file, '');
    // the error says what holds it and when it gives way, not "another process"
    await assert.rejects(
      locks.acquire(at('z')),
      (e: unknown) => e instanceof ToolError && e.code === 'conflict' && /without an owner record yet .*abandoned 5 s after it was made: retry in 5 s/.test(e.message),
    );
    aged(file, 60_000);
    await (await locks.acquire(at('z')))();
  });

  it('a target whose folder does not exist yet: no lock file, no error', async () => {
    const release = await new CrossProcessLocks().acquire(path.join(ws, 'new', 'f.txt'));
    await release();
    assert.deepEqual(fs.readdirSync(ws), []);
  });

  it('many waiters breaking one dead lock: exactly one holds it at a time', async () => {
    const dead: LockRecord = { pid: deadPid(), start: 0, host, token: 'dead', path: at('w'), since: 0 };
    fs.writeFileSync(lockFileOf(at('w')), JSON.stringify(dead));
    let inside = 0;
    let most = 0;
    let abandoned = 0;
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        const l = new CrossProcessLocks({ onAbandoned: async () => void abandoned++ });
        const release = await l.acquire(at('w'));
        most = Math.max(most, ++inside);
        await new Promise((r) => setTimeout(r, 5));
        inside--;
        await release();
      }),
    );
    assert.equal(most, 1);
    assert.equal(abandoned, 1, 'the dead owner is cleaned up after once');
    assert.deepEqual(fs.readdirSync(ws), []);
  });

  it('sweepDir breaks the dead and stale locks of a folder, and leaves live ones', async () => {
    fs.writeFileSync(lockFileOf(at('dead')), JSON.stringify({ pid: deadPid(), start: 0, host, token: 'a', path: at('dead'), since: 0 }));
    fs.writeFileSync(lockFileOf(at('far')), JSON.stringify({ pid: 9, start: 9, host: 'far.example', token: 'c', path: at('far'), since: 0 }));
    aged(lockFileOf(at('far')), 60_000);
    const live = await new CrossProcessLocks().acquire(at('live'));
    assert.equal(await new CrossProcessLocks().sweepDir(ws), 2);
    assert.deepEqual(fs.readdirSync(ws), ['.live.be-lock']);
    await live();
  });

  it('sweepDir never breaks a lock its own process holds, even one whose record reads as abandoned; released, it is swept', async () => {
    const locks = new CrossProcessLocks();
    const release = await locks.acquire(at('mine'));
    // what an abandoned lock looks like: a record that does not parse, older than the grace for one being written
    fs.writeFileSync(lockFileOf(at('mine')), 'garbage');
    aged(lockFileOf(at('mine')), 60_000);
    assert.equal(await locks.sweepDir(ws), 0);
    assert.deepEqual(fs.readdirSync(ws), ['.mine.be-lock']);
    // once released, a lock left at that name (here: as abandoned) is no longer this process's: its sweep breaks it
    await release();
    fs.writeFileSync(lockFileOf(at('mine')), 'garbage');
    aged(lockFileOf(at('mine')), 60_000);
    assert.equal(await locks.sweepDir(ws), 1);
    assert.deepEqual(fs.readdirSync(ws), []);
    // held again: the first hold's release, called a second time, leaves the new hold known as this process's
    const again = await locks.acquire(at('mine'));
    await release();
    fs.writeFileSync(lockFileOf(at('mine')), 'garbage');
    aged(lockFileOf(at('mine')), 60_000);
    assert.equal(await locks.sweepDir(ws), 0);
    await again();
  });

  it("recover() at start breaks dead owners' locks left in the lock folder of earlier versions", async () => {
    const lockDir = path.join(tmp, 'state', 'locks');
    fs.mkdirSync(lockDir, { recursive: true, mode: 0o700 });
    const old = (n: string) => path.join(lockDir, `${'ab'.repeat(20)}${n}.lock`);
    fs.writeFileSync(old('0'), JSON.stringify({ pid: deadPid(), start: 0, host, token: 'a', path: '/dead', since: 0 }));
    fs.writeFileSync(old('1'), JSON.stringify({ ...currentOwner(), host, token: 'b', path: '/live', since: 0 }));
    const seen: string[] = [];
    const broken = await new CrossProcessLocks({ dir: lockDir, onAbandoned: async (o) => void seen.push(o.path) }).recover();
    assert.equal(broken, 1);
    assert.deepEqual(seen, ['/dead']);
    assert.equal(fs.existsSync(old('0')), false);
    assert.equal(fs.existsSync(old('1')), true);
    assert.throws(() => new CrossProcessLocks({ dir: 'relative/locks' }), /absolute/);
  });
});
