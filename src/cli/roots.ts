import * as fs from 'node:fs';
import * as path from 'node:path';
import type { CliOptions } from './args';

/** Real, existing directories; "/" refused unless allowed (a root of "/" sandboxes nothing). */
export function resolveRoots(opts: Pick<CliOptions, 'roots' | 'allowRootDir'>, cwd: string): string[] {
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

