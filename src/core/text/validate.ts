/**
 * Is this buffer text we may edit? Binary (NUL bytes, many control characters) and non-UTF-8 files are
 * refused with a reason, before any edit, by every operation (upstream only checked in be-read, and only
 * a 512-byte sample, which rejected valid UTF-8 whose multi-byte character straddled byte 512).
 */
import { isUtf8 } from 'node:buffer';
import { ToolError } from '../errors';
import { lineAtByte, lineAtIndex } from './lineCount';

export const UTF8_BOM = Buffer.from([0xef, 0xbb, 0xbf]);

/** Bytes of the control-character sample (control share is a heuristic; NUL and UTF-8 checks are exact). */
const CONTROL_SAMPLE_BYTES = 8192;
const MAX_CONTROL_SHARE = 1 / 6;

export function bomLength(bytes: Uint8Array): number {
  return bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
}

/** The control bytes that suggest a binary file: tab, LF, VT, FF, CR and ESC (ANSI colours in logs) are normal in text. */
// eslint-disable-next-line no-control-regex -- control bytes are what it looks for
const SUSPICIOUS_CONTROLS = /[\x00-\x08\x0e-\x1a\x1c-\x1f\x7f]/g;

/**
 * How many of the first `end` bytes are suspicious controls. Matched by the regular expression engine over the bytes
 * read as latin1 (one character per byte): a loop over the 8 KB sample in JS was ~1.5 ms of a later start's first
 * read, before the JIT had seen it.
 */
export function suspiciousControls(bytes: Uint8Array, end: number): number {
  const sample = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(end, bytes.length)).toString('latin1');
  return sample.match(SUSPICIOUS_CONTROLS)?.length ?? 0;
}

/** Offset of the first byte that does not start a valid UTF-8 sequence (only called once we know there is one). */
export function firstInvalidUtf8(bytes: Uint8Array): number {
  let i = 0;
  const n = bytes.length;
  while (i < n) {
    const b = bytes[i];
    if (b < 0x80) {
      i++;
      continue;
    }
    let need: number;
    let min: number;
    if (b >= 0xc2 && b <= 0xdf) {
      need = 1;
      min = 0x80;
    } else if (b >= 0xe0 && b <= 0xef) {
      need = 2;
      min = 0x800;
    } else if (b >= 0xf0 && b <= 0xf4) {
      need = 3;
      min = 0x10000;
    } else return i;
    let cp = b & (need === 1 ? 0x1f : need === 2 ? 0x0f : 0x07);
    for (let k = 1; k <= need; k++) {
      const c = bytes[i + k];
      if (c === undefined || (c & 0xc0) !== 0x80) return i;
      cp = (cp << 6) | (c & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return i;
    i += need + 1;
  }
  return -1;
}

/**
 * Throws ToolError('binary_file') or ToolError('encoding') unless `bytes` is UTF-8 text.
 * `label` names the file in the message.
 */
export function assertText(bytes: Buffer, label: string): void {
  const nul = bytes.indexOf(0);
  if (nul !== -1) {
    throw new ToolError(
      'binary_file',
      `${label} looks like a binary file (NUL byte at offset ${nul}, line ${lineAtByte(bytes, nul)}); ` +
        'these tools edit UTF-8 text only. Use a dedicated tool for binary files.',
      { offset: nul },
    );
  }
  const sampleEnd = Math.min(bytes.length, CONTROL_SAMPLE_BYTES);
  const controls = suspiciousControls(bytes, sampleEnd);
  if (sampleEnd > 0 && controls / sampleEnd > MAX_CONTROL_SHARE) {
    throw new ToolError(
      'binary_file',
      `${label} looks like a binary file (${controls} control characters in its first ${sampleEnd} bytes); ` +
        'these tools edit UTF-8 text only.',
      { controls, sampled: sampleEnd },
    );
  }
  if (!isUtf8(bytes)) {
    const bad = firstInvalidUtf8(bytes);
    const line = lineAtByte(bytes, bad);
    const hex = bad >= 0 ? bytes[bad].toString(16).padStart(2, '0') : '??';
    throw new ToolError(
      'encoding',
      `${label} is not valid UTF-8: byte 0x${hex} at offset ${bad} (line ${line}) does not start a valid ` +
        'UTF-8 sequence, and no legacy encoding was recognised for it. If it is text in one (GBK, Big5, Shift_JIS, ' +
        'windows-1252...), name it: VS Code files.encoding, or the CLI option --encoding "GLOB=NAME".',
      { offset: bad, line },
    );
  }
}

/** UTF-16 index of the first lone surrogate in `text`, or -1 (a JS string is not always valid Unicode). */
export function firstLoneSurrogate(text: string): number {
  // isWellFormed (Node 20+) answers in native code; the loop runs only to locate the culprit.
  const native = (text as { isWellFormed?: () => boolean }).isWellFormed;
  if (native && native.call(text)) return -1;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0xd800 || c > 0xdfff) continue;
    if (c <= 0xdbff) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        i++;
        continue;
      }
    }
    return i;
  }
  return -1;
}

/**
 * Throws ToolError('encoding') when `text` holds a lone surrogate: written as UTF-8 it would become U+FFFD
 * without a word. `label` names the argument. (Invalid UTF-8 bytes never reach a JS string as such: decoders
 * have turned them into U+FFFD already, indistinguishable from a real U+FFFD.)
 */
export function assertWellFormedText(text: string, label: string): void {
  const at = firstLoneSurrogate(text);
  if (at === -1) return;
  const line = lineAtIndex(text, at);
  const unit = text.charCodeAt(at).toString(16).toUpperCase();
  throw new ToolError(
    'encoding',
    `${label} is not valid Unicode: a lone surrogate U+${unit} at character ${at} (line ${line}), half of a pair ` +
      '(e.g. an emoji cut in two, or a "\\ud83d" escape without its partner). Written as UTF-8 it would become ' +
      'U+FFFD, so nothing was written. Send the whole character (both halves) or remove it.',
    { offset: at, line },
  );
}
