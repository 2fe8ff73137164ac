/**
 * fsync of a directory, which makes a rename (or a create) in it durable. Best effort by design: some platforms
 * (Windows) cannot open a directory and some file systems cannot fsync one, and the data itself is synced already.
 */
import { promises as fs } from 'node:fs';

/** Syncs a directory handle that is already open; a failure is not an error. */
export async function syncDirHandle(handle: fs.FileHandle | undefined): Promise<void> {
  try {
    await handle?.sync();
  } catch {
    // see the module comment
  }
}

/** Opens `dir`, syncs it and closes it; a failure is not an error. */
export async function fsyncDir(dir: string): Promise<void> {
  let handle: fs.FileHandle | undefined;
  try {
    handle = await fs.open(dir, 'r');
  } catch {
    return; // see the module comment
  }
  try {
    await syncDirHandle(handle);
  } finally {
    await handle.close().catch(() => undefined);
  }
}
