/** What the function analyzers (brace, indentation, keyword … end) find, and the line arithmetic they share. */

import type { FunctionKind } from './kinds';

export type { FunctionKind } from './kinds';

export interface FunctionRange {
  start: number;
  end: number;
  kind: FunctionKind;
  name?: string;
}

/** A block found by an analyzer, before the public API picks one. */
export interface Block {
  start: number; // first line (signature / decorators)
  end: number; // last line
  open: number; // offset (or line for Python) that orders nesting
  kind: FunctionKind | 'container';
  name?: string;
  owner?: string; // the class a method is qualified with (`Foo::bar`, Go receiver type)
  functionLike: boolean;
  classLike: boolean;
}

/** Offsets where each line starts (line 1 at index 0). */
export function lineStartsOf(text: string): number[] {
  const starts = [0];
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  return starts;
}

/** The 1-based line holding `offset`, by binary search over the line starts. */
export function lineOfOffset(starts: number[], offset: number): number {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid] <= offset) lo = mid;
    else hi = mid - 1;
  }
  return lo + 1;
}
