/**
 * File references from tool-call arguments. The edit tools address files as `path`, `path:N`,
 * `path:S-E` or `path:ALL` (the upstream grammar); any string argument in that form, or under a
 * path-like key (`file`, `path`, `files`, `paths`), becomes a reference.
 */
import { formatSpec, tryParseFileRange, type LineSpec } from '../text/range';
import type { FileReference } from './types';

const PATH_KEYS = new Set(['file', 'path', 'files', 'paths', 'filepath', 'file_path', 'target', 'source']);
const MAX_REFERENCES = 20;

export function parseFileReference(value: string): FileReference | undefined {
  const text = value.trim();
  if (text.length === 0 || text.length > 1024 || /[\n\r]/.test(text)) return undefined;
  const fr = tryParseFileRange(text);
  if (!fr) return undefined;
  const spec = fr.spec;
  if (spec.kind === 'all') return { path: fr.path, all: true };
  if (spec.kind === 'line') return { path: fr.path, start: spec.line, end: spec.line };
  if (spec.kind === 'span') return { path: fr.path, start: spec.start, end: spec.end };
  return undefined;
}

/** References from a tool call's arguments (walks nested objects and arrays, bounded). */
export function referencesFromArgs(args: unknown): FileReference[] {
  const out: FileReference[] = [];
  const seen = new Set<string>();
  const push = (ref: FileReference): void => {
    const key = formatReference(ref);
    if (!seen.has(key) && out.length < MAX_REFERENCES) {
      seen.add(key);
      out.push(ref);
    }
  };
  const visit = (value: unknown, key: string | undefined, depth: number): void => {
    if (depth > 4 || out.length >= MAX_REFERENCES) return;
    if (typeof value === 'string') {
      const pathKey = key !== undefined && PATH_KEYS.has(key.toLowerCase());
      const ref = parseFileReference(value);
      // Outside path-like keys, only accept strings that look like files ("a.ts:5", "src/x:ALL"), not "12:30".
      if (ref && (pathKey || /[./\\]/.test(ref.path)) && !/\s/.test(ref.path)) push(ref);
      else if (pathKey && looksLikePath(value)) push({ path: value.trim() });
    } else if (Array.isArray(value)) {
      for (const item of value.slice(0, 50)) visit(item, key, depth + 1);
    } else if (value && typeof value === 'object') {
      for (const [k, v] of Object.entries(value as Record<string, unknown>)) visit(v, k, depth + 1);
    }
  };
  visit(args, undefined, 0);
  return out;
}

function looksLikePath(value: string): boolean {
  const text = value.trim();
  return text.length > 0 && text.length < 1024 && !/[\n\r]/.test(text);
}

export function formatReference(ref: FileReference): string {
  return ref.path + formatSpec(specOf(ref));
}

function specOf(ref: FileReference): LineSpec {
  if (ref.all) return { kind: 'all' };
  if (ref.start === undefined) return { kind: 'none' };
  return ref.end !== undefined && ref.end !== ref.start ? { kind: 'span', start: ref.start, end: ref.end } : { kind: 'line', line: ref.start };
}
