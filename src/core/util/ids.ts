/** Short random ids for records (chips, snapshots), and random hex for names and tokens. */
import { randomBytes } from 'node:crypto';

/**
 * Random bytes drawn from a pool refilled 4 KiB at a time from the system's CSPRNG: an edit takes several small
 * random names (its lock's token, its temp, its snapshot's id), and one call of randomBytes each cost more than the
 * bytes. Not for secrets (keys, bearer tokens take randomBytes of their own).
 */
const POOL_BYTES = 4096;
let pool = Buffer.alloc(0);
let poolAt = 0;

export function randomHex(bytes: number): string {
  if (bytes > POOL_BYTES) throw new RangeError(`randomHex: at most ${POOL_BYTES} bytes`);
  if (poolAt + bytes > pool.length) {
    pool = randomBytes(POOL_BYTES);
    poolAt = 0;
  }
  const hex = pool.toString('hex', poolAt, poolAt + bytes);
  // each byte is handed out once
  pool.fill(0, poolAt, poolAt + bytes);
  poolAt += bytes;
  return hex;
}

/** As upstream's newShortID: 3 random bytes as 6 hex, retried 5 times on collision, then 12 hex. */
export function newShortId(taken: (id: string) => boolean): string {
  for (let attempt = 0; attempt < 6; attempt++) {
    const id = randomHex(3);
    if (!taken(id)) return id;
  }
  for (;;) {
    const id = randomHex(6);
    if (!taken(id)) return id;
  }
}
