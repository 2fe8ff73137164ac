/**
 * An edit keeps a lock (`.<name>.be-lock`) and a staged temp (`.<name>.be-<pid>-….tmp`) beside its target for a
 * moment. Neither is part of the workspace: the overview walk, a watched warm overview, the CLI's root watcher and
 * the state-folder watchers of VS Code leave them out, whatever moment they are caught at.
 */
import assert from 'node:assert/strict';
import { promises as fs, realpathSync, statSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { RepoMap } from '../../../src/core/context/repoMap';
import { diskReader } from '../../../src/core/context/node/readWalked';
import { RootWatcher, walkIgnoreMatcher, type WatchTarget } from '../../../src/core/context/node/rootWatcher';
import { diskWalker, isWalkedPath, walkFilesSliced } from '../../../src/core/context/node/walk';
import { CrossProcessLocks } from '../../../src/core/files/crossProcessLock';
import { isOwnTransientName, isOwnTransientPath, isStateFolderNoise } from '../../../src/core/files/ownNames';
import { stateTempPath, tempPathFor } from '../../../src/core/files/tempFiles';
import { getTokenizer } from '../../../src/core/memory/node/tokenizer';

describe('context: an edit\'s lock and staged temp files are never part of the workspace', function () {
  this.timeout(20000);
  let root: string;
  let target: string;
  let lock: string;
  let temp: string;
  let release: (() => Promise<void>) | undefined;
  const rel = (abs: string) => path.relative(root, abs).split(path.sep).join('/');

  beforeEach(async () => {
    root = realpathSync(await fs.mkdtemp(path.join(os.tmpdir(), 'be-transient-')));
    await fs.mkdir(path.join(root, 'src'));
    target = path.join(root, 'src', 'a.ts');
    await fs.writeFile(target, 'export const a = 1;\n');
    await fs.writeFile(path.join(root, 'src', 'b.ts'), 'export const b = 2;\n');
    // the real thing: a held cross-process lock, and a temp named as a staged write names it
    const locks = new CrossProcessLocks();
    release = await locks.acquire(target);
    lock = locks.lockFileOf(target);
    temp = tempPathFor(target);
    await fs.writeFile(temp, 'export const a = 2;\n');
    await fs.stat(lock); // the lock is on disk while held
  });
  afterEach(async () => {
    await release?.();
    await fs.rm(root, { recursive: true, force: true });
  });

  it('the names: a lock, its break claim and staged temps are ours; a user file that looks alike is not', () => {
    assert.ok(isOwnTransientName(path.basename(lock)) && isOwnTransientName(path.basename(temp)));
    assert.ok(isOwnTransientName('.a.ts.be-lock.break-123'));
    assert.ok(isOwnTransientPath(lock) && isOwnTransientPath(temp.replace(/\//g, '\\')));
    for (const user of ['a.ts', '.env', 'be-lock', 'notes.tmp', '.a.ts.tmp-123', 'x.be-lock.md']) assert.ok(!isOwnTransientName(user), user);
    assert.ok(isStateFolderNoise(path.basename(stateTempPath('/s/chips/abc.json'))));
    assert.ok(!isStateFolderNoise('abc.json'));
  });

  it('the walk and isWalkedPath leave them out', async () => {
    assert.deepEqual((await walkFilesSliced(root)).files.map((f) => f.rel), ['src/a.ts', 'src/b.ts']);
    assert.equal(isWalkedPath(root, rel(lock)), false);
    assert.equal(isWalkedPath(root, rel(temp)), false);
    assert.equal(isWalkedPath(root, 'src/a.ts'), true);
  });

  it('an overview taken while the edit holds them does not show them, cold or watched and told of them', async () => {
    const map = new RepoMap(root, { tokenizer: getTokenizer(), reader: diskReader, walker: diskWalker });
    const cold = await map.overview();
    assert.equal(cold.files, 2, cold.text);
    assert.doesNotMatch(cold.text, /be-lock|\.tmp/);
    map.setWatched(true);
    map.invalidate(lock);
    map.invalidate(temp);
    const warm = await map.overview();
    assert.equal(warm.files, 2, warm.text);
    assert.doesNotMatch(warm.text, /be-lock|\.tmp/);
  });

  it('the root watcher ignores them and reports no event for them', async () => {
    const rules = walkIgnoreMatcher(root);
    assert.equal(rules.ignored(lock), true);
    assert.equal(rules.ignored(temp, statSync(temp)), true);
    assert.equal(rules.ignored(target, statSync(target)), false);
    const seen: string[] = [];
    const recorder: WatchTarget = { invalidate: (abs) => void seen.push(abs), setWatched: () => {} };
    const w = new RootWatcher([root], recorder);
    try {
      assert.equal(await w.ready, true);
      seen.length = 0;
      await release?.(); // the lock goes
      release = undefined;
      const again = await new CrossProcessLocks().acquire(target); // and comes back
      const temp2 = tempPathFor(target);
      await fs.writeFile(temp2, 'export const a = 3;\n');
      await fs.rename(temp2, target); // a staged write landing
      await again();
      const deadline = Date.now() + 5000;
      while (!seen.includes(target) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      assert.ok(seen.includes(target), `the landed write is reported: ${JSON.stringify(seen)}`);
      await new Promise((r) => setTimeout(r, 200));
      assert.deepEqual(seen.filter((p) => isOwnTransientPath(p)), [], `no event for a lock or temp: ${JSON.stringify(seen)}`);
    } finally {
      await w.close();
    }
  });
});
