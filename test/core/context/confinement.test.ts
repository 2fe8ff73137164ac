/**
 * The overview and structure readers see regular files inside the root only: a link to an outside file (or a
 * folder replaced by a link to an outside folder) that appears after the first overview is not indexed, through
 * the watcher path or the mtime walk; a FIFO or a character device never blocks a walk or a read.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { promises as fs, realpathSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { RepoMap } from '../../../src/core/context/repoMap';
import { isWalkedPath, walkFilesSliced, diskWalker } from '../../../src/core/context/node/walk';
import { readConfinedFile } from '../../../src/core/files/regularFile';
import { createServices } from '../../../src/mcp/services';
import { getTokenizer } from '../../../src/core/memory/node/tokenizer';
import { diskReader } from '../../../src/core/context/node/readWalked';

const SECRET_FN = 'outsideSecretFunction';
const posixOnly = process.platform === 'win32' ? describe.skip : describe;

async function within<T>(ms: number, p: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not finish in ${ms} ms (blocked?)`)), ms);
  });
  try {
    return await Promise.race([p, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** A character device like /dev/zero (endless bytes); undefined where this user may not create one. */
function mkzero(p: string): boolean {
  try {
    execFileSync('mknod', [p, 'c', '1', '5'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

posixOnly('context confinement (overview and structure readers)', () => {
  let tmp: string;
  let root: string;
  let outside: string;

  beforeEach(async () => {
    tmp = realpathSync(await fs.mkdtemp(path.join(os.tmpdir(), 'ctx-conf-')));
    root = path.join(tmp, 'root');
    outside = path.join(tmp, 'outside');
    await fs.mkdir(path.join(root, 'src'), { recursive: true });
    await fs.mkdir(outside);
    await fs.writeFile(path.join(root, 'src', 'a.ts'), 'export function insideAlpha(): number {\n  return 1;\n}\n');
    await fs.writeFile(path.join(outside, 'secret.ts'), `export function ${SECRET_FN}(): string {\n  return 'x';\n}\n`);
  });
  afterEach(() => fs.rm(tmp, { recursive: true, force: true }));

  for (const watched of [true, false]) {
    const how = watched ? 'reported by the watcher' : 'found by the mtime walk';
    it(`a link to an outside file created after the first overview is not indexed (${how})`, async () => {
      const map = new RepoMap(root, { tokenizer: getTokenizer(), reader: diskReader, walker: diskWalker });
      await map.overview();
      map.setWatched(watched);
      const link = path.join(root, 'src', 'leak.ts');
      await fs.symlink(path.join(outside, 'secret.ts'), link);
      map.invalidate(link);
      const o = await map.overview({ budget: 4000 });
      assert.doesNotMatch(o.text, new RegExp(SECRET_FN));
      assert.equal(o.files, 1);
    });

    it(`a folder replaced by a link to an outside folder is not read (${how})`, async () => {
      const map = new RepoMap(root, { tokenizer: getTokenizer(), reader: diskReader, walker: diskWalker });
      await map.overview();
      map.setWatched(watched);
      await fs.rm(path.join(root, 'src'), { recursive: true });
      await fs.writeFile(path.join(outside, 'a.ts'), `export function ${SECRET_FN}(): void {}\n`);
      await fs.symlink(outside, path.join(root, 'src'));
      map.invalidate(path.join(root, 'src', 'a.ts')); // the watcher names the file it saw change
      const o = await map.overview({ budget: 4000 });
      assert.doesNotMatch(o.text, new RegExp(SECRET_FN));
      assert.doesNotMatch(o.text, /insideAlpha/, 'the old record went away with its folder');
    });

    it(`a known file replaced by a link is dropped from the map (${how})`, async () => {
      const map = new RepoMap(root, { tokenizer: getTokenizer(), reader: diskReader, walker: diskWalker });
      assert.match((await map.overview({ budget: 4000 })).text, /insideAlpha/);
      map.setWatched(watched);
      const a = path.join(root, 'src', 'a.ts');
      await fs.rm(a);
      await fs.symlink(path.join(outside, 'secret.ts'), a);
      map.invalidate(a);
      const o = await map.overview({ budget: 4000 });
      assert.doesNotMatch(o.text, new RegExp(SECRET_FN));
      assert.equal(o.files, 0);
    });
  }

  it('the server (real fs.watch, betools://overview source) never shows a link created after the first overview', async () => {
    const base = path.join(tmp, 'state');
    const svc = await createServices({ roots: [root], chipDir: path.join(base, 'chips'), historyDir: path.join(base, 'history') });
    try {
      const ctx = svc.context!;
      await ctx.overview({});
      await fs.symlink(path.join(outside, 'secret.ts'), path.join(root, 'src', 'leak.ts'));
      await fs.writeFile(path.join(root, 'src', 'b.ts'), 'export function insideBeta(): void {}\n');
      let text = '';
      for (let i = 0; i < 80 && !/insideBeta/.test(text); i++) {
        await new Promise((r) => setTimeout(r, 25));
        text = (await ctx.overview({ budget: 4000 })).overview;
      }
      assert.match(text, /insideBeta/, 'the watcher delivered the changes');
      assert.doesNotMatch(text, new RegExp(SECRET_FN));
    } finally {
      await svc.close();
    }
  });

  it('readConfinedFile refuses a file reached through a folder link, whatever the last name is', async () => {
    await fs.symlink(outside, path.join(root, 'via'));
    await assert.rejects(readConfinedFile(path.join(root, 'via', 'secret.ts'), (real) => real.startsWith(root + path.sep)), /outside the allowed folders/);
    assert.match((await readConfinedFile(path.join(root, 'src', 'a.ts'), (real) => real.startsWith(root + path.sep))).toString(), /insideAlpha/);
  });

  describe('FIFOs and devices', () => {
    it('a FIFO (also one named .gitignore) never blocks the cold walk, a warm walk or a watched refresh', async () => {
      execFileSync('mkfifo', [path.join(root, 'src', 'pipe.ts')]);
      execFileSync('mkfifo', [path.join(root, 'src', '.gitignore')]);
      const map = new RepoMap(root, { tokenizer: getTokenizer(), reader: diskReader, walker: diskWalker });
      const cold = await within(5000, map.overview({ budget: 4000 }), 'cold overview with FIFOs');
      assert.equal(cold.files, 1);
      assert.equal((await within(5000, walkFilesSliced(root), 'walkFilesSliced')).files.length, 1);
      map.setWatched(true);
      execFileSync('mkfifo', [path.join(root, 'src', 'late.ts')]);
      map.invalidate(path.join(root, 'src', 'late.ts'));
      map.invalidate(path.join(root, 'src', 'pipe.ts'));
      assert.equal((await within(5000, map.overview({ budget: 4000 }), 'watched overview with FIFOs')).files, 1);
      assert.equal(isWalkedPath(root, 'src/new.ts'), true, 'a FIFO .gitignore is no ignore file, and is not read');
    });

    it('a character device is neither walked nor read', async function () {
      if (!mkzero(path.join(root, 'src', 'zero.ts'))) this.skip();
      const map = new RepoMap(root, { tokenizer: getTokenizer(), reader: diskReader, walker: diskWalker });
      assert.equal((await within(5000, map.overview(), 'overview with a device')).files, 1);
      map.setWatched(true);
      map.invalidate(path.join(root, 'src', 'zero.ts'));
      assert.equal((await within(5000, map.overview(), 'watched overview with a device')).files, 1);
    });

    it('structure and be-read of a FIFO say it is not a regular file instead of blocking', async () => {
      const base = path.join(tmp, 'state');
      execFileSync('mkfifo', [path.join(root, 'src', 'pipe.ts')]);
      const svc = await createServices({ roots: [root], chipDir: path.join(base, 'chips'), historyDir: path.join(base, 'history'), context: { watch: false } });
      const ctx = svc.context!;
      for (const mode of ['structure', 'full', 'auto'] as const) {
        await assert.rejects(within(5000, ctx.read({ file: 'src/pipe.ts', mode }), `read ${mode}`), /FIFO.*not a regular file/);
      }
      await assert.rejects(within(5000, ctx.structure('src/pipe.ts'), 'structure'), /not a regular file/);
      await svc.close();
    });
  });
});
