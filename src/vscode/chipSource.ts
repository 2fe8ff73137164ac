/** What the extension's views and commands need from the chip store (core ChipStore satisfies it). */
import type { ChipChangeEvent, ChipRecord, ChipSink } from '../core/chips/types';

export interface ChipSource extends ChipSink {
  onDidChange(listener: (e: ChipChangeEvent) => void): { dispose(): void };
  clear?(): Promise<unknown>;
}

/** Newest first (the store lists oldest first, as upstream). */
export function newestFirst(chips: readonly ChipRecord[]): ChipRecord[] {
  return [...chips].sort((a, b) => b.seq - a.seq || b.created_ms - a.created_ms);
}

/** Case-insensitive match of a filter against what the user sees and the chip's text. */
export function matchesFilter(chip: ChipRecord, filter: string, text: string | undefined): boolean {
  const f = filter.trim().toLowerCase();
  if (!f) return true;
  return [chip.id, chip.tool, chip.preview, chip.file ?? '', chip.err_msg ?? '', text ?? '']
    .some((s) => s.toLowerCase().includes(f));
}
