import { createHash, type Hash } from 'node:crypto';

/** sha256 of `bytes`, as lowercase hex. */
export function sha256Hex(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

const CHUNK = 1024 * 1024;

/**
 * sha256 hex of the concatenation of `parts`, a megabyte at a time with a yield in between: a large file's hash
 * (edit history, viewed_code_id, read-back proof) runs in the gaps of concurrent I/O instead of blocking the loop.
 */
export async function sha256Parts(...parts: Uint8Array[]): Promise<string> {
  const h = createHash('sha256');
  for (const p of parts) {
    for (let off = 0; off < p.length; off += CHUNK) {
      h.update(p.subarray(off, Math.min(p.length, off + CHUNK)));
      if (p.length > CHUNK) await new Promise<void>((resolve) => setImmediate(resolve));
    }
  }
  return h.digest('hex');
}

/** Per holder and lead: the hash state after the lead and each whole `chunk` of bytes hashed so far (index k: k chunks). */
const marks = new WeakMap<object, Map<string, Hash[]>>();

/**
 * sha256 hex of `lead` (UTF-8) then `bytes[0, end)`, resuming from the last whole megabyte an earlier call for the
 * same `holder` and lead passed (Hash.copy): a viewed_code_id of a page deep in a big file hashes at most a
 * megabyte more than the page before it, not the whole prefix again. `holder` (the file's TextBuffer) stands for
 * `bytes`, which must not change while it lives; the states go with it.
 */
export async function prefixSha256(holder: object, bytes: Uint8Array, end: number, lead = '', chunk = CHUNK): Promise<string> {
  // less than a chunk (every small file): nothing to resume from or keep
  if (end < chunk) return createHash('sha256').update(lead, 'utf8').update(bytes.subarray(0, end)).digest('hex');
  let byLead = marks.get(holder);
  if (!byLead) marks.set(holder, (byLead = new Map()));
  let states = byLead.get(lead);
  if (!states) {
    const first = createHash('sha256');
    if (lead) first.update(lead, 'utf8');
    byLead.set(lead, (states = [first]));
  }
  let k = Math.min(states.length - 1, Math.floor(end / chunk));
  const h = states[k].copy();
  for (; (k + 1) * chunk <= end; k++) {
    h.update(bytes.subarray(k * chunk, (k + 1) * chunk));
    if (states.length === k + 1) states.push(h.copy());
    if (chunk >= CHUNK) await new Promise<void>((resolve) => setImmediate(resolve));
  }
  h.update(bytes.subarray(k * chunk, end));
  return h.digest('hex');
}
