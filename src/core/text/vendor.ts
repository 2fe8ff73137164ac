/**
 * Libraries too large to parse on every start, loaded on first use: iconv-lite (its CJK tables are ~1.6 MB of the
 * bundle) and jschardet. Bundled builds keep each one in its own file, `vendor/<name>.js` beside the bundle
 * (esbuild.mjs writes them); run from source, the package itself is loaded.
 */
import { existsSync } from 'node:fs';
import * as path from 'node:path';

const loaded = new Map<string, unknown>();

export function vendor<T>(name: 'iconv-lite' | 'jschardet'): T {
  let mod = loaded.get(name);
  if (mod === undefined) {
    const beside = path.join(__dirname, 'vendor', `${name}.js`);
    // a variable, not a literal: the bundler leaves these to run time
    const id = existsSync(beside) ? beside : name;
    mod = require(id) as unknown; // eslint-disable-line @typescript-eslint/no-require-imports
    loaded.set(name, mod);
  }
  return mod as T;
}
