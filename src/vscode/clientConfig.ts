/**
 * Config snippets for MCP clients that cannot use the in-process server (they start the stdio CLI themselves).
 * Pure: the caller passes the Node binary, the CLI path (the extension passes its launcher, see cliLauncher.ts)
 * and the roots.
 */
export interface StdioLaunch {
  command: string; // "node"
  args: string[]; // [<launcher or cli.js>, --root, <dir>, ...]
}

export const SERVER_NAME = 'better-edit-tools';

/** `chipDir`: the extension's chip directory, so chips saved by that client show in the VS Code Chips view too. */
export function stdioLaunch(cliPath: string, roots: readonly string[], opts: { chipDir?: string; node?: string } = {}): StdioLaunch {
  const args = [cliPath, ...roots.flatMap((r) => ['--root', r])];
  if (opts.chipDir) args.push('--chip-dir', opts.chipDir);
  return { command: opts.node ?? 'node', args };
}

/** POSIX shell quoting, enough for paths with spaces or quotes. */
export function shellQuote(s: string): string {
  return /^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

/** Claude Code: one `claude mcp add` line (options before the name, the command after `--`). */
export function claudeCodeCommand(l: StdioLaunch): string {
  return ['claude', 'mcp', 'add', '--transport', 'stdio', SERVER_NAME, '--', l.command, ...l.args].map(shellQuote).join(' ');
}

/** Cursor (~/.cursor/mcp.json) and Claude Desktop (claude_desktop_config.json) share the `mcpServers` shape. */
export function mcpServersJson(l: StdioLaunch): string {
  return JSON.stringify({ mcpServers: { [SERVER_NAME]: { command: l.command, args: l.args } } }, null, 2);
}
