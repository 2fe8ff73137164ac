/**
 * What every edit operation (ops/*) works over, built once by EditService: the sandbox and the file store, the
 * chip store and the edit history when the host has them, the viewed_code_id records, the limits and the reply
 * language. Also the three steps every operation starts with: load a file, lock it for writing, get its text
 * for a whole-file analysis.
 */
import type { ChipRecord, ChipSink } from '../chips/types';
import { ToolError } from '../errors';
import type { KeyedMutex as FileLocks } from '../util/mutex';
import type { FileStore } from '../files/fileStore';
import type { SandboxPort } from '../files/ports';
import type { EditHistory } from '../history/types';
import { loadText, type LoadedText } from '../read/load';
import type { EditedIndexCache } from '../read/editedIndex';
import { loadMessages, type Lang } from './messages';
import type { RangeResult } from './types';
import type { ViewedCodeRegistry } from './viewedCode';

export interface EditLimits {
  /** Files larger than this are refused by every operation. */
  maxFileBytes: number;
  /** A read returning more bytes of lines than this is refused with advice to read a range. */
  maxReadBytes: number;
  /** Whole-file analyses (func/tag ranges, be-balance, read targets) above this are refused. */
  maxAnalyzeBytes: number;
  /**
   * The balance line of an edit result checks the whole new file up to this size (as upstream); above it, only
   * the edited lines before and after, so a large file's edit does not pay for a whole-file scan.
   */
  maxWholeBalanceBytes: number;
}

export const DEFAULT_LIMITS: EditLimits = {
  maxFileBytes: 64 * 1024 * 1024,
  maxReadBytes: 256 * 1024,
  maxAnalyzeBytes: 2 * 1024 * 1024,
  maxWholeBalanceBytes: 128 * 1024,
};

export type ChipRenderer = (chip: ChipRecord, format: 'raw' | 'annotated' | 'json', languageId: string) => string;

/** A symbol as a locator names it: `kind` in its own words (an outline's `constructor`, `interface`, …). */
export interface LocatedSymbol extends RangeResult {
  kind?: string;
  name?: string;
}

/**
 * Finds functions in a parsed file. `undefined` means "no grammar or no match here": the analyzers decide then.
 * Its kinds are mapped onto be-func-range's vocabulary (functions/kinds.ts) by the caller.
 */
export interface SymbolLocator {
  enclosing(text: string, line: number, languageId: string): Promise<LocatedSymbol | undefined>;
  byName(text: string, name: string, languageId: string): Promise<LocatedSymbol | undefined>;
}

export interface EditContext {
  readonly files: FileStore;
  readonly sandbox: SandboxPort;
  readonly chips?: ChipSink;
  readonly history?: EditHistory;
  readonly viewed: ViewedCodeRegistry;
  readonly limits: EditLimits;
  readonly lang: Lang;
  readonly renderChip: ChipRenderer;
  /** Function ranges from a syntax tree; the brace/indent analyzers (funcRange.ts) answer where it has none. */
  readonly symbols?: SymbolLocator;
  /** In-process edit locks, for a store without its own (cross-process) lock. */
  readonly locks: FileLocks;
  /** The line index each big file's last edit left, for its next load (editedIndex.ts). */
  readonly editedIndex?: EditedIndexCache;
}

/** Resolve in the sandbox (unless the caller holds `resolved` and its lock), refuse non-text, build the lines. */
export function loadFile(ctx: EditContext, pathInput: string, resolved?: string): Promise<LoadedText> {
  const index = ctx.editedIndex ? ctx.editedIndex.bufferOf.bind(ctx.editedIndex) : undefined;
  return loadText({ files: ctx.files, sandbox: ctx.sandbox, maxFileBytes: ctx.limits.maxFileBytes, index }, pathInput, resolved);
}

/**
 * Resolve once for writing (the write policy refuses `.git`), then run `fn(abs)` holding the file's edit lock:
 * the store's own (shared with other server processes) where it has one.
 */
export async function withWriteLock<T>(ctx: EditContext, pathInput: string, fn: (abs: string) => Promise<T>): Promise<T> {
  const abs = await ctx.sandbox.resolveForWrite(pathInput);
  const run = () => fn(abs);
  return ctx.files.lock ? ctx.files.lock(abs, run) : ctx.locks.run(abs, run);
}

/** The file's text for a whole-file analysis (functions, tags, balance), refused above the analysis limit. */
export function analyzableText(ctx: EditContext, ld: LoadedText): string {
  const limit = ctx.limits.maxAnalyzeBytes;
  if (ld.doc.bytes.length > limit) {
    throw new ToolError('too_large', loadMessages.tooLargeToAnalyze(ld.display, ld.doc.bytes.length, limit));
  }
  return ld.doc.text();
}

/** A 1-based line number inside the file. */
export function checkLine(ld: LoadedText, line: number): number {
  const total = ld.doc.lineCount;
  if (!Number.isInteger(line) || line < 1 || line > total) {
    throw new ToolError('invalid_argument', loadMessages.lineOutOfRange(line, total, ld.display), { total });
  }
  return line;
}
