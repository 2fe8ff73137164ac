/**
 * The per-user lock folder of earlier versions, `<cache>/better-edit-tools-mcp/locks`. Edit locks now live beside
 * the edited file (crossProcessLock.ts), so servers with different caches agree; this folder is only read at start,
 * to clear dead owners' locks an earlier version left there. Pure: the composition roots pass the environment and
 * home directory in.
 */
import * as path from 'node:path';
import { defaultChipDir } from './statePaths';

export function defaultLockDir(env: Record<string, string | undefined>, platform: string, homedir: string): string {
  const chips = defaultChipDir(env, platform, homedir);
  const p = platform === 'win32' ? path.win32 : path.posix;
  // `<base>/chips` normally; `<tmp>/better-edit-tools-mcp-chips` when there is no home (then `…-locks`)
  return p.basename(chips) === 'chips' ? p.join(p.dirname(chips), 'locks') : chips.replace(/chips$/, 'locks');
}
