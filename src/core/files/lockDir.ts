/**
 * Where the cross-process edit locks live. Every server process of a user must use the same folder, whichever
 * host started it (the VS Code extension host, a stdio CLI for another agent), so it is derived from the same
 * cache base as the CLI's chips: `<cache>/better-edit-tools-mcp/locks`. Pure: the composition roots pass the
 * environment and home directory in.
 */
import * as path from 'node:path';
import { defaultChipDir } from './statePaths';

export function defaultLockDir(env: Record<string, string | undefined>, platform: string, homedir: string): string {
  const chips = defaultChipDir(env, platform, homedir);
  const p = platform === 'win32' ? path.win32 : path.posix;
  // `<base>/chips` normally; `<tmp>/better-edit-tools-mcp-chips` when there is no home (then `…-locks`)
  return p.basename(chips) === 'chips' ? p.join(p.dirname(chips), 'locks') : chips.replace(/chips$/, 'locks');
}
