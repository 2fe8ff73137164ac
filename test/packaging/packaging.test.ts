/**
 * The shipped artefacts work where users run them, away from this repository's node_modules:
 *  - the .vsix, unpacked into a temp folder: its dist/cli.js is what "Copy MCP Config for …" hands out;
 *  - the npm package (`npm pack`), installed into a fresh prefix with an empty cache and --offline (so it
 *    must carry everything: bundle, grammars, tokenizer ranks), started through its bin and through npx.
 * Both then serve a real MCP SDK client a structure read and be-func-range (tree-sitter from the package).
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { buildDist, buildPlugins } from '../distBuild';
import { checkStructureTools, cleanEnv, isolatedDir, REPO, run } from './packaged';
import { unzip } from './unzip';

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

describe('packaging: the shipped CLI outside the repository', function () {
  this.timeout(300000);
  const dirs: string[] = [];
  const tmp = (prefix: string) => {
    const d = isolatedDir(prefix);
    dirs.push(d);
    return d;
  };
  after(() => {
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  });

  it('the .vsix, unpacked with no node_modules above it: dist/cli.js reads structure and finds function ranges', async () => {
    const base = tmp('bet-vsix-');
    const vsix = path.join(base, 'x.vsix');
    // --no-dependencies as in `npm run package`; the build first (once per test run), so the .vsix holds this checkout's code
    await buildDist();
    await run(process.execPath, [require.resolve('@vscode/vsce/vsce'), 'package', '--no-dependencies', '--allow-unused-files-pattern', '--out', vsix], { cwd: REPO, env: cleanEnv() });
    const names = unzip(vsix, path.join(base, 'unpacked'));
    for (const f of ['extension/dist/cli.js', 'extension/dist/cli-main.js', 'extension/dist/extension.js', 'extension/dist/extension-main.js',
      'extension/dist/wasm/tree-sitter.wasm',
      'extension/dist/wasm/tree-sitter-python.wasm', 'extension/dist/ranks/o200k_base.bin']) {
      assert.ok(names.includes(f), `${f} is in the .vsix`);
    }
    assert.ok(!names.some((n) => n.includes('node_modules/') || n.endsWith('.map') || n.startsWith('extension/src/')), 'no sources, maps or node_modules');
    assert.deepEqual(names.filter((n) => n.startsWith('extension/dist/ranks/') && !n.endsWith('.bin')), [], 'the ranks only as prebuilt tables');
    await checkStructureTools(process.execPath, [path.join(base, 'unpacked', 'extension', 'dist', 'cli.js')], base);
  });

  it('npm pack, installed globally into a fresh prefix offline: the bin and npx serve the same session', async () => {
    const base = tmp('bet-pack-');
    const env = cleanEnv({ XDG_CACHE_HOME: path.join(base, 'cache'), npm_config_cache: path.join(base, 'npm-cache'), npm_config_update_notifier: 'false', npm_config_fund: 'false', npm_config_audit: 'false' });
    // the build the prepack script would run, done once for the test run: a rebuild now would rewrite dist/ under
    // the tests of other workers that start dist/cli.js
    await buildDist();
    // the plugin archives the prepack script builds (scripts/package-plugins.mjs), shipped in the tarball
    await buildPlugins();
    const out = await run(npm, ['pack', '--json', '--ignore-scripts', '--pack-destination', base], { cwd: REPO, env });
    const [{ filename, files }] = JSON.parse(out.slice(out.indexOf('['))) as [{ filename: string; files: { path: string }[] }];
    const packed = files.map((f) => f.path);
    const version = (JSON.parse(fs.readFileSync(path.join(REPO, 'package.json'), 'utf8')) as { version: string }).version;
    for (const f of ['dist/cli.js', 'dist/cli-main.js', 'dist/wasm/tree-sitter-python.wasm', 'dist/ranks/cl100k_base.bin', 'README.md', 'LICENSE',
      `dist/plugin/better-edit-tools-agent-plugin-${version}.tar.gz`, `dist/plugin/better-edit-tools-claude-code-${version}.tar.gz`]) {
      assert.ok(packed.includes(f), `${f} is in the tarball`);
    }
    assert.ok(!packed.some((p) => p.startsWith('src/') || p.startsWith('test/') || p.endsWith('.map')), `only the built files: ${packed.join(', ')}`);
    const tarball = path.join(base, filename);
    const prefix = path.join(base, 'prefix');
    // An empty cache and --offline: succeeds only if the package needs nothing from the registry.
    await run(npm, ['install', '-g', '--offline', '--prefix', prefix, tarball], { cwd: base, env });
    const bin = path.join(prefix, 'bin', 'better-edit-tools');
    assert.match(await run(bin, ['--version'], { cwd: base, env }), /^better-edit-tools \d+\.\d+\.\d+\n$/);
    await checkStructureTools(bin, [], path.join(base, 'global'));
    // npx with the tarball (the README's `npx -y -p <tgz> better-edit-tools`: the package is not on the registry)
    assert.match(await run(npm, ['exec', '--yes', '--offline', `--package=${tarball}`, '--', 'better-edit-tools', '--version'], { cwd: base, env }),
      /^better-edit-tools \d+\.\d+\.\d+\n$/);
  });
});
