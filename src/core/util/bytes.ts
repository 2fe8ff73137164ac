/** True when `bytes` is exactly `parts` one after another (no copy of them joined). */
export function equalsParts(bytes: Buffer, parts: readonly Uint8Array[]): boolean {
  let off = 0;
  for (const part of parts) {
    if (!bytes.subarray(off, off + part.length).equals(part)) return false;
    off += part.length;
  }
  return off === bytes.length;
}
