/**
 * A stable path for the stdio CLI of the installed extension. The configs copied for Claude Code, Cursor and
 * Claude Desktop name `<globalStorage>/cli/better-edit-tools.cjs`, not `<extensions>/<id>-<version>/dist/cli.js`,
 * which is deleted by the next update. Every activation rewrites the launcher to point at the running version;
 * a client that starts it after an update but before VS Code ran again finds the newest installed version.
 * No vscode import: the launcher is plain files, tested as such.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

export function launcherPath(globalStorageDir: string): string {
  return path.join(globalStorageDir, 'cli', 'better-edit-tools.cjs');
}

/**
 * The launcher's source for `cliPath` = `<extensions>/<publisher.name>-<version>[-<platform>]/dist/cli.js`.
 * Versions compare numerically (0.10.0 > 0.9.0); only folders that hold dist/cli.js count.
 */
export function launcherSource(cliPath: string): string {
  const extDir = path.dirname(path.dirname(cliPath));
  const id = /^(.*?-)\d+\.\d+\.\d+/.exec(path.basename(extDir))?.[1] ?? `${path.basename(extDir)}-`;
  return `#!/usr/bin/env node
// Better Edit Tools: starts the stdio MCP server of the installed VS Code extension.
// Rewritten by the extension on every activation; do not edit.
'use strict';
const fs = require('fs');
const path = require('path');
const target = ${JSON.stringify(cliPath)};
const extensions = ${JSON.stringify(path.dirname(extDir))};
const id = ${JSON.stringify(id)};
function newestInstalled() {
  let best;
  let names = [];
  try { names = fs.readdirSync(extensions); } catch { /* no extensions folder */ }
  for (const name of names) {
    const m = name.startsWith(id) && /^(\\d+)\\.(\\d+)\\.(\\d+)/.exec(name.slice(id.length));
    const cli = path.join(extensions, name, 'dist', 'cli.js');
    if (!m || !fs.existsSync(cli)) continue;
    const v = m.slice(1).map(Number);
    const newer = !best || (v[0] - best.v[0] || v[1] - best.v[1] || v[2] - best.v[2]) > 0;
    if (newer) best = { v, cli };
  }
  return best && best.cli;
}
const cli = fs.existsSync(target) ? target : newestInstalled();
if (!cli) {
  process.stderr.write('[better-edit-tools] the VS Code extension is no longer installed (looked for ' + target +
    ' and ' + id + '* in ' + extensions + '). Reinstall it and open VS Code once, or start the server from the npm tarball: npx -y -p <better-edit-tools-VERSION.tgz> better-edit-tools --root <dir>\\n');
  process.exit(1);
}
require(cli);
`;
}

/**
 * Writes the launcher for `extensionPath` when it is missing or points elsewhere (a few stat/read calls:
 * cheap enough for activation). Private like all stored state: dir 0700, file 0600 (clients run `node <file>`).
 */
export function refreshLauncher(globalStorageDir: string, extensionPath: string): { path: string; changed: boolean } {
  const file = launcherPath(globalStorageDir);
  const source = launcherSource(path.join(extensionPath, 'dist', 'cli.js'));
  let current: string | undefined;
  try {
    current = fs.readFileSync(file, 'utf8');
  } catch {
    current = undefined;
  }
  if (current === source) return { path: file, changed: false };
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const tmp = `${file}.${process.pid}.tmp`; // several windows activate at once: never a half-written launcher
  fs.writeFileSync(tmp, source, { mode: 0o600 });
  fs.renameSync(tmp, file);
  return { path: file, changed: true };
}
