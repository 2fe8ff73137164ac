/**
 * The upstream path grammar: `path`, `path:N`, `path:S-E`, `path:ALL` (1-based, inclusive).
 * The path is cut at the last colon that can start a range: a Windows drive prefix (`C:\`, `C:/`) is skipped,
 * and in a URL-like input (`file:///p`, `x://host:port/p`) only colons after the first `/` following the
 * authority count. A suffix that does not look like a range (does not start with a digit or `-` and is not
 * `ALL`) is part of the path, so `notes:draft.txt` is a plain path.
 */
import { ToolError } from '../errors';

export type LineSpec =
  | { kind: 'none' }
  | { kind: 'all' }
  | { kind: 'line'; line: number }
  | { kind: 'span'; start: number; end: number };

export interface FileRange {
  path: string;
  spec: LineSpec;
}

function rangeSearchStart(s: string): number {
  if (/^file:\/\//i.test(s)) {
    // file:///abs, file://C:/abs, or upstream's relative file://rel/path (no authority)
    const rest = s.slice(7);
    return /^[a-zA-Z]:[\\/]/.test(rest) ? 9 : 7;
  }
  const url = /^[a-zA-Z][a-zA-Z0-9+.-]*:\/\//.exec(s);
  if (url) {
    const slash = s.indexOf('/', url[0].length);
    return slash === -1 ? s.length : slash;
  }
  if (/^[a-zA-Z]:[\\/]/.test(s)) return 2;
  return 0;
}

function parseLineNumber(text: string, what: string, input: string): number {
  if (!/^\d+$/.test(text)) {
    throw new ToolError(
      'invalid_argument',
      `invalid ${what}: "${text}" in "${input}". Expected path:N, path:S-E or path:ALL with 1-based line numbers, e.g. src/a.ts:5-15.`,
    );
  }
  const n = Number(text);
  if (!Number.isSafeInteger(n)) {
    throw new ToolError('invalid_argument', `invalid ${what}: "${text}" is too large in "${input}".`);
  }
  return n;
}

/** A reading of the grammar: the path always, and the range or why it is refused. */
type Reading = { ok: true; range: FileRange } | { ok: false; path: string; error: ToolError };

function read(input: string): Reading {
  const s = input.trim();
  if (s === '') return refused('', 'file is empty: expected a path such as src/a.ts or src/a.ts:5-15.');
  const from = rangeSearchStart(s);
  const colon = s.lastIndexOf(':');
  if (colon < from) return { ok: true, range: { path: s, spec: { kind: 'none' } } };
  const suffix = s.slice(colon + 1);
  const path = s.slice(0, colon);
  if (suffix !== '' && !/^all$/i.test(suffix) && !/^\s*[\d-]/.test(suffix)) return { ok: true, range: { path: s, spec: { kind: 'none' } } };
  let spec: LineSpec;
  try {
    spec = parseSuffix(suffix, input);
  } catch (e) {
    return { ok: false, path, error: e as ToolError };
  }
  if (path.trim() === '') return refused(path, `missing path before the line range in "${input}".`);
  return { ok: true, range: { path, spec } };
}

function refused(path: string, message: string): Reading {
  return { ok: false, path, error: new ToolError('invalid_argument', message) };
}

function parseSuffix(suffix: string, input: string): LineSpec {
  if (/^all$/i.test(suffix)) return { kind: 'all' };
  if (suffix === '') {
    throw new ToolError(
      'invalid_argument',
      `missing line number after ":" in "${input}". Expected path, path:N, path:S-E or path:ALL.`,
    );
  }
  const dash = suffix.indexOf('-');
  if (dash === -1) return { kind: 'line', line: parseLineNumber(suffix, 'line number', input) };
  const start = parseLineNumber(suffix.slice(0, dash), 'start line', input);
  const end = parseLineNumber(suffix.slice(dash + 1), 'end line', input);
  if (end < start) {
    throw new ToolError('invalid_argument', `end line (${end}) must be >= start line (${start}) in "${input}".`);
  }
  return { kind: 'span', start, end };
}

/** The path and line range of `input`; throws an invalid_argument ToolError that says what was expected. */
export function parseFileRange(input: string): FileRange {
  const r = read(input);
  if (!r.ok) throw r.error;
  return r.range;
}

/** The same reading for a string that may not be a file argument at all: undefined where parseFileRange throws. */
export function tryParseFileRange(input: string): FileRange | undefined {
  const r = read(input);
  return r.ok ? r.range : undefined;
}

/** The path part of `input`, even when its range is refused (to name the file of a call that failed on it). */
export function pathOfFileRange(input: string): string {
  const r = read(input);
  return r.ok ? r.range.path : r.path;
}

/** Upstream's HasFileRange: does the string end in a range? */
export function hasFileRange(input: string): boolean {
  const fr = tryParseFileRange(input);
  return fr !== undefined && fr.spec.kind !== 'none';
}

export function formatSpec(spec: LineSpec): string {
  switch (spec.kind) {
    case 'none':
      return '';
    case 'all':
      return ':ALL';
    case 'line':
      return `:${spec.line}`;
    case 'span':
      return `:${spec.start}-${spec.end}`;
  }
}
