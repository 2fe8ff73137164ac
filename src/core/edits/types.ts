/**
 * Arguments and results of the edit operations, named as upstream's be-* tools so that the MCP layer
 * is a thin adapter. Result keys are upstream's; additions are marked "ours".
 * `file` strings use the upstream grammar: `path`, `path:N`, `path:S-E`, `path:ALL`
 * (1-based, inclusive; insert is after line N, `:0` is the top). Paths may be absolute, root-relative or file:// URIs.
 */
import type { FunctionKind } from './functions/kinds';

export type DiffFormat = 'plain' | 'diff';

export interface ReadArgs {
  file: string;
  brief?: boolean;
  target?: { kind: 'line' | 'function' | 'marker' | 'tag'; value: string };
  /** How an empty line is shown: upstream's `<blank>` by default; '' for text replies (a line "<blank>" stays itself). */
  blank?: string;
}
export interface ReadResult {
  status: 'ok';
  file: string; // the path as the agent should use it (root-relative when inside a root)
  start: number;
  end: number;
  total: number;
  content?: string; // "N\t<text>" lines joined by "\n", an empty line "N\t<blank>" (omitted when brief)
  viewed_code_id: string;
  warnings?: string[]; // about the file, never about the numbered output
  brief?: boolean;
  // ours
  eol: 'lf' | 'crlf' | 'mixed' | 'none';
  bom: boolean;
  final_newline: boolean;
  encoding?: string; // ours: the file's encoding on disk when not UTF-8 (decoded for you, re-encoded on write)
}

export interface EditCommon {
  format?: DiffFormat;
  preview?: boolean;
  brief?: boolean;
}
export interface ReplaceArgs extends EditCommon {
  file: string;
  content?: string; // missing = delete the range
  old?: string;
  viewed_code_id?: string;
}
export interface InsertArgs extends EditCommon {
  file: string;
  content: string;
}
export interface DeleteArgs extends EditCommon {
  file: string;
}
export interface WriteArgs {
  file: string;
  content: string;
  preview?: boolean;
  brief?: boolean;
}

export interface EditResult {
  status: 'ok';
  file: string;
  total: number;
  diff: string; // '' when brief
  balance: string; // '' when brief
  affected: string;
  removed?: number; // replace, delete (ours for delete)
  added?: number; // replace, insert
  after?: number; // insert
  preview?: boolean;
  brief?: boolean;
  warnings?: string[];
  warning?: string;
  event_id?: string;
  queue_full?: string;
  chip_id?: string; // ours: be-delete's chip, also named in warnings
  sha256?: string; // ours: first 16 hex of the sha256 of the file as read back from disk after the write
}

export interface WriteResult {
  status: 'ok';
  files: number;
  /** per-file details; omitted when brief */
  results?: { file: string; lines: number; bytes: number; created: boolean; warnings?: string[]; sha256?: string }[];
  preview?: boolean;
  brief?: boolean;
  event_id?: string;
  queue_full?: string;
}

export interface LineArgs {
  file: string; // plain path, no range
  line: number;
}
export interface RangeResult {
  start: number;
  end: number;
}
/** Ours beyond upstream's `{start, end}`: `kind` is one of FUNCTION_KINDS whichever parser found it (functions/kinds.ts). */
export interface FuncRangeResult extends RangeResult {
  kind: FunctionKind;
  name?: string; // when known
}
export interface TagRangeResult extends RangeResult {
  kind: string;
  tag: string;
}

export interface BalanceArgs {
  file: string;
  verbose?: boolean;
}

export interface InsertChipArgs {
  from?: string; // file:///abs/path or chip://<id>; empty = list
  to?: string; // file:///abs/path:line (insert after line)
  format?: 'raw' | 'annotated' | 'json';
  preview?: boolean;
  /** listing only (core/chips/listFilter.ts): by tool, source path and text, newest first */
  tool?: string;
  path?: string;
  text?: string;
}

export interface ChipListItem {
  id: string;
  tool: string;
  created_at: number;
  file?: string;
  range?: { start: number; end: number };
  size: number;
  preview: string;
  /** failed the integrity check: never inserted */
  tampered?: boolean;
}
/** be-insert-chip in list mode (no from, no to). */
export interface ChipListResult {
  status: 'ok';
  chips: string[]; // ids, oldest first (upstream)
  items: ChipListItem[]; // ours: metadata beside the ids
  message?: string; // "no chips recorded"
}
/** be-insert-chip inserting: the be-insert result plus where the text came from. */
export interface InsertChipResult extends EditResult {
  source: string; // ours: chip://id or the file path
  format: 'raw' | 'annotated' | 'json';
}

export interface TrxArgs {
  action: 'commit' | 'rollback' | 'status' | 'keep' | 'revert';
  step?: number;
  force?: boolean;
  /** keep / revert: the edit (event_id) */
  id?: string;
  /** revert: every edit of this session, newest first */
  session?: string;
}
