/** A chip: what an agent would otherwise lose (a failed call's arguments, or text be-delete removed). */
export interface ChipRecord {
  // --- upstream fields (drop-in compatible) ---
  id: string; // 6 lowercase hex characters (12 on collision), as upstream
  tool: string; // 'be-delete', 'be-replace', ...
  args: Record<string, unknown>; // for deleted text: { _content: "<text>" }
  err_msg?: string;
  created_at: number; // Unix seconds, as upstream
  // --- what a list view needs ---
  seq: number; // monotonic across restarts and across processes sharing the directory
  created_ms: number; // millisecond time
  file?: string; // absolute path when known
  range?: { start: number; end: number }; // 1-based inclusive lines when known
  size: number; // bytes of the original text (or of the args JSON when there is no text)
  preview: string; // one line, at most ~80 characters
  /** its file fails the integrity check (integrity.ts): listed, never inserted */
  tampered?: boolean;
}

/** Each kind has its own capacity: removed text is never evicted by failed calls. */
export type ChipKind = 'deleted' | 'failed';

export type ChipFormat = 'raw' | 'annotated' | 'json';

export interface ChipSaveResult {
  chip: ChipRecord;
  /** ids evicted by the capacity limit to make room */
  evicted: string[];
}

export interface ChipChangeEvent {
  kind: 'added' | 'removed' | 'cleared' | 'reloaded';
  ids: string[];
}

/** The chip store as edit operations and the MCP middleware see it (implemented in core/chips). */
export interface ChipSink {
  /** Save a failed call's arguments; returns undefined when the args JSON is at or under the threshold. */
  saveFailedCall(tool: string, args: unknown, errMsg: string): Promise<ChipSaveResult | undefined>;
  /** Save removed text (be-delete) with where it came from. Never subject to the threshold. */
  saveContent(
    tool: string,
    content: string,
    where?: { file?: string; range?: { start: number; end: number } },
  ): Promise<ChipSaveResult>;
  get(id: string): Promise<ChipRecord | undefined>;
  /** Oldest first (as upstream's ListChips). */
  list(): Promise<ChipRecord[]>;
  delete(id: string): Promise<boolean>;
  /** The original text a chip stands for: `_content` of a be-delete chip, the `content` argument of a failed call. */
  originalText(chip: ChipRecord): string | undefined;
}
