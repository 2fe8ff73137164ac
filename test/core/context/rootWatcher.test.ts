/** The CLI's file watcher: the walker's skip lists and .gitignore rules decide what is watched and reported. */
import assert from 'node:assert/strict';
import { mkdirSync, promises as fs, realpathSync, rmSync, statSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { RootWatcher, walkIgnoreMatcher, type WatchTarget } from '../../../src/core/context/node/rootWatcher';
import { walkFilesSliced } from '../../../src/core/context/node/walk';

async function write(root: string, rel: string, text = 'x\n'): Promise<string> {
  const p = path.join(root, rel);
  await fs.mkdir(path.dirname(p), { recursive: true });
  await fs.writeFile(p, text);
  return p;
}

class Recorder implements WatchTarget {
  readonly paths: string[] = [];
  watched = false;
  invalidate(abs: string): void {
    this.paths.push(abs);
  }
  setWatched(on: boolean): void {
    this.watched = on;
  }
  async waitFor(abs: string, ms = 3000): Promise<void> {
    const deadline = Date.now() + ms;
    while (!this.paths.includes(abs)) {
      if (Date.now() > deadline) throw new Error(`no event for ${abs}; got ${JSON.stringify(this.paths)}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }
}

/** The folders the watcher has a watch on, relative to the root ('' for the root). */
function watchedPaths(w: RootWatcher, root: string): string[] {
  return w.watchedFolders().map((dir) => path.relative(root, dir).split(path.sep).join('/'));
}

describe('context/rootWatcher', () => {
  let root: string;
  beforeEach(async () => {
    root = realpathSync(await fs.mkdtemp(path.join(os.tmpdir(), 'root-watcher-')));
    await write(root, '.gitignore', 'generated/\n*.log\n');
    await write(root, 'src/a.ts', 'export const a = 1;\n');
    await write(root, 'src/logo.png', 'not really a png');
    await write(root, 'package-lock.json', '{}\n');
    await write(root, 'debug.log');
    await write(root, 'generated/out.ts');
    await write(root, 'lib/.gitignore', 'private/\n');
    await write(root, 'lib/private/secret.ts');
    await write(root, 'lib/pub.ts');
    for (let i = 0; i < 30; i++) await write(root, `node_modules/pkg${i}/index.js`);
    await write(root, '.git/objects/ab/cdef');
    await write(root, 'dist/cli.js');
  });
  afterEach(() => fs.rm(root, { recursive: true, force: true }));

  it('the matcher ignores exactly what the overview walker leaves out', async () => {
    const { ignored } = walkIgnoreMatcher(root);
    const walked = new Set((await walkFilesSliced(root)).files.map((f) => f.rel));
    const all = ['.gitignore', 'src/a.ts', 'src/logo.png', 'package-lock.json', 'debug.log', 'generated', 'generated/out.ts', 'lib/.gitignore',
      'lib/private', 'lib/private/secret.ts', 'lib/pub.ts', 'node_modules', 'node_modules/pkg1/index.js', '.git', '.git/objects/ab/cdef', 'dist', 'dist/cli.js'];
    for (const rel of all) {
      const abs = path.join(root, rel);
      const stats = statSync(abs);
      if (stats.isFile()) assert.equal(ignored(abs, stats), !walked.has(rel), rel);
      else assert.equal(ignored(abs, stats), !['src', 'lib'].includes(rel), rel);
    }
    assert.equal(ignored(root), false);
    assert.equal(ignored(path.dirname(root)), false, 'outside the root: not ours to judge');
  });

  it('watches no skipped or git-ignored folder and reports changes only where the walker looks', async () => {
    const target = new Recorder();
    const w = new RootWatcher([root], target);
    try {
      assert.equal(await w.ready, true);
      assert.equal(target.watched, true);
      const watched = watchedPaths(w, root);
      for (const bad of ['node_modules', '.git', 'dist', 'generated', 'lib/private', 'debug.log', 'src/logo.png', 'package-lock.json']) {
        assert.ok(!watched.some((p) => p === bad || p.startsWith(bad + '/')), `${bad} is watched: ${watched.join(', ')}`);
      }
      // folders only: a folder's watch reports its files
      assert.deepEqual(watched.sort(), ['', 'lib', 'src']);
      assert.equal(w.watchedCount(), 3);
      target.paths.length = 0; // the catch-up invalidation of `ready`

      await fs.appendFile(path.join(root, 'node_modules/pkg1/index.js'), 'y\n');
      await fs.appendFile(path.join(root, 'generated/out.ts'), 'y\n');
      const changed = path.join(root, 'src/a.ts');
      await fs.appendFile(changed, 'export const b = 2;\n');
      await target.waitFor(changed);
      const added = await write(root, 'lib/new.ts');
      await target.waitFor(added);
      await new Promise((r) => setTimeout(r, 200));
      assert.deepEqual(target.paths.filter((p) => /node_modules|generated/.test(p)), []);
    } finally {
      await w.close();
    }
    assert.equal(target.watched, false);
  });

  it('a changed .gitignore applies to folders created after it', async () => {
    const target = new Recorder();
    const w = new RootWatcher([root], target);
    try {
      assert.equal(await w.ready, true);
      const gi = path.join(root, '.gitignore');
      await fs.appendFile(gi, 'tmp/\n');
      await target.waitFor(gi);
      await write(root, 'tmp/scratch.ts');
      const visible = await write(root, 'src/visible.ts');
      await target.waitFor(visible);
      await new Promise((r) => setTimeout(r, 200));
      assert.deepEqual(target.paths.filter((p) => path.relative(root, p).startsWith('tmp')), []);
      assert.ok(!watchedPaths(w, root).some((p) => p.startsWith('tmp')));
    } finally {
      await w.close();
    }
  });

  it('a folder made after ready is watched (and reported), files in it are reported; a folder deleted takes its watches', async () => {
    const target = new Recorder();
    const w = new RootWatcher([root], target);
    try {
      assert.equal(await w.ready, true);
      const made = path.join(root, 'src/new/deep');
      await fs.mkdir(made, { recursive: true });
      await target.waitFor(path.join(root, 'src/new'));
      for (let i = 0; i < 150 && !watchedPaths(w, root).includes('src/new/deep'); i++) await new Promise((r) => setTimeout(r, 20));
      assert.ok(watchedPaths(w, root).includes('src/new/deep'), watchedPaths(w, root).join(', '));
      const file = await write(root, 'src/new/deep/f.ts');
      await target.waitFor(file);
      // a staged write landing by rename is a change of the target
      await fs.writeFile(path.join(root, 'src/new/deep/f.ts.tmp'), 'y\n');
      target.paths.length = 0;
      await fs.rename(path.join(root, 'src/new/deep/f.ts.tmp'), file);
      await target.waitFor(file);
      await fs.rm(path.join(root, 'src/new'), { recursive: true });
      await target.waitFor(path.join(root, 'src/new'));
      for (let i = 0; i < 150 && watchedPaths(w, root).some((p) => p.startsWith('src/new')); i++) await new Promise((r) => setTimeout(r, 20));
      assert.deepEqual(watchedPaths(w, root).sort(), ['', 'lib', 'src']);
    } finally {
      await w.close();
    }
    assert.equal(w.watchedCount(), 0);
  });

  /** Waits until the watcher's folders satisfy `ok`. */
  const until = async (ok: () => boolean, what: string) => {
    for (let i = 0; i < 150 && !ok(); i++) await new Promise((r) => setTimeout(r, 20));
    assert.ok(ok(), what);
  };

  /**
   * Writes `file` again every 20 ms until the watcher reports it: the folder's watch is up (a write before it is
   * reported by nothing). Fails when the deadline passes first.
   */
  const writeUntilReported = async (target: Recorder, file: string, ms = 3000) => {
    const deadline = Date.now() + ms;
    for (let i = 0; !target.paths.includes(file); i++) {
      assert.ok(Date.now() < deadline, `${file} never reported: its folder is not watched; got ${JSON.stringify(target.paths)}`);
      await fs.writeFile(file, `${i}\n`);
      await new Promise((r) => setTimeout(r, 20));
    }
  };

  it('a folder deleted and made again under the same name is watched again (the old watch went with the old folder)', async () => {
    const target = new Recorder();
    const w = new RootWatcher([root], target);
    try {
      assert.equal(await w.ready, true);
      const dir = path.join(root, 'src');
      await fs.rm(dir, { recursive: true });
      await fs.mkdir(dir);
      await writeUntilReported(target, path.join(dir, 'again.ts'));
    } finally {
      await w.close();
    }
  });

  it('a folder made again with the old inode number is watched again (ext4 reuses a freed number at once)', async () => {
    const target = new Recorder();
    const w = new RootWatcher([root], target);
    try {
      assert.equal(await w.ready, true);
      const dir = path.join(root, 'src');
      let reused = 0;
      for (let round = 0; round < 8; round++) {
        const before = statSync(dir).ino;
        // in one turn of the loop: the parent's delete and create events are both looked at once the new folder is
        // there, so only its inode number can tell it from the old one
        rmSync(dir, { recursive: true });
        mkdirSync(path.join(dir, 'inner'), { recursive: true });
        if (statSync(dir).ino === before) reused++;
        await writeUntilReported(target, path.join(dir, `again${round}.ts`));
        await writeUntilReported(target, path.join(dir, 'inner', `again${round}.ts`));
      }
      // (where numbers are never reused at once, as on tmpfs or APFS, the rounds pass either way)
      if (reused === 0) console.log('      (no inode number reused on this file system)');
    } finally {
      await w.close();
    }
  });

  it('a .gitignore edit that stops ignoring a folder watches it; one that starts ignoring a folder drops its watch', async () => {
    const target = new Recorder();
    const w = new RootWatcher([root], target);
    try {
      assert.equal(await w.ready, true);
      assert.ok(!watchedPaths(w, root).includes('generated'));
      await fs.writeFile(path.join(root, '.gitignore'), '*.log\nlib/\n');
      await until(() => watchedPaths(w, root).includes('generated'), `generated watched: ${watchedPaths(w, root).join(', ')}`);
      await until(() => !watchedPaths(w, root).some((p) => p.startsWith('lib')), `lib unwatched: ${watchedPaths(w, root).join(', ')}`);
      target.paths.length = 0;
      const file = await write(root, 'generated/new.ts');
      await target.waitFor(file);
    } finally {
      await w.close();
    }
  });

  it('a FIFO named .gitignore is not opened: the scan finishes and the rest is watched', async function () {
    if (process.platform === 'win32') this.skip();
    const { execFileSync } = await import('node:child_process');
    await fs.rm(path.join(root, 'lib/.gitignore'));
    execFileSync('mkfifo', [path.join(root, 'lib/.gitignore')]);
    const target = new Recorder();
    const w = new RootWatcher([root], target);
    try {
      assert.equal(await Promise.race([w.ready, new Promise((r) => setTimeout(() => r('hung'), 3000))]), true);
      assert.ok(watchedPaths(w, root).includes('lib/private'), 'no rules read from the FIFO');
    } finally {
      await w.close();
    }
  });

  it('close() before ready (stat or scan still running) resolves ready with false and leaves the target unwatched', async () => {
    // a tree big enough that the scan is still running when the first folders are watched, even on a loaded machine
    for (let i = 0; i < 600; i++) await write(root, `src/d${i}/f.ts`);
    for (const duringScan of [false, true]) {
      const target = new Recorder();
      let readyAt: boolean | undefined;
      const w = new RootWatcher([root], target);
      void w.ready.then((r) => (readyAt = r));
      if (duringScan) {
        // the scan's stat calls run on the thread pool: poll with short timers, not immediates (which starve them)
        for (let i = 0; i < 5000 && w.watchedCount() === 0 && readyAt === undefined; i++) await new Promise((r) => setTimeout(r, 1));
        assert.ok(w.watchedCount() > 0 && readyAt === undefined, 'caught the scan in progress');
      }
      await w.close();
      assert.equal(await Promise.race([w.ready, new Promise((r) => setTimeout(() => r('hung'), 2000))]), false);
      assert.equal(target.watched, false);
      assert.equal(w.watching, false);
    }
  });
});
