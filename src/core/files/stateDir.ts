/** The private directory a store keeps its state in (chips, snapshots): absolute, created 0700 when missing. */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { errorText, ToolError } from '../errors';

/** `what` names the directory in the errors: `chip`, `snapshot`. */
export async function createStateDir(dir: string, what: string): Promise<void> {
  if (!path.isAbsolute(dir)) throw new ToolError('invalid_argument', `The ${what} directory must be an absolute path, got "${dir}".`);
  await fs.mkdir(dir, { recursive: true, mode: 0o700 }).catch((err: unknown) => {
    throw new ToolError('io', `Cannot create the ${what} directory ${dir}: ${errorText(err)}.`);
  });
}
