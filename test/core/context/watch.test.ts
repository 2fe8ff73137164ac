/** The watcher invalidation path: warm overviews look only at reported paths; the mtime walk is the fallback. */
import assert from 'node:assert/strict';
import { promises as fs, realpathSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { RepoMap } from '../../../src/core/context/repoMap';
import { RootWatcher } from '../../../src/core/context/node/rootWatcher';
import { createServices } from '../../../src/mcp/services';
import { getTokenizer } from '../../../src/core/memory/node/tokenizer';
import { diskReader } from '../../../src/core/context/node/readWalked';
import { diskWalker } from '../../../src/core/context/node/walk';

async function tmpRoot(): Promise<string> {
  return realpathSync(await fs.mkdtemp(path.join(os.tmpdir(), 'ctx-watch-')));
}

async function write(root: string, rel: string, text: string): Promise<string> {
  const p = path.join(root, rel);
  await fs.mkdir(path.dirname(p), { recursive: true });
  await fs.writeFile(p, text);
  return p;
}

/** A later mtime than the cached one, whatever the file system's timestamp resolution. */
async function touch(p: string, text: string): Promise<void> {
  await fs.writeFile(p, text);
  const t = new Date(Date.now() + 5000);
  await fs.utimes(p, t, t);
}

describe('context/watch: invalidation-driven warm overviews', () => {
  let root: string;
  beforeEach(async () => {
    root = await tmpRoot();
    await write(root, 'src/a.ts', 'export function alpha(): number {\n  return 1;\n}\n');
    await write(root, 'src/b.ts', "import { alpha } from './a';\nexport const beta = alpha() + 1;\n");
    await write(root, '.gitignore', 'generated/\n');
  });
  afterEach(() => fs.rm(root, { recursive: true, force: true }));

  it('watched: an unreported change is not seen (no walk), a reported one is re-read alone', async () => {
    const map = new RepoMap(root, { tokenizer: getTokenizer(), reader: diskReader, walker: diskWalker });
    const cold = await map.overview();
    assert.equal(cold.lines, 6); // a.ts 3, b.ts 2, .gitignore 1
    map.setWatched(true);
    await touch(path.join(root, 'src/a.ts'), 'export function alpha(): number {\n  return 1;\n}\n// one more\n');
    assert.equal((await map.overview()).lines, 6, 'without an invalidation the watched map does not stat files');
    assert.equal(map.stats.walks, 1);
    map.invalidate(path.join(root, 'src/a.ts'));
    const parsed = map.stats.parsed;
    const warm = await map.overview();
    assert.equal(warm.lines, 7);
    assert.equal(map.stats.parsed - parsed, 1);
    assert.equal(map.stats.walks, 1);
    assert.equal(map.stats.watchedRefreshes, 2);
  });

  it('watched: a new file joins unless ignored; a vanished temp file costs nothing; a folder event walks', async () => {
    const map = new RepoMap(root, { tokenizer: getTokenizer(), reader: diskReader, walker: diskWalker });
    await map.overview();
    map.setWatched(true);
    map.invalidate(await write(root, 'src/c.ts', 'export const gamma = 3;\n'));
    map.invalidate(await write(root, 'generated/big.ts', 'export const junk = 1;\n'));
    map.invalidate(await write(root, 'node_modules/x/index.js', 'module.exports = 1;\n'));
    map.invalidate(path.join(root, 'src/.a.ts.tmp-123')); // written and renamed away already
    let r = await map.overview();
    assert.equal(r.files, 4, r.text);
    assert.equal(map.stats.walks, 1);
    assert.ok(r.text.includes('src/c.ts'));
    assert.ok(!r.text.includes('generated/'));
    // A removed file leaves the map.
    await fs.rm(path.join(root, 'src/c.ts'));
    map.invalidate(path.join(root, 'src/c.ts'));
    r = await map.overview();
    assert.equal(r.files, 3);
    assert.equal(map.stats.walks, 1);
    // A new folder: the watcher cannot say what is in it, so the map walks.
    await write(root, 'lib/d.ts', 'export const delta = 4;\n');
    map.invalidate(path.join(root, 'lib'));
    r = await map.overview();
    assert.equal(r.files, 4);
    assert.equal(map.stats.walks, 2);
  });

  it('a body-only change keeps the ranking (no graph update); a new export updates it', async () => {
    const map = new RepoMap(root, { tokenizer: getTokenizer(), reader: diskReader, walker: diskWalker });
    await map.overview();
    map.setWatched(true);
    const builds = map.stats.fullGraphBuilds + map.stats.partialGraphUpdates;
    await touch(path.join(root, 'src/a.ts'), 'export function alpha(): number {\n  return 10 *\n    2;\n}\n');
    map.invalidate(path.join(root, 'src/a.ts'));
    const kept = await map.overview();
    assert.equal(map.stats.fullGraphBuilds + map.stats.partialGraphUpdates, builds);
    assert.match(kept.text, /src\/a\.ts 4L/, 'the kept ranking shows the fresh line count');
    await touch(path.join(root, 'src/a.ts'), 'export function alpha(): number {\n  return 1;\n}\nexport function alphaTwo(): number {\n  return 2;\n}\n');
    map.invalidate(path.join(root, 'src/a.ts'));
    await map.overview();
    assert.equal(map.stats.fullGraphBuilds + map.stats.partialGraphUpdates, builds + 1, JSON.stringify(map.stats));
  });

  it('without a watcher (or after it stopped) every refresh walks and compares mtimes', async () => {
    const map = new RepoMap(root, { tokenizer: getTokenizer(), reader: diskReader, walker: diskWalker });
    await map.overview();
    map.setWatched(true);
    await touch(path.join(root, 'src/b.ts'), "import { alpha } from './a';\nexport const beta = alpha() + 1;\nexport const more = 2;\n");
    map.setWatched(false);
    const r = await map.overview();
    assert.equal(r.lines, 7);
    assert.equal(map.stats.walks, 2);
  });

  it('createServices watches the roots once the first overview ran: a change on disk reaches the overview without a walk', async () => {
    const base = await tmpRoot();
    const logs: string[] = [];
    const svc = await createServices({ roots: [root], chipDir: path.join(base, 'chips'), historyDir: path.join(base, 'history'), log: (m) => logs.push(m) });
    try {
      assert.ok(svc.context && svc.deps.context === svc.context);
      assert.equal(svc.watching, false, 'the watcher starts with the first overview, not at startup');
      const watcherOf = () => svc.watcher; // a getter: not narrowed by the assertion before the overview
      assert.equal(watcherOf(), undefined);
      await svc.context.overview({});
      const watcher = watcherOf();
      assert.ok(watcher, 'the first overview started the watcher');
      assert.equal(await watcher.ready, true);
      assert.equal(svc.watching, true);
      // The first refresh after `ready` walks once (changes made while the scan ran); from then on events are trusted.
      const before = await svc.context.overview({});
      const map = svc.context.repoMapFor(root);
      const walks = map.stats.walks;
      assert.ok(walks <= 2, `the cold walk and at most one catch-up walk, got ${walks}`);
      await fs.appendFile(path.join(root, 'src/a.ts'), '// a\n// b\n');
      let lines = before.lines;
      for (let i = 0; i < 80 && lines === before.lines; i++) {
        await new Promise((r) => setTimeout(r, 25));
        lines = (await svc.context.overview({})).lines;
      }
      assert.equal(lines, before.lines + 2);
      assert.equal(map.stats.walks, walks, 'warm refreshes used the watcher');
      assert.ok(map.stats.watchedRefreshes >= 1);
      assert.deepEqual(logs.filter((l) => /watching/.test(l)), []);
    } finally {
      await svc.close();
      await fs.rm(base, { recursive: true, force: true });
    }
    assert.equal(svc.watching, false);
  });

  it('a watcher that cannot start falls back to mtime checks and says so once', async () => {
    const base = await tmpRoot();
    const svc = await createServices({ roots: [root], chipDir: path.join(base, 'chips'), historyDir: path.join(base, 'history'), context: { watch: false } });
    try {
      const ctx = svc.context!;
      assert.equal(ctx.watched, false);
      const logs: string[] = [];
      const watcher = new RootWatcher([root, path.join(root, 'missing-folder')], ctx, (m) => logs.push(m));
      assert.equal(await watcher.ready, false);
      assert.equal(watcher.watching, false);
      assert.equal(ctx.watched, false);
      assert.equal(logs.length, 1);
      assert.match(logs[0]!, /file watching is off \(ENOENT\); overviews check file times instead/);
      await ctx.overview({});
      await touch(path.join(root, 'src/a.ts'), 'export function alpha(): number {\n  return 2;\n}\n\n');
      assert.equal((await ctx.overview({})).lines, 7);
      await watcher.close();
    } finally {
      await svc.close();
      await fs.rm(base, { recursive: true, force: true });
    }
  });

  it('context: false leaves deps.context unset', async () => {
    const base = await tmpRoot();
    const svc = await createServices({ roots: [root], chipDir: path.join(base, 'chips'), historyDir: path.join(base, 'history'), context: false });
    assert.equal(svc.deps.context, undefined);
    assert.equal(svc.context, undefined);
    await svc.close();
    await fs.rm(base, { recursive: true, force: true });
  });
});
