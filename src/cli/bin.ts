/**
 * The `better-edit-tools` command (dist/cli.js): starts the stdio server bundle next to it (cli-main.js)
 * through V8's code cache, kept in the same per-user cache folder as the chips
 * (e.g. ~/.cache/better-edit-tools-mcp/code-cache). BET_NO_CODE_CACHE=1 turns the cache off.
 */
import * as os from 'node:os';
import * as path from 'node:path';
import process from 'node:process';
import { defaultChipDir } from '../core/chips/paths';
import { runWithCodeCache } from '../core/codeCache';

const main = path.join(__dirname, 'cli-main.js');
if (process.env.BET_NO_CODE_CACHE === '1') {
  require(main); // eslint-disable-line @typescript-eslint/no-require-imports
} else {
  const cacheBase = path.dirname(defaultChipDir(process.env, process.platform, os.homedir()));
  runWithCodeCache({ file: main, cacheDir: path.join(cacheBase, 'code-cache') });
}
