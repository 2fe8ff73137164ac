/**
 * How a worker thread of the context modes starts: the bundled script beside the bundle that runs (dist/), else
 * the TypeScript source through tsx (tests and benches run from source).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';

/** `bundled`: the script's name in dist/; `source`: its module's file name beside this one. */
export function workerScript(bundled: string, source: string): { file: string; eval: boolean } {
  const built = join(__dirname, bundled);
  if (existsSync(built)) return { file: built, eval: false };
  const tsx = 'tsx/cjs'; // a variable: the bundler leaves it alone, and the bundle never takes this path
  return { file: `require(${JSON.stringify(require.resolve(tsx))}); require(${JSON.stringify(join(__dirname, source))});`, eval: true };
}
