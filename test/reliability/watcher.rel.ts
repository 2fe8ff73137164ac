/**
 * The CLI's file watcher on a tree with a large node_modules and .git: how many inotify watches it takes (counted by
 * the kernel, /proc/self/fdinfo) and the longest event-loop block while it starts. WATCH_TREE=<folder> measures that
 * folder instead of the generated one, e.g. a checkout of this repository with its node_modules installed.
 */
import assert from 'node:assert/strict';
import { promises as fs, readdirSync, readFileSync, readlinkSync, realpathSync, watch } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { RootWatcher, type WatchTarget } from '../../src/core/context/node/rootWatcher';
import { walkFilesSliced } from '../../src/core/context/node/walk';
import { figure } from './figures';

/** inotify watches this process holds, as the kernel lists them (Linux only). */
function inotifyWatches(): number {
  let n = 0;
  for (const fd of readdirSync('/proc/self/fd')) {
    try {
      if (!readlinkSync(`/proc/self/fd/${fd}`).includes('inotify')) continue;
      n += readFileSync(`/proc/self/fdinfo/${fd}`, 'utf8').split('\n').filter((l) => l.startsWith('inotify wd:')).length;
    } catch {
      // closed meanwhile
    }
  }
  return n;
}

/** The longest gap between 5 ms timer ticks while `work` runs: the worst event-loop block. */
async function longestBlock(work: () => Promise<unknown>): Promise<number> {
  let last = performance.now();
  let worst = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    worst = Math.max(worst, now - last - 5);
    last = now;
  }, 5);
  try {
    await work();
  } finally {
    clearInterval(timer);
  }
  return worst;
}

async function generatedTree(): Promise<string> {
  const root = realpathSync(await fs.mkdtemp(path.join(os.tmpdir(), 'watch-rel-')));
  const put = async (rel: string) => {
    await fs.mkdir(path.dirname(path.join(root, rel)), { recursive: true });
    await fs.writeFile(path.join(root, rel), 'x\n');
  };
  await put('.gitignore');
  await fs.writeFile(path.join(root, '.gitignore'), 'out/\n');
  for (let i = 0; i < 1500; i++) for (let j = 0; j < 10; j++) await put(`node_modules/pkg${i}/lib/f${j}.js`);
  for (let i = 0; i < 256; i++) for (let j = 0; j < 8; j++) await put(`.git/objects/${i.toString(16).padStart(2, '0')}/o${j}`);
  for (let i = 0; i < 200; i++) await put(`out/gen${i}.js`);
  for (let i = 0; i < 40; i++) for (let j = 0; j < 10; j++) await put(`src/m${i}/f${j}.ts`);
  return root;
}

const silent: WatchTarget = { invalidate() {}, setWatched() {} };

(process.platform === 'linux' ? describe : describe.skip)('reliability/watcher: startup on a tree with a large node_modules', function () {
  let root: string;
  let generated = false;
  before(async function () {
    this.timeout(600_000);
    if (process.env.WATCH_TREE) root = realpathSync(process.env.WATCH_TREE);
    else {
      root = await generatedTree();
      generated = true;
    }
  });
  after(async () => {
    if (generated) await fs.rm(root, { recursive: true, force: true });
  });

  it('watches only what the overview walks, and never blocks the event loop > 100 ms', async () => {
    const walked = (await walkFilesSliced(root)).files.length;
    const before = inotifyWatches();
    let w!: RootWatcher;
    const t0 = performance.now();
    const block = await longestBlock(async () => {
      w = new RootWatcher([root], silent);
      assert.equal(await w.ready, true);
    });
    const readyMs = performance.now() - t0;
    const watches = inotifyWatches() - before;
    try {
      figure('watcher: files the overview walks', walked, 'reference');
      figure('watcher: inotify watches', watches, `<= walked files + folders (${walked} files)`);
      figure('watcher: time to ready (ms)', Math.round(readyMs), 'reference');
      figure('watcher: longest event-loop block while starting (ms)', Math.round(block), '< 100');
      assert.ok(block < 100, `blocked ${block.toFixed(0)} ms`);
      // Files plus their folders; nothing of node_modules or .git.
      assert.ok(watches <= 2 * walked + 10, `${watches} watches for ${walked} walked files`);
      if (generated) assert.ok(watches < 1000, `${watches} watches`);
    } finally {
      await w.close();
    }
    assert.ok(inotifyWatches() - before <= 0, 'close() released every watch');
  });

  it('for comparison: one recursive fs.watch (the previous watcher) on the same tree', async function () {
    if (!generated && !process.env.WATCH_COMPARE) this.skip(); // on a real tree it may exhaust the inotify limit
    const before = inotifyWatches();
    let fsw!: ReturnType<typeof watch>;
    const block = await longestBlock(async () => {
      fsw = watch(root, { recursive: true, persistent: false }, () => {});
      await new Promise((r) => setTimeout(r, 50));
    });
    const watches = inotifyWatches() - before;
    fsw.close();
    figure('fs.watch recursive: inotify watches', watches, 'reference (what the watcher avoids)');
    figure('fs.watch recursive: longest event-loop block (ms)', Math.round(block), 'reference');
  });
});
