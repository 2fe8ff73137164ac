/**
 * Bounds on what a failed call leaves behind. A 15 MiB `file` argument used to be echoed twice in the error text
 * (31 MiB) and stored again in the chip's args and err_msg (46 MiB of chips): every argument quoted in an error
 * or kept as a chip's metadata is cut to a short head; only `content` (the agent's work, the point of a chip) is
 * kept whole, up to a size limit.
 */
import { Buffer } from 'node:buffer';

/** Characters of an argument quoted in an error text or kept in a chip's metadata. */
export const ARG_HEAD_CHARS = 200;
/** An error text (and a chip's err_msg) never exceeds this many characters. */
export const MAX_ERROR_CHARS = 4000;
/** The argument a failed edit chip keeps whole. */
export const CHIP_CONTENT_ARG = 'content';

/** `text` when short, else its first `max` characters + "… (N more chars)"; never ends in half a surrogate pair. */
export function headOfArg(text: string, max = ARG_HEAD_CHARS): string {
  if (text.length <= max) return text;
  let end = max;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--;
  return `${text.slice(0, end)}… (${text.length - end} more chars)`;
}

/** Strings and object keys within `value` longer than ARG_HEAD_CHARS (bounded walk: depth 4, 1,000 values). */
export function longStringsIn(value: unknown, min = ARG_HEAD_CHARS): string[] {
  const found = new Set<string>();
  let budget = 1000;
  const walk = (v: unknown, depth: number): void => {
    if (budget-- <= 0) return;
    if (typeof v === 'string') {
      if (v.length > min) found.add(v);
      return;
    }
    if (v === null || typeof v !== 'object' || depth > 4) return;
    for (const [k, item] of Object.entries(v as Record<string, unknown>)) {
      if (budget <= 0) return;
      if (k.length > min) found.add(k);
      walk(item, depth + 1);
    }
  };
  walk(value, 0);
  // Longest first: a long argument may contain a shorter one.
  return [...found].sort((a, b) => b.length - a.length);
}

/** A run of this many characters without a space is a quoted value (a resolved path, a blob), never prose. */
const LONG_RUN = new RegExp(`\\S{${2 * ARG_HEAD_CHARS + 1},}`, 'g');

/**
 * An error text an agent can read: every long argument quoted in it replaced by its head, and so is any other
 * long run without a space (the core quotes a path resolved against a root, not the argument as given); then
 * the whole is cut to MAX_ERROR_CHARS (head and tail kept: the reason and the advice are at the ends).
 */
export function boundErrorText(message: string, args: unknown, max = MAX_ERROR_CHARS): string {
  let out = message;
  for (const s of longStringsIn(args)) if (out.includes(s)) out = out.split(s).join(headOfArg(s));
  out = out.replace(LONG_RUN, (run) => headOfArg(run));
  if (out.length <= max) return out;
  const tail = Math.floor(max / 5);
  const head = max - tail - 40;
  return `${out.slice(0, head)}… (${out.length - head - tail} chars omitted) …${out.slice(out.length - tail)}`;
}

function boundValue(value: unknown, depth: number): unknown {
  if (typeof value === 'string') return headOfArg(value);
  if (value === null || typeof value !== 'object') return value;
  if (depth >= 4) return headOfArg(safeJson(value));
  if (Array.isArray(value)) {
    const items = value.slice(0, 50).map((v) => boundValue(v, depth + 1));
    if (value.length > 50) items.push(`… (${value.length - 50} more items)`);
    return items;
  }
  const out: Record<string, unknown> = {};
  let n = 0;
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    if (++n > 50) {
      out['…'] = `(${Object.keys(value).length - 50} more keys)`;
      break;
    }
    out[headOfArg(k)] = boundValue(v, depth + 1);
  }
  return out;
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

export interface BoundedChipArgs {
  args: Record<string, unknown>;
  /** Set when `content` was over the limit: its size in UTF-8 bytes and the head kept. */
  contentCut?: { bytes: number; keptBytes: number };
}

/**
 * A failed call's arguments as a chip keeps them: `content` whole when at most `maxContentBytes` (else its first
 * `headBytes`, with `_truncated: { content: <bytes> }`), every other argument bounded to a short head.
 */
export function boundChipArgs(args: Record<string, unknown>, maxContentBytes: number, headBytes: number): BoundedChipArgs {
  const out: Record<string, unknown> = {};
  let contentCut: BoundedChipArgs['contentCut'];
  for (const [key, value] of Object.entries(args)) {
    if (key === CHIP_CONTENT_ARG && typeof value === 'string') {
      // 3 UTF-8 bytes per UTF-16 unit at most: no byte count needed for the common small content.
      const bytes = value.length * 3 <= maxContentBytes ? 0 : Buffer.byteLength(value, 'utf8');
      if (bytes > maxContentBytes) {
        const head = utf8Head(value, headBytes);
        out[key] = head;
        contentCut = { bytes, keptBytes: Buffer.byteLength(head, 'utf8') };
        out._truncated = { [key]: bytes };
      } else {
        out[key] = value;
      }
      continue;
    }
    if (key === '_truncated') continue;
    out[headOfArg(key)] = boundValue(value, 1);
  }
  return contentCut ? { args: out, contentCut } : { args: out };
}

/** At most `maxBytes` of `text` as UTF-8, never ending in a split character. */
export function utf8Head(text: string, maxBytes: number): string {
  let units = Math.min(text.length, maxBytes);
  const last = text.charCodeAt(units - 1);
  if (units < text.length && last >= 0xd800 && last <= 0xdbff) units--; // keep a pair whole or drop it
  const head = Buffer.from(text.slice(0, units), 'utf8');
  let end = Math.min(head.length, maxBytes);
  while (end > 0 && end < head.length && (head[end]! & 0xc0) === 0x80) end--;
  return head.subarray(0, end).toString('utf8');
}
