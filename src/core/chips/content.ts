/** What a chip stands for, and the one-line preview a list shows. */
import * as path from 'node:path';
import { pathOfFileRange, tryParseFileRange } from '../text/range';
import type { ChipKind, ChipRecord } from './types';

export const PREVIEW_MAX_CHARS = 80;

/** `_content` of a removed-text chip, or the `content` argument of a failed call (upstream's only content field). */
export function originalTextOf(chip: Pick<ChipRecord, 'args'>): string | undefined {
  const args = chip.args;
  if (typeof args._content === 'string') return args._content;
  if (typeof args.content === 'string') return args.content;
  return undefined;
}

/**
 * How much of a text a preview looks at: a preview is one line of ~80 characters, and a chip's text can be
 * hundreds of megabytes in a foreign file (splitting all of it, or Array.from of one huge line, crashed the start).
 */
export const PREVIEW_SCAN_CHARS = 64 * 1024;

/** Removed text (`_content`: be-delete, and upstream's deleted-text chips) or a failed call's arguments. */
export function chipKind(chip: Pick<ChipRecord, 'args'>): ChipKind {
  return typeof chip.args._content === 'string' ? 'deleted' : 'failed';
}

/** First non-blank line within the first PREVIEW_SCAN_CHARS, trimmed, cut to `max` characters (code points). */
export function previewOf(text: string, max = PREVIEW_MAX_CHARS): string {
  const head = text.length > PREVIEW_SCAN_CHARS ? text.slice(0, PREVIEW_SCAN_CHARS) : text;
  const line = head.split(/\r\n|\r|\n/).find((l) => l.trim() !== '') ?? '';
  return truncate(line.trim(), max);
}

/** At most `max` code points (never half a surrogate pair); looks at no more than 2 * max UTF-16 units. */
export function truncate(text: string, max: number): string {
  const chars = Array.from(text.length > 2 * max ? text.slice(0, 2 * max) : text);
  return chars.length <= max && text.length <= 2 * max ? text : chars.slice(0, max - 1).join('') + '…';
}

/** Preview of a failed call: its content when it had some, else `tool: err_msg`. */
export function failedCallPreview(tool: string, args: Record<string, unknown>, errMsg: string): string {
  const text = originalTextOf({ args });
  if (text !== undefined && text.trim() !== '') return previewOf(text);
  return previewOf(`${tool}: ${errMsg.split(/\r\n|\r|\n/)[0] ?? ''}`);
}

/**
 * Where a failed call pointed, when its `file` argument is an absolute path in upstream's grammar
 * (`/abs/a.go`, `/abs/a.go:5`, `/abs/a.go:5-15`, `/abs/a.go:ALL`).
 */
export function locationOfArgs(args: Record<string, unknown>): { file?: string; range?: { start: number; end: number } } {
  const text = typeof args.file === 'string' ? args.file : undefined;
  if (!text) return {};
  const fr = tryParseFileRange(text);
  // A range the tools refused (the call may have failed on it) still names the file.
  const file = fr?.path ?? pathOfFileRange(text);
  if (!path.isAbsolute(file)) return {};
  const spec = fr?.spec;
  if (spec?.kind === 'line') return { file, range: { start: spec.line, end: spec.line } };
  if (spec?.kind === 'span') return { file, range: { start: spec.start, end: spec.end } };
  return { file };
}
