import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import fc from 'fast-check';
import { Sandbox } from '../../../src/core/files/sandbox';
import { ToolError } from '../../../src/core/errors';
import { dangerousConfig, foldName, isDotGitName } from '../../../src/core/files/gitNames';

async function refused(p: Promise<unknown>, reason: 'git_dir' | 'git_dir_shape') {
  await assert.rejects(p, (e: unknown) => {
    assert.ok(e instanceof ToolError, String(e));
    assert.equal(e.code, 'outside_roots');
    assert.equal((e.details as { reason: string }).reason, reason, e.message);
    assert.match(e.message, /--allow-write GLOB/);
    return true;
  });
}

describe('core/files git metadata by what it is (names folded, directories by shape)', () => {
  let tmp: string;
  let root: string;
  const mk = (rel: string, text?: string) => {
    const p = path.join(root, rel);
    if (text === undefined) fs.mkdirSync(p, { recursive: true });
    else {
      fs.mkdirSync(path.dirname(p), { recursive: true });
      fs.writeFileSync(p, text);
    }
  };
  beforeEach(() => {
    tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'be-gitshape-')));
    root = path.join(tmp, 'root');
    fs.mkdirSync(root);
  });
  afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it('refuses every name form a file system opens as .git (Windows, macOS), allows look-alikes', async () => {
    const sb = new Sandbox([root]);
    const forms = ['.git', '.GIT', '.git.', '.git ', '.git. .', '.git::$INDEX_ALLOCATION', '.git:stream', '.git::$DATA', 'GIT~1', 'git~2',
      'GI4F2A~1', '.g\u200cit', '.\u200dgit', '.git\ufeff', '.gi\u0301t', '.gı\u0074', '.G\u0130T'];
    for (const f of forms) {
      await refused(sb.resolveForWrite(`${f}/config`), 'git_dir');
      await refused(sb.resolveForWrite(`a/${f}`), 'git_dir'); // a .git file (gitdir: pointer) in any form
    }
    for (const ok of ['.gitignore', '.github/x', 'GITHUB~1/x', 'a.git/x', 'git/config', '.gitattributes', 'gitx~1']) {
      assert.equal(await sb.resolveForWrite(ok), path.join(root, ok));
    }
  });

  it('property: .git with any mix of case, ignorable code points, trailing dots/spaces and a stream is refused', async () => {
    const sb = new Sandbox([root]);
    const ign = fc.constantFrom('', '\u200c', '\u200d', '\u200e', '\u200f', '\u202a', '\u202e', '\u206a', '\u206f', '\ufeff', '\u00ad');
    const letter = (c: string) => fc.tuple(fc.constantFrom(c, c.toUpperCase()), ign).map(([a, b]) => a + b);
    const variant = fc
      .tuple(ign, letter('.'), letter('g'), letter('i'), letter('t'), fc.stringMatching(/^[. ]{0,3}$/), fc.constantFrom('', '::$INDEX_ALLOCATION', ':x', '::$DATA'))
      .chain((parts) => fc.constantFrom('NFC', 'NFD', 'NFKC').map((form) => parts.join('').normalize(form)));
    await fc.assert(
      fc.asyncProperty(variant, fc.constantFrom('', '/config', '/hooks/pre-commit'), async (name, tail) => {
        assert.ok(isDotGitName(name), JSON.stringify(name));
        await refused(sb.resolveForWrite(`sub/${name}${tail}`), 'git_dir');
      }),
      { numRuns: 300 },
    );
  });

  it('an embedded bare repository: the write that completes HEAD + objects/refs is refused, whichever comes last', async () => {
    const sb = new Sandbox([root]);
    const orders = [['objects/x', 'refs/heads/main', 'HEAD'], ['HEAD', 'refs/x'], ['HEAD', 'objects/pack/p'], ['refs/x', 'head'], ['HEAD', 'commondir']];
    for (const [n, order] of orders.entries()) {
      const dir = `evil${n}`;
      for (const [i, rel] of order.entries()) {
        const attempt = sb.resolveForWrite(`${dir}/${rel}`);
        if (i < order.length - 1) {
          await attempt;
          mk(`${dir}/${rel}`, 'x');
        } else await refused(attempt, 'git_dir_shape');
      }
    }
  });

  it('a batch (be-apply) is judged whole: its files together may not make a git directory', async () => {
    const sb = new Sandbox([root]);
    const batch = ['evil/config', 'evil/objects/x', 'evil/refs/x', 'evil/HEAD'].map((r) => path.join(root, r));
    for (const p of batch) assert.equal(await sb.resolveForWrite(p), p); // each alone is fine
    await refused(sb.resolveForWrite(batch[0], batch.slice(1)), 'git_dir_shape');
    await refused(sb.resolveForWrite(batch[3], batch.slice(0, 3)), 'git_dir_shape');
    await refused(sb.resolveForWrite(path.join(root, 'new', 'deep', 'HEAD'), [path.join(root, 'new', 'deep', 'refs', 'x')]), 'git_dir_shape');
    assert.equal(await sb.resolveForWrite(batch[0], [path.join(root, 'evil', 'objects', 'x'), path.join(root, 'other', 'HEAD')]), batch[0]);
  });

  it('an existing git directory by its shape (bare repo, worktree metadata, gitdir target, the root itself) is protected', async () => {
    mk('bare/HEAD', 'ref: refs/heads/main\n');
    mk('bare/objects');
    mk('bare/refs/heads');
    mk('meta/HEAD', '0123456789012345678901234567890123456789\n');
    mk('meta/commondir', '../bare\n');
    mk('wt/.git', 'gitdir: ../meta\n');
    const sb = new Sandbox([root]);
    for (const rel of ['bare/config', 'bare/hooks/post-checkout', 'bare/HEAD', 'bare/objects/info/alternates', 'meta/config.worktree', 'meta/x', 'wt/.git']) {
      await refused(sb.resolveForWrite(rel), rel === 'wt/.git' ? 'git_dir' : 'git_dir_shape');
    }
    assert.equal(await sb.resolveForWrite('wt/src/a.ts'), path.join(root, 'wt', 'src', 'a.ts'));
    mk('HEAD', 'ref: refs/heads/main\n');
    mk('refs');
    await refused(sb.resolveForWrite('src/a.ts'), 'git_dir_shape');
    // the opt-in still opens exactly what it matches
    const open = new Sandbox([tmp], { allowWrite: ['root/bare/description'] });
    assert.equal(await open.resolveForWrite(path.join(root, 'bare', 'description')), path.join(root, 'bare', 'description'));
    await refused(open.resolveForWrite(path.join(root, 'bare', 'config')), 'git_dir_shape');
  });

  it('the folders on the way are looked up several levels at once: a git directory at any depth is still found', async () => {
    const sb = new Sandbox([root]);
    for (const depth of [1, 7, 8, 9, 17]) {
      const deep = Array.from({ length: depth }, (_, i) => `d${i}`).join('/');
      mk(`${deep}/repo/HEAD`, 'ref: refs/heads/main\n');
      mk(`${deep}/repo/objects`);
      mk(`${deep}/repo/refs`);
      await refused(sb.resolveForWrite(`${deep}/repo/hooks/pre-commit`), 'git_dir_shape');
      await refused(sb.resolveForWrite(`${deep}/repo/a/b/c/d/e/f/g/h/i/j/new.txt`), 'git_dir_shape');
      assert.equal(await sb.resolveForWrite(`${deep}/a.txt`), path.join(root, deep, 'a.txt'));
      // a missing folder on the way ends the look-ups there
      assert.equal(await sb.resolveForWrite(`${deep}/missing/x/y/z.txt`), path.join(root, deep, 'missing', 'x', 'y', 'z.txt'));
    }
  });

  it('a folder without HEAD is asked for HEAD only (the shape needs it); with HEAD, or a write adding an entry, for every entry', async () => {
    mk('a/b/c.txt', 'x');
    mk('bare/HEAD', 'ref: refs/heads/main\n');
    const asked = async (rel: string) => {
      const lookups = new Map<string, Promise<unknown>>();
      await new Sandbox([root]).resolveForWrite(rel, [], lookups);
      // the git-shape look-ups only (the sandbox's own, a folder's realpath and an entry's lstat, share the map)
      return [...lookups.keys()].filter((k) => k.startsWith('head:') || k.startsWith('markers:')).map((k) => k.replace(root, '.')).sort();
    };
    assert.deepEqual(await asked('a/b/c.txt'), ['head:.', 'head:./a', 'head:./a/b']);
    // HEAD there: all four entries are looked up (a HEAD alone is no git directory: the write is allowed)
    assert.deepEqual(await asked('bare/x.txt'), ['head:.', 'head:./bare', 'markers:./bare']);
    // a write named like an entry may complete the shape with the others: its folder's entries all count
    assert.deepEqual(await asked('a/refs'), ['head:.', 'head:./a', 'markers:./a']);
    // the folders on the way are looked at once each, the path itself once, by the sandbox (its lstat, shared: the
    // git-shape check asks nothing of it, only a regular file being written there)
    const lookups = new Map<string, Promise<unknown>>();
    await new Sandbox([root]).resolveForWrite('a/b/c.txt', [], lookups);
    assert.deepEqual([...lookups.keys()].filter((k) => k.startsWith('lstat:')).map((k) => k.replace(root, '.')).sort(), ['lstat:./a', 'lstat:./a/b', 'lstat:./a/b/c.txt']);
  });

  it('a config that runs a command or redirects is refused next to any git entry; a plain one, or one elsewhere, is not', async () => {
    mk('half/objects');
    mk('half/refs');
    const sb = new Sandbox([root]);
    const abs = await sb.resolveForWrite('half/config');
    for (const text of ['[core]\n\tfsmonitor = "touch m"\n', '[CORE]\n  worktree = /\n', '[core]\nhooksPath=h\n', '[include]\npath=x\n',
      '[includeIf "gitdir:/"]\npath=x\n', '[filter "lfs"]\nsmudge=x\n', '[diff "x"]\ntextconv=y\n', '[core]\n\tsshCommand = x\n', '[core]\n\tpager = x\n', '[core]\n\teditor = x\n']) {
      assert.ok(dangerousConfig(text), text);
      await refused(sb.checkWriteContent(abs, Buffer.from(text)), 'git_dir_shape');
      await refused(sb.checkWriteContent(abs, [Buffer.from(text.slice(0, 3)), Buffer.from(text.slice(3))]), 'git_dir_shape');
    }
    await sb.checkWriteContent(abs, '[core]\n\tbare = true\n[user]\n\tname = x\n');
    await sb.checkWriteContent(path.join(root, 'app', 'config'), '[core]\n\tfsmonitor = x\n'); // an app's own config file
    await sb.checkWriteContent(path.join(root, 'half', 'notes.txt'), '[core]\n\tfsmonitor = x\n');
  });

  it('folds names as documented', () => {
    assert.equal(foldName('.GIT. '), '.git');
    assert.equal(foldName('HEAD::$DATA'), 'head');
    assert.equal(foldName('.g\u200cit'), '.git');
    assert.equal(foldName('.gi\u0301t'), '.git');
  });
});
