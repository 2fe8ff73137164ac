import { realpathSync } from 'node:fs';
import * as path from 'node:path';
import { sha256Hex } from '../util/sha256';

/**
 * A stable key for a set of workspace roots: the first 16 hex of sha256 over the sorted real paths
 * (symlinks resolved when the root exists), so the same workspace opened through a link shares its key.
 */
export function workspaceKey(roots: readonly string[]): string {
  const real = roots.map((root) => {
    // Roots are absolute already; a relative one is kept as given (core never resolves against cwd).
    const abs = path.isAbsolute(root) ? path.normalize(root) : root;
    try {
      return realpathSync.native(abs);
    } catch {
      return abs;
    }
  });
  const unique = [...new Set(real)].sort();
  return sha256Hex(Buffer.from(unique.join('\n'), 'utf8')).slice(0, 16);
}
