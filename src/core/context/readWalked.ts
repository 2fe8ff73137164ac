/**
 * How the overview reads and stats the files a walk found: only regular files whose real location is inside
 * the walked root. A walk lists names; between the listing and the read, a file can become a link to a file
 * outside, a folder on its path a link to a folder outside, or a FIFO that would block the read forever.
 */
import { lstatSync, type Stats } from 'node:fs';
import { isInside } from '../files/sandbox';
import { NotRegularFileError, OutsideError, readConfinedFile } from '../files/regularFile';

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
