/**
 * Small file-system helpers shared by the chip and history stores: a whole-or-nothing write
 * (temp file in the same directory + rename) and errno checks.
 */
import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';

export interface AtomicWriteOptions {
  mode: number;
  /** fsync the data before the rename (durable), and the directory after it. */
  fsync: boolean;
}

/** Temp names start with `.tmp-` so directory scans never mistake them for records. */
export function tempNameFor(target: string): string {
  return path.join(
    path.dirname(target),
    `.tmp-${path.basename(target)}.${process.pid}.${randomBytes(4).toString('hex')}`,
  );
}

export async function writeFileAtomic(target: string, data: string | Uint8Array, opts: AtomicWriteOptions): Promise<void> {
  const tmp = tempNameFor(target);
  let handle: fs.FileHandle | undefined;
  try {
    handle = await fs.open(tmp, 'wx', opts.mode);
    await handle.writeFile(data);
    // open()'s mode is filtered by the umask; chips and snapshots hold file contents, so force it.
    await handle.chmod(opts.mode);
    if (opts.fsync) await handle.sync();
    await handle.close();
    handle = undefined;
    await fs.rename(tmp, target);
  } catch (err) {
    if (handle) await handle.close().catch(() => undefined);
    await fs.unlink(tmp).catch(() => undefined);
    throw err;
  }
  if (opts.fsync) await fsyncDir(path.dirname(target));
}

/** Makes a rename durable. Some platforms (Windows) cannot open a directory: that is not an error there. */
async function fsyncDir(dir: string): Promise<void> {
  let handle: fs.FileHandle | undefined;
  try {
    handle = await fs.open(dir, 'r');
    await handle.sync();
  } catch {
    // best effort by design: the data itself is already synced
  } finally {
    await handle?.close().catch(() => undefined);
  }
}
