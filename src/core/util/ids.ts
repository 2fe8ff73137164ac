/** Short random ids for records (chips, snapshots). */
import { randomBytes } from 'node:crypto';

/** As upstream's newShortID: 3 random bytes as 6 hex, retried 5 times on collision, then 12 hex. */
export function newShortId(taken: (id: string) => boolean): string {
  for (let attempt = 0; attempt < 6; attempt++) {
    const id = randomBytes(3).toString('hex');
    if (!taken(id)) return id;
  }
  for (;;) {
    const id = randomBytes(6).toString('hex');
    if (!taken(id)) return id;
  }
}
