/**
 * Libraries too large to parse on every start, loaded on first use: iconv-lite (its CJK tables are ~1.6 MB of the
 * bundle) and jschardet (loaded on a worker thread: guessWorker.ts). Bundled builds keep each one in its own file,
 * `vendor/<name>.js` beside the bundle (esbuild.mjs writes them); run from source, the package itself is loaded.
 */
import { existsSync } from 'node:fs';
import * as path from 'node:path';

type VendorName = 'iconv-lite' | 'jschardet';

const loaded = new Map<string, unknown>();

/** The file to load `name` from: the bundled copy beside this bundle, else the package's own entry. */
export function vendorPath(name: VendorName): string {
  const beside = path.join(__dirname, 'vendor', `${name}.js`);
  return existsSync(beside) ? beside : require.resolve(name);
}

export function vendor<T>(name: VendorName): T {
  let mod = loaded.get(name);
  if (mod === undefined) {
    // a variable, not a literal: the bundler leaves these to run time
    mod = require(vendorPath(name)) as unknown; // eslint-disable-line @typescript-eslint/no-require-imports
    loaded.set(name, mod);
  }
  return mod as T;
}
