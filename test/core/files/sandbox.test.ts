import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Sandbox } from '../../../src/core/files/sandbox';
import { isInside } from '../../../src/core/files/ports';
import { ToolError } from '../../../src/core/errors';
import { cpuMsAsync } from '../../cpuTime';

async function rejectsWith(p: Promise<unknown>, code: string, re?: RegExp) {
  await assert.rejects(p, (e: unknown) => e instanceof ToolError && e.code === code && (!re || re.test(e.message)));
}

describe('core/files Sandbox', () => {
  let tmp: string;
  let root: string;
  let outside: string;
  beforeEach(() => {
    tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'be-sbx-')));
    root = path.join(tmp, 'root');
    outside = path.join(tmp, 'outside');
    fs.mkdirSync(path.join(root, 'src'), { recursive: true });
    fs.mkdirSync(outside);
    fs.writeFileSync(path.join(root, 'src', 'a.ts'), 'a\n');
    fs.writeFileSync(path.join(outside, 'secret.txt'), 'secret\n');
  });
  afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it('resolves root-relative, absolute and file:// inputs', async () => {
    const sb = new Sandbox([root]);
    const want = path.join(root, 'src', 'a.ts');
    assert.equal(await sb.resolve('src/a.ts'), want);
    assert.equal(await sb.resolve(want), want);
    assert.equal(await sb.resolve(pathToFileURL(want).href), want);
    assert.equal(await sb.resolve('file://src/a.ts'), want);
    assert.equal(await sb.resolve('./src/../src/a.ts'), want);
  });
  it('refuses paths outside the roots and names the roots', async () => {
    const sb = new Sandbox([root]);
    await rejectsWith(sb.resolve('../outside/secret.txt'), 'outside_roots', new RegExp(root.replace(/[/\\]/g, '.')));
    await rejectsWith(sb.resolve(path.join(outside, 'secret.txt')), 'outside_roots');
    await rejectsWith(sb.resolve('/etc/passwd'), 'outside_roots');
    await rejectsWith(sb.resolve(pathToFileURL(path.join(outside, 'secret.txt')).href), 'outside_roots');
  });
  it('flaw: a symlink inside the root escapes the sandbox', async () => {
    fs.symlinkSync(path.join(outside, 'secret.txt'), path.join(root, 'link.txt'));
    fs.symlinkSync(outside, path.join(root, 'linkdir'));
    const sb = new Sandbox([root]);
    await rejectsWith(sb.resolve('link.txt'), 'outside_roots', /resolves to/);
    await rejectsWith(sb.resolve('linkdir/secret.txt'), 'outside_roots');
    // a new file under a symlinked directory cannot be created outside either
    await rejectsWith(sb.resolve('linkdir/new/deeper.txt'), 'outside_roots');
    // a dangling link pointing outside
    fs.symlinkSync(path.join(outside, 'nope.txt'), path.join(root, 'dangling.txt'));
    await rejectsWith(sb.resolve('dangling.txt'), 'outside_roots');
  });
  it('a symlink inside the roots resolves to its target', async () => {
    fs.symlinkSync(path.join(root, 'src', 'a.ts'), path.join(root, 'alias.ts'));
    const sb = new Sandbox([root]);
    assert.equal(await sb.resolve('alias.ts'), path.join(root, 'src', 'a.ts'));
  });
  it('one call\'s shared look-ups (each folder resolved once) resolve every path as a lone resolve does', async () => {
    fs.symlinkSync(path.join(root, 'src', 'a.ts'), path.join(root, 'alias.ts'));
    fs.symlinkSync(path.join(root, 'src'), path.join(root, 'srclink'));
    fs.symlinkSync(outside, path.join(root, 'linkdir'));
    fs.symlinkSync(path.join(outside, 'secret.txt'), path.join(root, 'src', 'out.txt'));
    fs.symlinkSync(path.join(outside, 'nope.txt'), path.join(root, 'src', 'dangling.txt'));
    const inputs = ['src/a.ts', 'alias.ts', 'srclink/a.ts', 'srclink/new.ts', 'linkdir/secret.txt', 'src/out.txt', 'src/dangling.txt', 'src/missing.ts', 'src', 'srclink', '.'];
    const sb = new Sandbox([root]);
    const lone = async (p: string) => sb.resolve(p).catch((e: ToolError) => e.code);
    const lookups = new Map<string, Promise<unknown>>();
    const shared = await Promise.all(inputs.map((p) => sb.resolve(p, lookups).catch((e: ToolError) => e.code)));
    assert.deepEqual(shared, await Promise.all(inputs.map(lone)));
    assert.equal(shared[2], path.join(root, 'src', 'a.ts'));
    assert.equal(shared[5], 'outside_roots');
  });
  it('flaw: in-root names starting with .. are rejected', async () => {
    fs.writeFileSync(path.join(root, '..foo'), 'x');
    const sb = new Sandbox([root]);
    assert.equal(await sb.resolve('..foo'), path.join(root, '..foo'));
    assert.equal(await sb.resolve('src/..bar/new.txt'), path.join(root, 'src', '..bar', 'new.txt'));
    assert.equal(isInside(root, path.join(root, '..foo')), true);
    assert.equal(isInside(root, path.join(root, '..')), false);
    assert.equal(isInside(root, root), true);
  });
  it('a path that does not exist yet resolves through its nearest existing ancestor', async () => {
    const sb = new Sandbox([root]);
    assert.equal(await sb.resolve('new/dir/file.txt'), path.join(root, 'new', 'dir', 'file.txt'));
  });
  it('a deep path that does not exist resolves in a few look-ups, not one per segment (2,048 segments took 1.56 s)', async () => {
    const sb = new Sandbox([root]);
    const deep = Array.from({ length: 2048 }, () => 'a').join('/');
    // CPU time (system time included: each look-up is a syscall), which a busy machine cannot add to
    const { ms, value } = await cpuMsAsync(() => sb.resolve(`src/${deep}/x.ts`));
    assert.equal(value, path.join(root, 'src', deep, 'x.ts'));
    assert.ok(ms < 300, `took ${ms.toFixed(0)} ms of CPU`);
    // and the deepest existing part still decides: a dangling link midway is followed, its target checked
    fs.mkdirSync(path.join(root, 'd1', 'd2'), { recursive: true });
    fs.symlinkSync(path.join(outside, 'gone'), path.join(root, 'd1', 'd2', 'link'));
    await rejectsWith(sb.resolve('d1/d2/link/x/y/z.ts'), 'outside_roots');
    fs.symlinkSync(path.join(root, 'src', 'later'), path.join(root, 'd1', 'inroot'));
    assert.equal(await sb.resolve('d1/inroot/new/file.ts'), path.join(root, 'src', 'later', 'new', 'file.ts'));
  });

  it('a root that is itself a symlink works with the link or the target path', async () => {
    const linkRoot = path.join(tmp, 'rootlink');
    fs.symlinkSync(root, linkRoot);
    const sb = new Sandbox([linkRoot]);
    assert.equal(await sb.resolve(path.join(linkRoot, 'src', 'a.ts')), path.join(root, 'src', 'a.ts'));
    assert.equal(await sb.resolve('src/a.ts'), path.join(root, 'src', 'a.ts'));
  });
  it('several roots: relative paths use the first, absolute paths may use any', async () => {
    const sb = new Sandbox([root, outside]);
    assert.equal(await sb.resolve(path.join(outside, 'secret.txt')), path.join(outside, 'secret.txt'));
    assert.equal(sb.display(path.join(outside, 'secret.txt')), 'secret.txt');
    assert.equal(sb.display(path.join(root, 'src', 'a.ts')), 'src/a.ts');
    assert.equal(sb.display(root), '.');
    assert.equal(sb.display('/elsewhere/x'), '/elsewhere/x');
  });
  it('empty input and no roots are invalid', async () => {
    await rejectsWith(new Sandbox([root]).resolve('  '), 'invalid_argument');
    assert.throws(() => new Sandbox([]), ToolError);
    assert.throws(() => new Sandbox(['relative/root']), /absolute/);
  });
});
