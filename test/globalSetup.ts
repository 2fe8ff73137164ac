/**
 * Mocha global fixture (.mocharc.json `require`): runs once in the main process, before the parallel workers
 * start. It builds dist/ (plugins included) so that no worker rebuilds it while another one starts dist/cli.js (see distBuild.ts).
 */
import { buildDist, buildPlugins, DIST_BUILT_ENV } from './distBuild';

export async function mochaGlobalSetup(): Promise<void> {
  await buildDist();
  await buildPlugins();
  process.env[DIST_BUILT_ENV] = '1';
}
