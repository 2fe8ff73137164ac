/**
 * The stable launcher the copied MCP configs point at: it starts the installed extension's CLI, is rewritten
 * on activation, survives an update (picks the newest installed version, numerically), and says what to do
 * when the extension is gone.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { launcherPath, refreshLauncher } from '../../src/vscode/cliLauncher';
import { stdioLaunch } from '../../src/vscode/clientConfig';
import { buildCli } from '../distBuild';
import { checkStructureTools, REPO } from '../packaging/packaged';

const ID = 'better-edit-tools.better-edit-tools-';

let base: string;
function node(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const env = { ...process.env, XDG_CACHE_HOME: path.join(base, 'cache') }; // the CLI's code cache stays in the temp dir
  return new Promise((resolve) => {
    execFile(process.execPath, args, { env, timeout: 30000 }, (err, stdout, stderr) =>
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr }));
  });
}

describe('vscode/cliLauncher', function () {
  this.timeout(60000);
  let exts: string;
  let storage: string;
  /** An installed version whose dist/cli.js reports which folder it was started from. */
  const fakeVersion = (version: string) => {
    const dist = path.join(exts, `${ID}${version}`, 'dist');
    fs.mkdirSync(dist, { recursive: true });
    fs.writeFileSync(path.join(dist, 'cli.js'), `console.log(require('path').basename(require('path').dirname(__dirname)), JSON.stringify(process.argv.slice(2)));\n`);
    return path.dirname(dist);
  };
  beforeEach(() => {
    base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'bet-launcher-')));
    exts = path.join(base, 'extensions');
    storage = path.join(base, 'globalStorage', 'better-edit-tools.better-edit-tools');
  });
  afterEach(() => fs.rmSync(base, { recursive: true, force: true }));

  it('starts the real CLI of the extension it was written for (MCP session with grammars), private and stable', async () => {
    // the built CLI in an extension-shaped folder: the launcher is what the copied configs run
    const ext = path.join(exts, `${ID}0.1.0`);
    fs.mkdirSync(ext, { recursive: true });
    await buildCli();
    // dist/plugin is left out: the packaging tests rebuild it in parallel, and an extension does not ship it
    const pluginDir = path.join(REPO, 'dist', 'plugin');
    fs.cpSync(path.join(REPO, 'dist'), path.join(ext, 'dist'), {
      recursive: true, filter: (f) => !f.endsWith('.map') && f !== pluginDir && !f.startsWith(pluginDir + path.sep),
    });
    const first = refreshLauncher(storage, ext);
    assert.equal(first.path, launcherPath(storage));
    assert.ok(first.changed);
    assert.equal(fs.statSync(first.path).mode & 0o777, 0o600);
    assert.equal(fs.statSync(path.dirname(first.path)).mode & 0o777, 0o700);
    assert.equal(refreshLauncher(storage, ext).changed, false, 'an unchanged launcher is not rewritten');
    const launch = stdioLaunch(first.path, ['/w'], { chipDir: '/c' });
    assert.deepEqual(launch.args, [first.path, '--root', '/w', '--chip-dir', '/c']);
    assert.match((await node([first.path, '--version'])).stdout, /^better-edit-tools 0\.1\.0\n$/);
    await checkStructureTools(process.execPath, [first.path], base);
  });

  it('after an update it runs the newest installed version, comparing versions numerically; activation repoints it', async () => {
    const old = fakeVersion('0.9.0');
    const file = refreshLauncher(storage, old).path;
    assert.match((await node([file, '--root', 'x'])).stdout, /^better-edit-tools\.better-edit-tools-0\.9\.0 \["--root","x"\]/);
    fakeVersion('0.10.0');
    fakeVersion('0.2.0');
    fs.mkdirSync(path.join(exts, `${ID}0.11.0`)); // a half-removed folder without dist/cli.js does not count
    fs.mkdirSync(path.join(exts, 'someone.else-9.0.0', 'dist'), { recursive: true });
    fs.writeFileSync(path.join(exts, 'someone.else-9.0.0', 'dist', 'cli.js'), 'console.log("wrong extension")');
    assert.match((await node([file])).stdout, /0\.9\.0/, 'the recorded version while it is installed');
    fs.rmSync(old, { recursive: true }); // VS Code removes the old version after the update
    assert.match((await node([file])).stdout, /^better-edit-tools\.better-edit-tools-0\.10\.0 /);
    assert.ok(refreshLauncher(storage, path.join(exts, `${ID}0.2.0`)).changed, 'the next activation writes the running version');
    assert.match((await node([file])).stdout, /0\.2\.0/);
  });

  it('exits 1 with a clear message when the extension is no longer installed', async () => {
    const file = refreshLauncher(storage, fakeVersion('1.0.0')).path;
    fs.rmSync(exts, { recursive: true });
    const r = await node([file, '--root', '.']);
    assert.equal(r.code, 1);
    assert.equal(r.stdout, '');
    assert.match(r.stderr, /no longer installed.*Reinstall it.*npx -y -p <better-edit-tools-VERSION.tgz> better-edit-tools/s);
  });
});
