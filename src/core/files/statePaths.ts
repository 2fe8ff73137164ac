/**
 * Where the server's state lives (chips, memory; the locks in lockDir.ts). Pure functions of what the caller
 * passes in (core never reads os.homedir() or cwd).
 */
import * as path from 'node:path';
import { isInside } from './ports';
import { workspaceKey } from './workspaceKey';

export const APP_DIR_NAME = 'better-edit-tools-mcp';

/**
 * Upstream's ChipDir(): Windows `%LOCALAPPDATA%\better-edit-tools-mcp\chips`, elsewhere
 * `$XDG_CACHE_HOME/better-edit-tools-mcp/chips` or `<home>/.cache/better-edit-tools-mcp/chips`,
 * and upstream's literal fallback `/tmp/better-edit-tools-mcp-chips` when there is no home.
 */
export function defaultChipDir(env: Record<string, string | undefined>, platform: string, homedir: string): string {
  if (platform === 'win32') {
    const base = env.LOCALAPPDATA || (homedir ? path.win32.join(homedir, 'AppData', 'Local') : '');
    if (base) return path.win32.join(base, APP_DIR_NAME, 'chips');
    return path.win32.join(env.TEMP || env.TMP || 'C:\\Windows\\Temp', `${APP_DIR_NAME}-chips`);
  }
  const xdg = env.XDG_CACHE_HOME;
  // The XDG spec says relative values are invalid and must be ignored.
  if (xdg && path.posix.isAbsolute(xdg)) return path.posix.join(xdg, APP_DIR_NAME, 'chips');
  if (homedir) return path.posix.join(homedir, '.cache', APP_DIR_NAME, 'chips');
  return `/tmp/${APP_DIR_NAME}-chips`;
}

/** `base/<workspaceKey(roots)>`: chips of different workspaces are never mixed (an upstream flaw). */
export function workspaceChipDir(base: string, roots: readonly string[]): string {
  return path.join(base, workspaceKey(roots));
}

/** `<cache>/better-edit-tools-mcp/memory/<workspaceKey(roots)>` for the chip base `<cache>/better-edit-tools-mcp/chips`. */
export function defaultMemoryDir(chipBase: string, roots: readonly string[]): string {
  return path.join(path.dirname(chipBase), 'memory', workspaceKey(roots));
}

/**
 * A warning for each state directory that lies inside a root (e.g. --root ~ puts ~/.cache inside it): the tools
 * would see, and could edit, their own chips and snapshots. Not refused: it may be what the user asked for.
 */
export function stateInsideRoots(roots: readonly string[], dirs: Record<string, string>): string[] {
  const out: string[] = [];
  for (const [what, dir] of Object.entries(dirs)) {
    const root = roots.find((r) => isInside(r, dir));
    if (root) out.push(`note: the ${what} directory ${dir} is inside the root ${root}; the tools can read and edit it there`);
  }
  return out;
}
