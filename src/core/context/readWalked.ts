/**
 * How the overview reads and stats the files a walk found: only regular files whose real location is inside
 * the walked root. A walk lists names; between the listing and the read, a file can become a link to a file
 * outside, a folder on its path a link to a folder outside, or a FIFO that would block the read forever.
 */
import { lstatSync, type Stats } from 'node:fs';
import { lstat } from 'node:fs/promises';
import { ToolError } from '../errors';
import { isInside } from '../files/sandbox';
import { fileKind, NotRegularFileError, OutsideError, readConfinedFile } from '../files/regularFile';

/** The file's bytes; undefined when it is not a regular file inside `root` any more (leave it out of the map). */
export async function readWalkedFile(root: string, abs: string): Promise<Buffer | undefined> {
  try {
    return await readConfinedFile(abs, (real) => isInside(root, real));
  } catch (e) {
    if (e instanceof NotRegularFileError || e instanceof OutsideError) return undefined;
    throw e;
  }
}

/** lstat, not stat: a link is not followed (and not a file of the map); undefined when missing. */
export function lstatOrUndefined(abs: string): Stats | undefined {
  try {
    return lstatSync(abs);
  } catch {
    return undefined;
  }
}

/** Refuses (without opening it) a path that is not a regular file: a FIFO would block the read forever. */
export async function assertRegularFile(abs: string, display: string): Promise<void> {
  const st = await lstat(abs).catch(() => undefined);
  if (st && !st.isFile()) {
    throw new ToolError('invalid_argument', `${display} is ${fileKind(st)}, not a regular file; it was not opened. Read a regular file.`);
  }
}
