/**
 * The process's umask, read once from /proc/self/status (Linux): a file created with mode M gets M & ~umask, so a
 * create whose mode the umask leaves whole needs no chmod after it. process.umask() without an argument is
 * deprecated (it sets the mask to read it). Undefined where it cannot be read: callers chmod then, as before.
 */
import { readFileSync } from 'node:fs';

let cached: number | null | undefined;

export function umaskNow(): number | undefined {
  if (cached === undefined) {
    try {
      const m = /^Umask:\s+([0-7]+)$/m.exec(readFileSync('/proc/self/status', 'utf8'));
      cached = m ? parseInt(m[1]!, 8) : null;
    } catch {
      cached = null;
    }
  }
  return cached ?? undefined;
}
