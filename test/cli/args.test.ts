import assert from 'node:assert/strict';
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseCli, USAGE } from '../../src/cli/args';
import { defaultMemoryDir, stateInsideRoots } from '../../src/core/files/statePaths';
import { workspaceKey } from '../../src/core/files/workspaceKey';
import { resolveRoots } from '../../src/cli/roots';
import { encodingRulesResolver, parseEncodingRule } from '../../src/core/files/encodingRules';

describe('cli args', () => {
  it('parses repeated roots and flags', () => {
    const o = parseCli(['--root', 'a', '--root', 'b', '--no-prefix', '--lang', 'zh', '--chip-dir', '/c'], {});
    assert.deepEqual(o.roots, ['a', 'b']);
    assert.equal(o.noPrefix, true);
    assert.equal(o.lang, 'zh');
    assert.equal(o.chipDir, '/c');
    assert.equal(o.memory, true);
    assert.equal(parseCli(['--no-memory'], {}).memory, false);
  });

  it('takes the language from LANG when --lang is absent, and refuses other languages', () => {
    assert.equal(parseCli([], { LANG: 'zh_CN.UTF-8' }).lang, 'zh');
    assert.equal(parseCli([], { LANG: 'de_DE.UTF-8' }).lang, 'en');
    assert.throws(() => parseCli(['--lang', 'fr'], {}), /--lang must be "en" or "zh"/);
  });

  it('--memory-dir, and --help names every directory the server writes', () => {
    assert.equal(parseCli(['--memory-dir', '/m'], {}).memoryDir, '/m');
    assert.equal(parseCli([], {}).memoryDir, undefined);
    for (const flag of ['--chip-dir', '--history-dir', '--memory-dir']) assert.ok(USAGE.includes(flag), flag);
    assert.match(USAGE, /memory\/<workspace key>/);
    assert.match(USAGE, /Paths written .*chip-hmac\.key.*code-cache.*locks.*transient lock file/s);
  });

  it('defaults the memory directory to the cache, whatever --chip-dir says, and notes state inside a root', () => {
    assert.equal(defaultMemoryDir('/c/better-edit-tools-mcp/chips', ['/w']), `/c/better-edit-tools-mcp/memory/${workspaceKey(['/w'])}`);
    assert.deepEqual(stateInsideRoots(['/home/u'], { chips: '/home/u/.cache/x', history: '/var/h' }), [
      'note: the chips directory /home/u/.cache/x is inside the root /home/u; the tools can read and edit it there',
    ]);
    assert.deepEqual(stateInsideRoots(['/w'], { memory: '/w2/m', chips: '/w' }).length, 1);
    // "..state" is a folder inside the root (a '..' prefix test took it for a way out)
    assert.deepEqual(stateInsideRoots(['/w'], { chips: '/w/..state/chips' }).length, 1);
  });

  it('--allow-write is repeatable, off by default, and refuses empty, negated or comment globs', () => {
    assert.deepEqual(parseCli([], {}).allowWrite, []);
    assert.deepEqual(parseCli(['--allow-write', '.git/info/exclude', '--allow-write', '.git/hooks/**'], {}).allowWrite, ['.git/info/exclude', '.git/hooks/**']);
    assert.throws(() => parseCli(['--allow-write', ' '], {}), /--allow-write needs a glob/);
    assert.throws(() => parseCli(['--allow-write', '!.git/config'], {}), /cannot start with "!" or "#"/);
  });

  it('documents --allow-write in --help', () => {
    assert.match(USAGE, /--allow-write GLOB .*\.git/s);
  });

  it('--session-idle-ms takes a positive integer', () => {
    assert.equal(parseCli(['--http', '--session-idle-ms', '1500'], {}).sessionIdleMs, 1500);
    assert.equal(parseCli(['--http'], {}).sessionIdleMs, undefined);
    assert.throws(() => parseCli(['--session-idle-ms', '0'], {}), /--session-idle-ms must be an integer from 100 to/);
    assert.throws(() => parseCli(['--session-idle-ms', '2s'], {}), /--session-idle-ms must be an integer from 100 to/);
  });

  it('rejects unknown options', () => {
    assert.throws(() => parseCli(['--rot', 'x'], {}), /Unknown option '--rot'/);
  });

  it('resolves roots to real paths and defaults to the working directory', async () => {
    const base = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'bet-cli-')));
    try {
      await fs.mkdir(path.join(base, 'real'));
      await fs.symlink(path.join(base, 'real'), path.join(base, 'link'));
      assert.deepEqual(resolveRoots({ roots: ['link'], allowRootDir: false }, base), [path.join(base, 'real')]);
      assert.deepEqual(resolveRoots({ roots: [], allowRootDir: false }, path.join(base, 'real')), [path.join(base, 'real')]);
      assert.throws(() => resolveRoots({ roots: ['missing'], allowRootDir: false }, base), /does not exist/);
    } finally {
      await fs.rm(base, { recursive: true, force: true });
    }
  });

  it('an Agent Plugins host that starts the server in the plugin folder (PLUGIN_ROOT) gets no sandbox there without --root', async () => {
    const base = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'bet-cli-')));
    try {
      const plugin = path.join(base, 'plugin');
      await fs.mkdir(path.join(plugin, 'server'), { recursive: true });
      await fs.mkdir(path.join(base, 'project'));
      assert.throws(() => resolveRoots({ roots: [], allowRootDir: false }, plugin, plugin), /refusing to use the plugin folder.*--root/s);
      assert.throws(() => resolveRoots({ roots: [], allowRootDir: false }, path.join(plugin, 'server'), plugin), /plugin folder/);
      // started in the project, or given --root: as before
      assert.deepEqual(resolveRoots({ roots: [], allowRootDir: false }, path.join(base, 'project'), plugin), [path.join(base, 'project')]);
      assert.deepEqual(resolveRoots({ roots: [path.join(base, 'project')], allowRootDir: false }, plugin, plugin), [path.join(base, 'project')]);
    } finally {
      await fs.rm(base, { recursive: true, force: true });
    }
  });

  it('refuses "/" as a root (the cwd of many MCP clients) unless --allow-root-dir', () => {
    assert.throws(() => resolveRoots({ roots: [], allowRootDir: false }, '/'), /refusing to use \/ as the sandbox root.*--root/s);
    assert.throws(() => resolveRoots({ roots: ['/'], allowRootDir: false }, '/tmp'), /file system root/);
    assert.deepEqual(resolveRoots({ roots: ['/'], allowRootDir: true }, '/tmp'), ['/']);
  });

  it('--encoding GLOB=NAME: repeatable, validated, the last matching rule wins', () => {
    const o = parseCli(['--encoding', '**/*.c=gbk', '--encoding', 'legacy/**=Shift-JIS'], {});
    assert.deepEqual(o.encodings, ['**/*.c=gbk', 'legacy/**=Shift-JIS']);
    assert.throws(() => parseCli(['--encoding', 'gbk'], {}), /GLOB=NAME/);
    assert.throws(() => parseCli(['--encoding', '*.c=klingon'], {}), /unknown encoding "klingon"; supported: .*gb18030/);
    const rules = o.encodings.map(parseEncodingRule);
    const resolve = encodingRulesResolver(rules, (abs) => abs.slice('/ws/'.length));
    assert.equal(resolve('/ws/src/a.c'), 'gbk');
    assert.equal(resolve('/ws/legacy/a.c'), 'shift_jis');
    assert.equal(resolve('/ws/src/a.ts'), undefined);
    assert.match(USAGE, /--encoding GLOB=NAME/);
  });
});
