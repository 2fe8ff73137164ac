/** A file is binary for the repository map when its first 8 KiB hold a NUL byte (pure: the walker and the records share it). */
export function looksBinary(bytes: Uint8Array): boolean {
  const n = Math.min(bytes.length, 8192);
  for (let i = 0; i < n; i++) if (bytes[i] === 0) return true;
  return false;
}
