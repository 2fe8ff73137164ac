import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import fc from 'fast-check';
import { CrossProcessLocks } from '../../../src/core/files/crossProcessLock';
import { NodeFileStore } from '../../../src/core/files/nodeFileStore';
import { currentOwner } from '../../../src/core/files/processIdentity';
import { sweepDeadTemps, tempBaseName, tempOwner } from '../../../src/core/files/tempFiles';

function deadPid(): number {
  return spawnSync(process.execPath, ['-e', '']).pid!;
}

describe('core/files temp files of crashed writers', () => {
  let dir: string;
  beforeEach(() => (dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'be-temps-')))));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  /** `work/f.txt` (`kept`) and the half-written temp a dead writer left beside it. */
  function deadWriterLeftovers() {
    const work = path.join(dir, 'work');
    fs.mkdirSync(work);
    const target = path.join(work, 'f.txt');
    fs.writeFileSync(target, 'kept\n');
    const dead = { pid: deadPid(), start: 0 };
    fs.writeFileSync(path.join(work, tempBaseName('f.txt', dead)), 'half a write');
    return { work, target, dead };
  }

  it('a temp name records its owner, for any target name, and stays under 255 bytes', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 250 }).filter((s) => !s.includes('/') && !s.includes('\0')), fc.nat(), fc.nat(), (name, pid, start) => {
        const t = tempBaseName(name, { pid, start });
        assert.ok(Buffer.byteLength(t) <= 255, t);
        assert.deepEqual(tempOwner(t), { pid, start });
      }),
    );
    assert.deepEqual(tempOwner('.a.txt.be-123-0123456789ab.tmp'), { pid: 123, start: 0 }, 'the name of earlier versions');
    assert.equal(tempOwner('a.txt.be-123-0123456789ab.tmp'), undefined, 'not hidden: not ours');
    assert.equal(tempOwner('.a.txt.tmp'), undefined);
  });

  it('sweeping removes dead owners\' temps only (live writers, other files and folders stay)', async () => {
    const dead = deadPid();
    const names = {
      dead: tempBaseName('a.txt', { pid: dead, start: 0 }),
      deadOld: `.b.txt.be-${dead}-0123456789ab.tmp`,
      live: tempBaseName('c.txt'),
      other: 'notes.tmp',
    };
    for (const n of Object.values(names)) fs.writeFileSync(path.join(dir, n), 'x');
    fs.mkdirSync(path.join(dir, tempBaseName('d', { pid: dead, start: 0 })));
    // a link named like a dead writer's temp is not one of ours either
    const linked = tempBaseName('e', { pid: dead, start: 0 });
    fs.symlinkSync(path.join(dir, names.other), path.join(dir, linked));
    assert.equal(await sweepDeadTemps(dir), 2);
    const left = fs.readdirSync(dir);
    assert.ok(!left.includes(names.dead) && !left.includes(names.deadOld));
    assert.ok(left.includes(names.live) && left.includes(names.other) && left.includes(linked));
    assert.equal(left.length, 4, 'the folder and the link with a temp-like name stay');
  });

  it('the first write in a folder of 5,000 files lists it once for both sweeps, not entry by entry', async () => {
    for (let i = 0; i < 5000; i++) fs.writeFileSync(path.join(dir, `f${i}.txt`), '');
    const leftover = path.join(dir, tempBaseName('f1.txt', { pid: deadPid(), start: 0 }));
    fs.writeFileSync(leftover, 'half');
    const calls = { readdir: 0, opendir: 0 };
    const { readdir, opendir } = fs.promises;
    fs.promises.readdir = ((...a: Parameters<typeof readdir>) => (calls.readdir++, readdir(...a))) as typeof readdir;
    fs.promises.opendir = ((...a: Parameters<typeof opendir>) => (calls.opendir++, opendir(...a))) as typeof opendir;
    try {
      await new NodeFileStore({ crossProcess: true }).write(path.join(dir, 'f0.txt'), Buffer.from('x'));
    } finally {
      Object.assign(fs.promises, { readdir, opendir });
    }
    // (iterating the entries cost a promise per entry: ~95 ms of the first edit in a folder of 20,000 files)
    assert.deepEqual(calls, { readdir: 1, opendir: 0 });
    assert.equal(fs.existsSync(leftover), false, 'the dead writer\'s temp went all the same');
  });

  it("a folder's sweep lists it while the first write there stages its temp, and leaves that temp alone", async () => {
    const leftover = path.join(dir, tempBaseName('f.txt', { pid: deadPid(), start: 0 }));
    fs.writeFileSync(leftover, 'half');
    const ours = tempBaseName('f.txt').replace(/-[0-9a-f]+\.tmp$/, '-'); // this process's temps of f.txt begin so
    const { readdir } = fs.promises;
    let listedWithOurTemp = false;
    // the listing waits (up to 1 s) for this write's temp to appear: one staged only after the sweep never does
    fs.promises.readdir = (async (...a: Parameters<typeof readdir>) => {
      for (let i = 0; i < 200 && !fs.readdirSync(dir).some((n) => n.startsWith(ours)); i++) await new Promise((r) => setTimeout(r, 5));
      const names = await readdir(...a);
      listedWithOurTemp = (names as unknown[]).some((n) => String(n).startsWith(ours));
      return names;
    }) as typeof readdir;
    try {
      await new NodeFileStore({ crossProcess: true }).write(path.join(dir, 'f.txt'), Buffer.from('new\n'));
    } finally {
      Object.assign(fs.promises, { readdir });
    }
    assert.ok(listedWithOurTemp, 'the sweep listed the folder while the temp was being staged');
    assert.equal(fs.readFileSync(path.join(dir, 'f.txt'), 'utf8'), 'new\n', 'the write landed whole: the sweep left its temp');
    assert.deepEqual(fs.readdirSync(dir), ['f.txt'], "the dead writer's temp went");
  });

  it('the next write in a folder removes a crashed writer\'s temp there', async () => {
    const leftover = path.join(dir, tempBaseName('big.bin', { pid: deadPid(), start: 0 }));
    fs.writeFileSync(leftover, Buffer.alloc(1024));
    await new NodeFileStore().write(path.join(dir, 'other.txt'), Buffer.from('x'));
    assert.equal(fs.existsSync(leftover), false);
    assert.deepEqual(fs.readdirSync(dir), ['other.txt']);
  });

  it('the next write in a folder breaks a dead writer\'s lock beside its file and removes its temps', async () => {
    const { work, target, dead } = deadWriterLeftovers();
    const locks = new CrossProcessLocks();
    fs.writeFileSync(locks.lockFileOf(target), JSON.stringify({ ...dead, host: os.hostname(), token: 't', path: target, since: 0 }));
    // a live writer's temp in the same folder is left alone
    const live = path.join(work, tempBaseName('g.txt', currentOwner()));
    fs.writeFileSync(live, 'in progress');
    await new NodeFileStore({ crossProcess: true }).write(path.join(work, 'other.txt'), Buffer.from('x'));
    assert.deepEqual(fs.readdirSync(work).sort(), ['f.txt', 'other.txt', path.basename(live)].sort());
    assert.equal(fs.readFileSync(target, 'utf8'), 'kept\n');
  });

  it('recover() at start clears a dead writer\'s lock left in the lock folder of earlier versions, and its temps', async () => {
    const lockDir = path.join(dir, 'locks');
    const { work, target, dead } = deadWriterLeftovers();
    fs.mkdirSync(lockDir, { mode: 0o700 });
    fs.writeFileSync(path.join(lockDir, `${'c'.repeat(40)}.lock`), JSON.stringify({ ...dead, host: os.hostname(), token: 't', path: target, since: 0 }));
    await new NodeFileStore({ lockDir }).recover();
    assert.deepEqual(fs.readdirSync(work), ['f.txt']);
    assert.deepEqual(fs.readdirSync(lockDir), []);
  });
});
