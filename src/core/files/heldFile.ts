/** A lock file its holder keeps open: removed at release only while the name still holds that inode. */
import { poolCalls, type FsCalls, type Handle } from './fsCalls';

/**
 * Closes `held` and removes `file` if the name is still the inode held open (it cannot be reused while open, so the
 * same inode is our own lock; another means ours was broken as abandoned and made anew by someone else). A name
 * already gone is nothing to release. `calls`: how `file` is looked at and removed (fsCalls.ts).
 */
export async function releaseHeldFile(file: string, held: Handle, calls: FsCalls = poolCalls): Promise<void> {
  let closing: Promise<void> | undefined;
  try {
    const [mine, there] = await Promise.all([held.stat(), calls.lstat(file)]);
    closing = held.close().catch(() => undefined);
    if (mine.ino === there.ino && mine.dev === there.dev) await calls.unlink(file);
  } catch {
    // gone already: nothing to release
  } finally {
    await (closing ?? held.close().catch(() => undefined));
  }
}
