/**
 * How the overview reads and stats the files a walk found: only regular files whose real location is inside
 * the walked root. A walk lists names; between the listing and the read, a file can become a link to a file
 * outside, a folder on its path a link to a folder outside, or a FIFO that would block the read forever.
 *
 * Listings and stats stay on disk (the FileStore has no listing API, and an unsaved buffer does not change the
 * file's stat: the host invalidates the path when the buffer changes). The text of a file comes through the
 * FileStore: its unsaved editor buffer when it has one.
 */
import { lstatSync, type Stats } from 'node:fs';
import type { FileStore } from '../../files/fileStore';
import type { MapFileReader } from '../mapPorts';
import { isInside } from '../../files/ports';
import { NotRegularFileError, OutsideError, readConfinedFile, readConfinedFileSync } from '../../files/regularFile';

/** The file's bytes; undefined when it is not a regular file inside `root` any more (leave it out of the map). */
export async function readWalkedFile(root: string, abs: string): Promise<Buffer | undefined> {
  try {
    return await readConfinedFile(abs, (real) => isInside(root, real));
  } catch (e) {
    if (e instanceof NotRegularFileError || e instanceof OutsideError) return undefined;
    throw e;
  }
}

/** Synchronous twin of readWalkedFile (the map reads its cold index in time slices). */
export function readWalkedFileSync(root: string, abs: string): Buffer | undefined {
  try {
    return readConfinedFileSync(abs, (real) => isInside(root, real));
  } catch (e) {
    if (e instanceof NotRegularFileError || e instanceof OutsideError) return undefined;
    throw e;
  }
}

/** Straight from the disk, confined (the benchmarks and the map's own tests; the server goes through its FileStore). */
export const diskReader: MapFileReader = { read: readWalkedFile, readSync: readWalkedFileSync };

/**
 * Through a FileStore: the confined disk read proves the file is a regular file really inside the root (the
 * kernel says what was opened; a path check before FileStore.read could be raced by a folder swapped for a link),
 * then the store's unsaved buffer, when it has one, is the text described. One disk read per file either way.
 */
export function fileStoreReader(files: Pick<FileStore, 'unsaved'>): MapFileReader {
  return {
    async read(root, abs) {
      const disk = await readWalkedFile(root, abs);
      if (!disk) return undefined;
      return files.unsaved?.(abs) ?? disk;
    },
    readSync(root, abs) {
      const disk = readWalkedFileSync(root, abs);
      if (!disk) return undefined;
      return files.unsaved?.(abs) ?? disk;
    },
  };
}

/** lstat, not stat: a link is not followed (and not a file of the map); undefined when missing. */
export function lstatOrUndefined(abs: string): Stats | undefined {
  try {
    return lstatSync(abs);
  } catch {
    return undefined;
  }
}
