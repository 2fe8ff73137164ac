import * as fs from 'node:fs';
import * as path from 'node:path';
import type { CliOptions } from './args';

/**
 * True when resolveRoots would refuse the plugin folder: no --root, and the current directory is PLUGIN_ROOT (or
 * inside it). The stdio server then takes the project folders from the client's MCP roots (clientRoots.ts).
 */
export function awaitsClientRoots(opts: Pick<CliOptions, 'roots'>, cwd: string, pluginRoot?: string): boolean {
  return opts.roots.length === 0 && !!pluginRoot && isWithin(realOr(pluginRoot), realOr(cwd));
}

/**
 * Real, existing directories; "/" refused unless allowed (a root of "/" sandboxes nothing). `pluginRoot` is the
 * PLUGIN_ROOT an Agent Plugins host sets (spec 1.0.0 §9.1): such a host starts the server in the plugin folder
 * (§7.2.1), which must not become the sandbox when no --root was given.
 */
export function resolveRoots(opts: Pick<CliOptions, 'roots' | 'allowRootDir'>, cwd: string, pluginRoot?: string): string[] {
  if (awaitsClientRoots(opts, cwd, pluginRoot)) {
    throw new Error(
      `refusing to use the plugin folder (${cwd}) as the sandbox root: the host started the server there and gave no --root. ` +
        'Add "--root", "<your project directory>" to the args of better-edit-tools in the plugin\'s mcp.json, or start the host from a client that starts servers in the project.',
    );
  }
  const given = opts.roots.length > 0 ? opts.roots : [cwd];
  return given.map((r) => {
    const abs = path.resolve(cwd, r);
    let real: string;
    try {
      real = fs.realpathSync.native(abs);
    } catch {
      throw new Error(`--root ${r}: ${abs} does not exist; pass an existing project directory`);
    }
    if (!fs.statSync(real).isDirectory()) throw new Error(`--root ${r}: ${real} is not a directory`);
    if (path.parse(real).root === real && !opts.allowRootDir) {
      const why = opts.roots.length > 0 ? `--root ${r}` : `the current directory (${cwd}, used because no --root was given)`;
      throw new Error(
        `refusing to use ${real} as the sandbox root: ${why} is the file system root, which would let the tools ` +
          'edit any file. MCP clients often start servers with the working directory "/". ' +
          'Pass --root <your project directory> (or --allow-root-dir if you really mean it).',
      );
    }
    return real;
  });
}


function realOr(p: string): string {
  try {
    return fs.realpathSync.native(p);
  } catch {
    return path.resolve(p);
  }
}

function isWithin(parent: string, child: string): boolean {
  const rel = path.relative(parent, child);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}
