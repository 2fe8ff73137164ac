/**
 * Counting lines without splitting a text into them (a split of a 100 MB file allocates every line). Lines are
 * counted as TextBuffer counts them: "a\nb" and "a\nb\n" both have 2 lines, an empty text has none. Line numbers
 * are 1-based and a line is where its LF is, so a CR before it changes nothing.
 */

/** Lines of a string. */
export function countLines(text: string): number {
  if (text.length === 0) return 0;
  let n = 1;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) n++;
  return text.endsWith('\n') ? n - 1 : n;
}

/** Lines of bytes (UTF-8 or any ASCII-compatible encoding). */
export function countLinesOfBytes(bytes: Uint8Array): number {
  if (bytes.length === 0) return 0;
  const lf = countLF(bytes, bytes.length);
  return bytes[bytes.length - 1] === 0x0a ? lf : lf + 1;
}

/** The line of the byte at `offset`: one more than the LF bytes before it. */
export function lineAtByte(bytes: Uint8Array, offset: number): number {
  return countLF(bytes, offset) + 1;
}

/** The line of the character at string index `index`. */
export function lineAtIndex(text: string, index: number): number {
  let line = 1;
  for (let i = text.indexOf('\n'); i !== -1 && i < index; i = text.indexOf('\n', i + 1)) line++;
  return line;
}

/** LF bytes in bytes[0, end). */
function countLF(bytes: Uint8Array, end: number): number {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let n = 0;
  for (let i = buf.indexOf(0x0a); i !== -1 && i < end; i = buf.indexOf(0x0a, i + 1)) n++;
  return n;
}
