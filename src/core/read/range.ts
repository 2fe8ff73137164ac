/**
 * The one range check of every read (be-read in any mode, the context modes' full pages): which lines of a
 * file of `total` lines a `path`, `path:N`, `path:S-E` or `path:ALL` asks for.
 */
import { ToolError } from '../errors';
import type { parseFileRange } from '../text/range';
import { readMessages } from './messages';

export type RangeSpec = ReturnType<typeof parseFileRange>['spec'];

export interface ReadRange {
  /** 1-based inclusive; 0-0 for an empty file. */
  start: number;
  end: number;
  /** No range (or `:ALL`, or `:0`): the whole file. */
  whole: boolean;
  warnings: string[];
}

/** True when the spec names lines (`:N`, `:S-E`, `:ALL`): such a read shows lines, never an outline. */
export function namesLines(spec: RangeSpec): boolean {
  return spec.kind === 'line' || spec.kind === 'span' || spec.kind === 'all';
}

export function readRange(spec: RangeSpec, total: number, display: string): ReadRange {
  const warnings: string[] = [];
  if (spec.kind === 'none' || spec.kind === 'all' || (spec.kind === 'line' && spec.line === 0)) {
    return { start: total === 0 ? 0 : 1, end: total, whole: true, warnings };
  }
  if (total === 0) return { start: 0, end: 0, whole: false, warnings };
  const start = spec.kind === 'line' ? spec.line : spec.start;
  let end = spec.kind === 'line' ? spec.line : spec.end;
  if (start < 1 || start > total) {
    throw new ToolError('invalid_argument', readMessages.startOutOfRange(start, total, display), { total });
  }
  if (end > total) {
    warnings.push(readMessages.endPastFile(end, start, total));
    end = total;
  }
  return { start, end, whole: false, warnings };
}
