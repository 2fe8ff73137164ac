import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { NodeFileStore } from '../../../src/core/files/nodeFileStore';
import { Sandbox } from '../../../src/core/files/sandbox';
import { EditService } from '../../../src/core/edits/service';
import { ToolError } from '../../../src/core/errors';

const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
const posix = process.platform !== 'win32';

/**
 * Runs `fn` while a 10 ms timer measures how late the event loop gets; returns the worst lateness. A late tick is a
 * block only while this process ran: on a loaded machine (or beside a parallel test worker) it may just wait for a
 * core, so a gap counts as the smaller of its wall time and the CPU time the process used in it.
 */
async function worstTimerDelay(fn: () => Promise<void>): Promise<number> {
  let worst = 0;
  let last = performance.now();
  let lastCpu = process.cpuUsage();
  const t = setInterval(() => {
    const now = performance.now();
    const cpu = process.cpuUsage(lastCpu);
    worst = Math.max(worst, Math.min(now - last, (cpu.user + cpu.system) / 1000) - 10);
    last = now;
    lastCpu = process.cpuUsage();
  }, 10);
  try {
    await fn();
  } finally {
    clearInterval(t);
  }
  return worst;
}

const refused = (kind: RegExp) => (e: unknown) =>
  e instanceof ToolError && e.code === 'invalid_argument' && kind.test(e.message) && /only open regular files/.test(e.message);

describe('core/files: pipes, devices and endless files are never opened or read without limit', function () {
  this.timeout(20_000);
  let dir: string;
  let fifo: string;
  const store = new NodeFileStore();
  before(function () {
    if (!posix) this.skip();
  });
  beforeEach(() => {
    dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'be-hostile-')));
    fifo = path.join(dir, 'pipe');
    execFileSync('mkfifo', [fifo]);
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('a FIFO: read, stat and write answer at once with a clear error; the pipe stays', async () => {
    const t0 = performance.now();
    await assert.rejects(store.read(fifo), refused(/a FIFO \(named pipe\)/));
    await assert.rejects(store.stat(fifo), refused(/named pipe/));
    await assert.rejects(store.write(fifo, Buffer.from('x')), refused(/named pipe/));
    assert.ok(performance.now() - t0 < 1000);
    assert.ok(fs.lstatSync(fifo).isFIFO());
  });

  it('many calls on FIFOs do not starve later file I/O (no thread of the pool left blocked in open)', async () => {
    const f = path.join(dir, 'ok.txt');
    fs.writeFileSync(f, 'fine\n');
    const delay = await worstTimerDelay(async () => {
      await Promise.allSettled(Array.from({ length: 12 }, () => store.read(fifo)));
      const t0 = performance.now();
      assert.equal((await store.read(f)).bytes.toString(), 'fine\n');
      assert.ok(performance.now() - t0 < 200, 'a normal read right after');
    });
    assert.ok(delay < 100, `event loop delayed ${delay.toFixed(0)} ms`);
  });

  it('/dev/zero and a character device inside the workspace are refused, not read', async function () {
    await assert.rejects(store.read('/dev/zero'), refused(/character device/));
    await assert.rejects(store.stat('/dev/null'), refused(/character device/));
    if (!isRoot) return; // mknod needs root
    const dev = path.join(dir, 'zero');
    execFileSync('mknod', [dev, 'c', '1', '5']);
    await assert.rejects(store.read(dev), refused(/character device/));
    await assert.rejects(store.write(dev, Buffer.from('x')), refused(/character device/));
    assert.ok(fs.lstatSync(dev).isCharacterDevice(), 'the device node is left alone');
  });

  it('a regular file that reports size 0 but keeps giving bytes is bounded by the bytes actually read', async function () {
    if (process.platform !== 'linux') this.skip();
    const maps = `/proc/${process.pid}/maps`; // a regular file of size 0 with kilobytes of content
    assert.equal(fs.statSync(maps).size, 0);
    await assert.rejects(store.read(maps, { maxBytes: 100 }), (e: unknown) => e instanceof ToolError && e.code === 'too_large');
    const all = await store.read(maps, { maxBytes: 10_000_000 });
    assert.ok(all.bytes.length > 100);
  });

  it('a file over maxBytes is refused before it is read', async () => {
    const f = path.join(dir, 'big.txt');
    fs.writeFileSync(f, Buffer.alloc(5000, 'a'));
    await assert.rejects(store.read(f, { maxBytes: 4999 }), (e: unknown) => e instanceof ToolError && e.code === 'too_large' && /4999-byte limit/.test(e.message));
    assert.equal((await store.read(f, { maxBytes: 5000 })).bytes.length, 5000);
  });

  it('through the edit tools: FIFOs, devices and links to them give a clear error within 2 s, timers stay on time', async () => {
    const root = path.join(dir, 'root');
    fs.mkdirSync(root);
    fs.renameSync(fifo, path.join(root, 'pipe'));
    fs.symlinkSync('pipe', path.join(root, 'link-to-pipe'));
    fs.symlinkSync('/dev/zero', path.join(root, 'link-to-zero'));
    if (isRoot) execFileSync('mknod', [path.join(root, 'zero'), 'c', '1', '5']);
    fs.writeFileSync(path.join(root, 'ok.txt'), 'a\nb\n');
    const svc = new EditService({ files: store, sandbox: new Sandbox([root]) });
    const names = ['pipe', 'link-to-pipe', ...(isRoot ? ['zero'] : [])];
    const calls = names.flatMap((n) => [
      () => svc.read({ file: n }),
      () => svc.replace({ file: `${n}:1`, content: 'x' }),
      () => svc.insert({ file: `${n}:0`, content: 'x' }),
      () => svc.delete({ file: `${n}:1` }),
      () => svc.write({ file: n, content: 'x' }),
      () => svc.balance({ file: n }),
    ]);
    const delay = await worstTimerDelay(async () => {
      const t0 = performance.now();
      const results = await Promise.allSettled(calls.map((c) => c()));
      assert.ok(performance.now() - t0 < 2000, 'all answered within 2 s');
      for (const r of results) {
        assert.equal(r.status, 'rejected');
        const e = (r as PromiseRejectedResult).reason;
        assert.ok(refused(/named pipe|character device/)(e), String(e));
      }
      await assert.rejects(svc.read({ file: 'link-to-zero' }), (e: unknown) => e instanceof ToolError && e.code === 'outside_roots');
      assert.equal((await svc.read({ file: 'ok.txt' })).total, 2, 'later I/O is not starved');
    });
    assert.ok(delay < 100, `event loop delayed ${delay.toFixed(0)} ms`);
    assert.ok(fs.lstatSync(path.join(root, 'pipe')).isFIFO(), 'be-write did not replace the pipe');
  });
});
