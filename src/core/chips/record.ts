/** Checking a chip file's JSON: records of ours, and upstream's shape (no seq) are accepted; anything else is foreign. */
import { Buffer } from 'node:buffer';
import { originalTextOf, previewOf, failedCallPreview } from './content';
import { CHIP_ID_PATTERN } from './ids';
import type { ChipRecord } from './types';

export const CHIP_FILE_PATTERN = /^chip-([0-9a-f]{6}|[0-9a-f]{12})\.json$/;

export function chipFileName(id: string): string {
  return `chip-${id}.json`;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

/** Returns the record, or a reason why the value is not a chip of id `expectedId`. */
export function parseChip(value: unknown, expectedId: string): ChipRecord | string {
  if (!isObject(value)) return 'not a JSON object';
  const { id, tool, args, err_msg, created_at } = value;
  if (typeof id !== 'string' || !CHIP_ID_PATTERN.test(id)) return 'no valid "id"';
  if (id !== expectedId) return `its id "${id}" does not match its file name`;
  if (typeof tool !== 'string' || tool === '') return 'no "tool"';
  if (!isObject(args)) return '"args" is not an object';
  if (err_msg !== undefined && typeof err_msg !== 'string') return '"err_msg" is not a string';
  if (!isNumber(created_at)) return 'no numeric "created_at"';
  const text = originalTextOf({ args });
  const record: ChipRecord = {
    id,
    tool,
    args,
    ...(err_msg !== undefined ? { err_msg } : {}),
    created_at,
    // Upstream files have no seq/created_ms: they sort first, by their seconds.
    seq: isNumber(value.seq) ? value.seq : 0,
    created_ms: isNumber(value.created_ms) ? value.created_ms : created_at * 1000,
    size: isNumber(value.size)
      ? value.size
      : Buffer.byteLength(text ?? JSON.stringify(args), 'utf8'),
    preview:
      typeof value.preview === 'string'
        ? value.preview
        : text !== undefined && err_msg === undefined
          ? previewOf(text)
          : failedCallPreview(tool, args, err_msg ?? ''),
  };
  if (typeof value.file === 'string') record.file = value.file;
  const range = value.range;
  if (isObject(range) && isNumber(range.start) && isNumber(range.end)) record.range = { start: range.start, end: range.end };
  return record;
}

/** Creation order: seq is allocated under the directory lock, so it is the true order across processes. */
export function compareChips(a: ChipRecord, b: ChipRecord): number {
  return a.seq - b.seq || a.created_ms - b.created_ms || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}
