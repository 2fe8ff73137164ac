/**
 * The `better-edit-tools` command (dist/cli.js): starts the stdio server bundle next to it (cli-main.js)
 * through V8's code cache, kept in the same per-user cache folder as the chips
 * (e.g. ~/.cache/better-edit-tools-mcp/code-cache). BET_NO_CODE_CACHE=1 turns the cache off.
 * For a stdio session it first starts the fast front (src/mcp/fastStart.ts), which answers `initialize` while the
 * bundle loads; BET_NO_FAST_START=1 turns that off.
 */
import * as os from 'node:os';
import * as path from 'node:path';
import process from 'node:process';
import { defaultChipDir } from '../core/files/statePaths';
import { LOAD_VENDOR_KEY, nodeOptionsKey, runWithCodeCache } from '../core/files/codeCache';
import { handOverFront, startStdioFront } from '../mcp/fastStart';
import { parseCli } from './args';
import { awaitsClientRoots, resolveRoots } from './roots';

/** A stdio session whose options and roots are valid: anything else (help, errors, recap, --http) goes as before. */
function servesStdio(argv: string[]): boolean {
  if (process.env.BET_NO_FAST_START === '1' || argv[0] === 'recap') return false;
  try {
    const opts = parseCli(argv, process.env);
    if (opts.help || opts.version || opts.http) return false;
    // started in the plugin folder: the roots come from the client later (clientRoots.ts), the front answers now
    if (!awaitsClientRoots(opts, process.cwd(), process.env.PLUGIN_ROOT)) resolveRoots(opts, process.cwd(), process.env.PLUGIN_ROOT);
    return true;
  } catch {
    return false; // main() reports it
  }
}

function load(): void {
  const main = path.join(__dirname, 'cli-main.js');
  if (process.env.BET_NO_CODE_CACHE === '1') {
    require(main); // eslint-disable-line @typescript-eslint/no-require-imports
  } else {
    const cacheBase = path.dirname(defaultChipDir(process.env, process.platform, os.homedir()));
    const cache = { cacheDir: path.join(cacheBase, 'code-cache'), variant: nodeOptionsKey(process.execArgv, process.env.NODE_OPTIONS) };
    // the bundle's vendor files (zod, at its first use) through the same cache
    (globalThis as Record<symbol, unknown>)[LOAD_VENDOR_KEY] = (file: string) => runWithCodeCache({ file, ...cache });
    runWithCodeCache({ file: main, ...cache });
  }
}

if (servesStdio(process.argv.slice(2))) {
  handOverFront(startStdioFront(process.stdin, process.stdout, (m) => process.stderr.write(`[better-edit-tools] ${m}\n`)));
  // after one turn of the event loop: an initialize already in the pipe is answered before the bundle loads
  setImmediate(load);
} else {
  load();
}
