/**
 * A whole-or-nothing write of a state file (a chip, a snapshot, a saved memory session, a journal): a temp file
 * in the same directory, then a rename.
 */
import { constants } from 'node:fs';
import * as path from 'node:path';
import { fsyncDir } from './dirSync';
import { poolCalls, type FsCalls, type Handle } from './fsCalls';
import { stateTempPath } from './tempFiles';
import { umaskNow } from './umask';

export interface AtomicWriteOptions {
  mode: number;
  /** fsync the data before the rename (durable), and the directory after it. */
  fsync: boolean;
  /** How the calls are made (fsCalls.ts: direct in a folder on a local file system); the fsyncs go through the pool. */
  calls?: FsCalls;
}

const CREATE_NEW = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL;

export async function writeFileAtomic(target: string, data: string | Uint8Array, opts: AtomicWriteOptions): Promise<void> {
  const tmp = stateTempPath(target);
  const calls = opts.calls ?? poolCalls;
  let handle: Handle | undefined;
  try {
    handle = await calls.open(tmp, CREATE_NEW, opts.mode);
    // open()'s mode is filtered by the umask; chips and snapshots hold file contents, so force it (alongside the
    // data) unless the umask leaves it whole (the usual case: one call less per state file)
    const narrowed = ((umaskNow() ?? 0o777) & opts.mode) !== 0;
    await Promise.all([handle.writeFile(data), narrowed ? handle.chmod(opts.mode) : undefined]);
    if (opts.fsync) await handle.sync();
    await handle.close();
    handle = undefined;
    await calls.rename(tmp, target);
  } catch (err) {
    if (handle) await handle.close().catch(() => undefined);
    await calls.unlink(tmp).catch(() => undefined);
    throw err;
  }
  if (opts.fsync) await fsyncDir(path.dirname(target));
}
