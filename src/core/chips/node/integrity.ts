/**
 * Integrity of stored chips: each chip file carries `mac`, an HMAC-SHA256 (node:crypto) of its record under a
 * per-user key, so a chip edited on disk by anything but this store (another program, a hand edit, a planted file)
 * is told apart: it is listed as tampered and never inserted. The key lives in a 0600 file outside the workspace
 * (created once, O_EXCL so two servers starting together agree on one), or is handed in (VS Code: SecretStorage).
 * Chips written before signing existed (or by upstream's server) have no `mac`: they stay usable, unsigned.
 */
import { Buffer } from 'node:buffer';
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { constants, promises as fs } from 'node:fs';
import * as path from 'node:path';
import { errnoCode, errorText, ToolError } from '../../errors';
import { readRegularFile } from '../../files/regularFile';

export const KEY_BYTES = 32;

export type Verdict = 'ok' | 'tampered' | 'unsigned';

export class ChipSigner {
  private constructor(private readonly key: Buffer) {}

  static fromKey(key: Uint8Array): ChipSigner {
    if (key.length < 16) throw new ToolError('invalid_argument', `A chip signing key must be at least 16 bytes, got ${key.length}.`);
    return new ChipSigner(Buffer.from(key));
  }

  /** Reads the key file, creating it (0600, its folder 0700) with a random key when missing. */
  static async fromKeyFile(file: string): Promise<ChipSigner> {
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        const key = await readRegularFile(file);
        if (key.length === KEY_BYTES) return new ChipSigner(key);
        if (attempt < 2) {
          await new Promise((r) => setTimeout(r, 20)); // another server is writing it right now
          continue;
        }
        throw new ToolError('io', `The chip signing key ${file} has ${key.length} bytes, expected ${KEY_BYTES}. Delete it to make a new one (chips signed with it will then show as tampered).`);
      } catch (err) {
        if (errnoCode(err) !== 'ENOENT') {
          if (err instanceof ToolError) throw err;
          throw new ToolError('io', `Cannot read the chip signing key ${file}: ${errorText(err)}. Remove it (rm '${file}') and a new key is made at the next start; chips signed with the old key then show as tampered.`);
        }
      }
      await fs.mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
      try {
        const fh = await fs.open(file, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0), 0o600);
        try {
          await fh.writeFile(randomBytes(KEY_BYTES));
          await fh.sync();
        } finally {
          await fh.close();
        }
      } catch (err) {
        if (errnoCode(err) !== 'EEXIST') throw new ToolError('io', `Cannot create the chip signing key ${file}: ${errorText(err)}.`);
        // another server created it first: read theirs (it may still be being written: retry)
        await new Promise((r) => setTimeout(r, 20));
      }
    }
    throw new ToolError('io', `The chip signing key ${file} could not be read or created; try again.`);
  }

  /** The mac of a chip record as stored (without its `mac`). */
  sign(record: object): string {
    return createHmac('sha256', this.key).update(canonical(record)).digest('hex');
  }

  verify(stored: Record<string, unknown>): Verdict {
    const { mac, ...rest } = stored;
    if (mac === undefined) return 'unsigned';
    if (typeof mac !== 'string' || !/^[0-9a-f]{64}$/.test(mac)) return 'tampered';
    return timingSafeEqual(Buffer.from(mac, 'hex'), Buffer.from(this.sign(rest), 'hex')) ? 'ok' : 'tampered';
  }
}

/** JSON with object keys sorted at every level: the same record always gives the same bytes. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    const obj = value as Record<string, unknown>;
    const keys = Object.keys(obj).filter((k) => obj[k] !== undefined).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonical(obj[k])}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
