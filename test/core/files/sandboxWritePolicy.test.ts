import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import fc from 'fast-check';
import { Sandbox } from '../../../src/core/files/sandbox';
import { ToolError } from '../../../src/core/errors';

async function refused(p: Promise<unknown>, re = /inside a \.git folder/) {
  await assert.rejects(p, (e: unknown) => e instanceof ToolError && e.code === 'outside_roots' && re.test(e.message));
}

describe('core/files Sandbox write policy (.git)', () => {
  let tmp: string;
  let root: string;
  beforeEach(() => {
    tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'be-sbx-wp-')));
    root = path.join(tmp, 'root');
    fs.mkdirSync(path.join(root, '.git', 'hooks'), { recursive: true });
    fs.mkdirSync(path.join(root, 'vendor', 'lib', '.git'), { recursive: true });
    fs.writeFileSync(path.join(root, '.git', 'config'), '[core]\n');
  });
  afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it('refuses writes under .git, names the setting and the flag, and still allows reading there', async () => {
    const sb = new Sandbox([root]);
    await assert.rejects(sb.resolveForWrite('.git/config'), (e: unknown) => {
      assert.ok(e instanceof ToolError);
      assert.equal(e.code, 'outside_roots');
      assert.match(e.message, /betterEditTools\.allowWrite/);
      assert.match(e.message, /--allow-write GLOB/);
      assert.deepEqual(e.details, { refused: '.git/config', reason: 'git_dir' });
      return true;
    });
    assert.equal(await sb.resolve('.git/config'), path.join(root, '.git', 'config'));
  });

  it('refuses new files, nested repositories, the .git file of a worktree and other spellings', async () => {
    const sb = new Sandbox([root]);
    for (const p of ['.git/hooks/pre-commit', '.git', 'vendor/lib/.git/config', '.GIT/config', '.Git/hooks/x', 'a/.git/new/deep.txt']) {
      await refused(sb.resolveForWrite(p));
    }
  });

  it('allows names that only look alike', async () => {
    const sb = new Sandbox([root]);
    for (const p of ['.gitignore', '.github/workflows/ci.yml', 'a.git/x', 'git/config', '.gitmodules', 'src/.git-blame-ignore-revs']) {
      assert.equal(await sb.resolveForWrite(p), path.join(root, p));
    }
  });

  it('judges the real path too: a link to .git does not get a write through', async function () {
    if (process.platform === 'win32') this.skip();
    fs.symlinkSync(path.join(root, '.git'), path.join(root, 'g'));
    await refused(new Sandbox([root]).resolveForWrite('g/config'));
  });

  it('judges the path as given too: a .git that is a link elsewhere inside the roots is still .git', async function () {
    if (process.platform === 'win32') this.skip();
    const wt = path.join(root, 'worktree');
    fs.mkdirSync(path.join(root, 'gitdata'), { recursive: true });
    fs.mkdirSync(wt);
    fs.symlinkSync(path.join(root, 'gitdata'), path.join(wt, '.git'));
    await refused(new Sandbox([root]).resolveForWrite('worktree/.git/config'));
  });

  it('allow globs (gitignore syntax) open exactly what they match', async () => {
    const sb = new Sandbox([root], { allowWrite: ['.git/info/exclude', '.git/hooks/**', '**/.git/description'] });
    assert.equal(await sb.resolveForWrite('.git/info/exclude'), path.join(root, '.git', 'info', 'exclude'));
    assert.equal(await sb.resolveForWrite('.git/hooks/pre-push'), path.join(root, '.git', 'hooks', 'pre-push'));
    assert.equal(await sb.resolveForWrite('vendor/lib/.git/description'), path.join(root, 'vendor', 'lib', '.git', 'description'));
    await refused(sb.resolveForWrite('.git/config'));
    const all = new Sandbox([root], { allowWrite: ['.git/'] });
    assert.equal(await all.resolveForWrite('.git/config'), path.join(root, '.git', 'config'));
  });

  it('rejects allow globs that would mean the opposite (negations, comments)', () => {
    for (const g of ['!.git/config', '# .git']) {
      assert.throws(() => new Sandbox([root], { allowWrite: [g] }), (e: unknown) => e instanceof ToolError && e.code === 'invalid_argument' && e.message.includes(g));
    }
  });

  it('property: a path is refused exactly when one of its parts is .git (any case)', async () => {
    const sb = new Sandbox([root]);
    const part = fc.oneof(
      fc.constantFrom('.git', '.GIT', '.gIt', 'src', 'a.git', '.gitx', 'git', 'x'),
      fc.stringMatching(/^[a-z0-9_.-]{1,8}$/).filter((s) => s !== '.' && s !== '..'),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(part, { minLength: 1, maxLength: 5 }), async (parts) => {
        const isGit = parts.some((p) => p.replace(/[. ]+$/, '').toLowerCase() === '.git');
        const attempt = sb.resolveForWrite(parts.join('/'));
        if (isGit) await refused(attempt);
        else assert.equal(await attempt, path.join(root, ...parts));
      }),
      { numRuns: 200 },
    );
  });
});
