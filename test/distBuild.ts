/**
 * The built dist/ that tests start (dist/cli.js), copy or package. A build rewrites dist/ in place, so it must not
 * run while another test process reads dist/: under `mocha --parallel` the run's global setup (test/globalSetup.ts)
 * builds once, before any worker starts, and says so in the environment the workers inherit; these helpers then
 * build nothing. A test file run on its own builds here, once per process.
 */
import { execFile } from 'node:child_process';
import * as path from 'node:path';

export const REPO = path.resolve(__dirname, '..');
/** Set (to "1") once this test run built all of dist/; inherited by worker and child processes. */
export const DIST_BUILT_ENV = 'BET_TEST_DIST_BUILT';

const builds = new Map<string, Promise<void>>();

function esbuild(args: string[]): Promise<void> {
  const key = args.join(' ');
  let pending = builds.get(key);
  if (!pending) {
    pending = new Promise<void>((resolve, reject) => {
      execFile(process.execPath, ['esbuild.mjs', ...args], { cwd: REPO }, (err, _out, stderr) =>
        err ? reject(new Error(`building dist/ (node esbuild.mjs ${key}) failed: ${stderr || err.message}`)) : resolve(),
      );
    });
    builds.set(key, pending);
  }
  return pending;
}

/** All of dist/ (`node esbuild.mjs`): the bundles, grammars and ranks that the .vsix and the npm package ship. */
export function buildDist(): Promise<void> {
  return process.env[DIST_BUILT_ENV] ? Promise.resolve() : esbuild([]);
}

/** dist/cli.js and what it loads (`node esbuild.mjs cli`), unless all of dist/ was built. */
export function buildCli(): Promise<void> {
  return process.env[DIST_BUILT_ENV] ? Promise.resolve() : (builds.get('') ?? esbuild(['cli']));
}

/** dist/plugin (`node scripts/package-plugins.mjs`), the folders and archives `npm pack` ships; built by the
 * global setup too, since it rewrites dist/plugin in place while other tests copy dist/. */
export function buildPlugins(): Promise<void> {
  if (process.env[DIST_BUILT_ENV]) return Promise.resolve();
  let pending = builds.get('plugins');
  if (!pending) {
    pending = buildDist().then(() => new Promise<void>((resolve, reject) => {
      execFile(process.execPath, [path.join('scripts', 'package-plugins.mjs')], { cwd: REPO }, (err, _out, stderr) =>
        err ? reject(new Error(`building dist/plugin failed: ${stderr || err.message}`)) : resolve(),
      );
    }));
    builds.set('plugins', pending);
  }
  return pending;
}
