/**
 * A batch's locks in one folder (LockGroup): one lock file under every name, each name taken exclusively and
 * released on its own; another writer's lock is never removed; without hard links each name is a lock of its own.
 */
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { CrossProcessLocks, LockGroup, lockFileOf, type LockRecord } from '../../../src/core/files/crossProcessLock';
import { poolCalls, type FsCalls } from '../../../src/core/files/fsCalls';
import { ToolError } from '../../../src/core/errors';
import { spawnSync } from 'node:child_process';

/** A pid that just exited (reaped). */
const deadPid = () => spawnSync(process.execPath, ['-e', '']).pid!;

describe('core/files CrossProcessLocks LockGroup', function () {
  this.timeout(30_000);
  let ws: string;
  const at = (name: string) => path.join(ws, name);
  const ino = (target: string) => fs.lstatSync(lockFileOf(target)).ino;
  const record = (target: string) => JSON.parse(fs.readFileSync(lockFileOf(target), 'utf8')) as LockRecord;
  beforeEach(() => (ws = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'be-lockgroup-')))));
  afterEach(() => fs.rmSync(ws, { recursive: true, force: true }));

  it('the names of a group are one lock file, each taken exclusively (another writer waits), each removed on release', async () => {
    const locks = new CrossProcessLocks();
    const group = new LockGroup();
    const targets = ['a', 'b', 'c'].map(at);
    const releases = await Promise.all(targets.map((t) => locks.tryAcquire(t, ws, poolCalls, group)));
    assert.ok(releases.every((r) => r !== undefined));
    assert.equal(new Set(targets.map(ino)).size, 1, 'one inode');
    assert.equal(fs.lstatSync(lockFileOf(targets[1])).nlink, 3);
    assert.equal(record(targets[2]).pid, process.pid, 'every name reads as a lock with its owner');
    const other = new CrossProcessLocks({ timeoutMs: 200 });
    assert.equal(await other.tryAcquire(targets[1]), undefined, 'busy for another writer');
    await assert.rejects(other.acquire(targets[1]), (e: unknown) => e instanceof ToolError && e.code === 'conflict' && e.message.includes(String(process.pid)));
    await releases[1]!();
    assert.deepEqual(fs.readdirSync(ws).sort(), ['.a.be-lock', '.c.be-lock']);
    const b = await other.acquire(targets[1]);
    assert.notEqual(ino(targets[1]), ino(targets[0]), 'taken anew by the other writer: its own lock file');
    await releases[0]!();
    await releases[2]!();
    await b();
    assert.deepEqual(fs.readdirSync(ws), []);
  });

  it("a crashed batch's names are broken one by one, each when its file is wanted", async () => {
    const dead: LockRecord = { pid: deadPid(), start: 0, host: os.hostname(), token: 'dead', path: at('a'), since: 0 };
    fs.writeFileSync(lockFileOf(at('a')), JSON.stringify(dead));
    fs.linkSync(lockFileOf(at('a')), lockFileOf(at('b')));
    const abandoned: string[] = [];
    const release = await new CrossProcessLocks({ onAbandoned: async (o) => void abandoned.push(o.path) }).acquire(at('b'));
    assert.deepEqual(abandoned, [at('a')], 'the dead owner cleaned up after (in the folder of its record)');
    assert.equal(record(at('a')).token, 'dead', 'the name not wanted is left as it was');
    await release();
    assert.deepEqual(fs.readdirSync(ws), ['.a.be-lock']);
  });

  it("a name of the group broken and made anew by another writer is that writer's: the group's release leaves it", async () => {
    const group = new LockGroup();
    const locks = new CrossProcessLocks();
    const [a, b] = await Promise.all([at('a'), at('b')].map((t) => locks.tryAcquire(t, ws, poolCalls, group)));
    fs.unlinkSync(lockFileOf(at('b'))); // judged abandoned by another writer, which then takes the lock
    const other = await new CrossProcessLocks().acquire(at('b'));
    const theirs = record(at('b')).token;
    await a!();
    await b!();
    assert.deepEqual(fs.readdirSync(ws), ['.b.be-lock']);
    assert.equal(record(at('b')).token, theirs);
    await other();
    assert.deepEqual(fs.readdirSync(ws), []);
  });

  it("the group's name to link from made anew by another writer: the next name is a lock file of its own, not a link to theirs", async () => {
    const group = new LockGroup();
    const locks = new CrossProcessLocks();
    const a = await locks.tryAcquire(at('a'), ws, poolCalls, group);
    fs.unlinkSync(lockFileOf(at('a')));
    const other = await new CrossProcessLocks().acquire(at('a'));
    const b = await locks.tryAcquire(at('b'), ws, poolCalls, group);
    assert.ok(b);
    assert.notEqual(ino(at('b')), ino(at('a')));
    assert.equal(record(at('b')).path, at('b'));
    assert.equal(fs.lstatSync(lockFileOf(at('a'))).nlink, 1, 'no link left to the other writer\'s lock');
    await a!();
    await b();
    assert.deepEqual(fs.readdirSync(ws), ['.a.be-lock'], "the other writer's lock stays");
    await other();
  });

  it('without hard links (link refused) each name of the group is a lock file of its own', async () => {
    const noLinks: FsCalls = { ...poolCalls, link: () => Promise.reject(Object.assign(new Error('EPERM: operation not permitted'), { code: 'EPERM' })) };
    const group = new LockGroup();
    const locks = new CrossProcessLocks();
    const releases = await Promise.all(['a', 'b', 'c'].map((n) => locks.tryAcquire(at(n), ws, noLinks, group)));
    assert.equal(new Set(['a', 'b', 'c'].map((n) => ino(at(n)))).size, 3);
    assert.ok(['a', 'b', 'c'].every((n) => record(at(n)).path === at(n)));
    await Promise.all(releases.map((r) => r!()));
    assert.deepEqual(fs.readdirSync(ws), []);
  });

  it('a heartbeat keeps every name of the group fresh', async () => {
    const group = new LockGroup();
    const locks = new CrossProcessLocks({ heartbeatMs: 50 });
    const releases = await Promise.all(['a', 'b'].map((n) => locks.tryAcquire(at(n), ws, poolCalls, group)));
    const t = new Date(Date.now() - 60_000);
    fs.utimesSync(lockFileOf(at('b')), t, t);
    await new Promise((r) => setTimeout(r, 200));
    assert.ok(Date.now() - fs.statSync(lockFileOf(at('b'))).mtimeMs < 1000);
    await Promise.all(releases.map((r) => r!()));
  });
});
