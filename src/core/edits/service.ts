/**
 * EditService: the be-* operations over a sandbox and a FileStore. Each edit is a byte splice on the file's
 * buffer (see text/splice.ts): lines outside the range keep their bytes, the BOM and the final-newline state
 * stay, the write is whole-or-nothing, and every landed edit records its inverse splice in the edit history.
 */
import { renderChip as renderChipDefault } from '../chips/render';
import type { ChipRecord, ChipSink } from '../chips/types';
import { systemClock, type Clock } from '../clock';
import { ToolError } from '../errors';
import type { FileStat, FileStore } from '../files/fileStore';
import type { Sandbox } from '../files/sandbox';
import type { EditHistory } from '../history/types';
import { filterChips, type ChipListFilter } from '../chips/listFilter';
import { contentEol, contentToLines } from '../text/content';
import { languageIdFromPath } from '../text/language';
import { TextBuffer } from '../text/lines';
import { parseFileRange, type LineSpec } from '../text/range';
import { planInsert, planReplace, type ByteSplice } from '../text/splice';
import { assertText } from '../text/validate';
import { checkBalance, quickBalance } from './balance';
import { renderDiff } from './diff';
import { FileLocks } from '../files/fileLock';
import { findFunctionByName, findFunctionRange } from './funcRange';
import {
  affectedDeleted,
  affectedLines,
  affectedNothing,
  contentWarnings,
  usesTabIndent,
  type Lang,
} from './messages';
import { findTagRange } from './tagRange';
import type {
  BalanceArgs,
  ChipListResult,
  DeleteArgs,
  DiffFormat,
  EditResult,
  FuncRangeResult,
  InsertArgs,
  InsertChipArgs,
  InsertChipResult,
  LineArgs,
  ReadArgs,
  ReadResult,
  ReplaceArgs,
  TagRangeResult,
  TrxArgs,
  WriteArgs,
  WriteResult,
} from './types';
import { sha256Parts } from './hasher';
import { ViewedCodeRegistry } from './viewedCode';
import { checkOld, checkViewed, editRange } from './guards';
import { explainStaleRead } from '../history/review';
import { checkFileSize, loadText, type LoadedText } from './loadText';
import { readBack } from './readBack';

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

export interface EditServiceDeps {
  files: FileStore;
  sandbox: Sandbox;
  chips?: ChipSink;
  history?: EditHistory;
  clock?: Clock;
  lang?: Lang;
  /** Shared viewed_code_id records (one per service by default). */
  viewed?: ViewedCodeRegistry;
  limits?: Partial<EditLimits>;
  /** How chips are rendered for be-insert-chip (default: core/chips/render.ts renderChip). */
  renderChip?: ChipRenderer;
  /** Function ranges from a syntax tree (tree-sitter, core/context); the brace/indent analyzers answer otherwise. */
  symbols?: SymbolLocator;
}

/** Finds functions in a parsed file. `undefined` means "no grammar or no match here": the analyzers decide then. */
export interface SymbolLocator {
  enclosing(text: string, line: number, languageId: string): Promise<FuncRangeResult | undefined>;
  byName(text: string, name: string, languageId: string): Promise<FuncRangeResult | undefined>;
}

type Loaded = LoadedText;

/** One planned line edit: lines start..end of the old file become newLines (end = start-1 for an insert). */
interface LineEdit {
  tool: string;
  start: number;
  end: number;
  newLines: string[];
  splice: ByteSplice;
  affected: string;
  summary: string;
}

const EMPTY = Buffer.alloc(0);

export class EditService {
  readonly viewed: ViewedCodeRegistry;
  private readonly files: FileStore;
  private readonly sandbox: Sandbox;
  private readonly chips?: ChipSink;
  private readonly history?: EditHistory;
  private readonly lang: Lang;
  private readonly limits: EditLimits;
  private readonly renderChipFn?: ChipRenderer;
  private readonly symbols?: SymbolLocator;
  private readonly locks = new FileLocks();

  constructor(deps: EditServiceDeps) {
    this.files = deps.files;
    this.sandbox = deps.sandbox;
    this.chips = deps.chips;
    this.history = deps.history;
    this.lang = deps.lang ?? 'en';
    this.limits = { ...DEFAULT_LIMITS, ...deps.limits };
    this.viewed = deps.viewed ?? new ViewedCodeRegistry({ clock: deps.clock ?? systemClock });
    this.renderChipFn = deps.renderChip;
    this.symbols = deps.symbols;
  }

  // ---------------------------------------------------------------- loading

  private load(pathInput: string, resolved?: string): Promise<Loaded> {
    return loadText({ files: this.files, sandbox: this.sandbox, maxFileBytes: this.limits.maxFileBytes }, pathInput, resolved);
  }

  private checkFileSize(display: string, size: number): void {
    checkFileSize(display, size, this.limits.maxFileBytes);
  }

  /** The store's edit lock (shared with other server processes) where it has one. */
  private withLock<T>(abs: string, fn: () => Promise<T>): Promise<T> {
    return this.files.lock ? this.files.lock(abs, fn) : this.locks.run(abs, fn);
  }

  /** Resolve once for writing (the write policy refuses `.git`), then run `fn(abs)` holding the file's lock. */
  private async resolveAndLock<T>(pathInput: string, fn: (abs: string) => Promise<T>): Promise<T> {
    const abs = await this.sandbox.resolveForWrite(pathInput);
    return this.withLock(abs, () => fn(abs));
  }

  // ---------------------------------------------------------------- read

  async read(args: ReadArgs): Promise<ReadResult> {
    const fr = parseFileRange(args.file);
    const ld = await this.load(fr.path);
    const { doc } = ld;
    const total = doc.lineCount;
    const warnings: string[] = [];
    let start: number;
    let end: number;
    let whole = false;
    if (args.target) {
      ({ start, end } = await this.resolveTarget(ld, args.target));
    } else {
      const spec = fr.spec;
      if (spec.kind === 'none' || spec.kind === 'all' || (spec.kind === 'line' && spec.line === 0)) {
        start = total === 0 ? 0 : 1;
        end = total;
        whole = true;
      } else {
        start = spec.kind === 'line' ? spec.line : spec.start;
        end = spec.kind === 'line' ? spec.line : spec.end;
        if (total === 0) {
          start = 0;
          end = 0;
        } else {
          if (start < 1 || start > total) {
            throw new ToolError(
              'invalid_argument',
              `read: start line ${start} is out of range (1..${total}) for ${ld.display}; ask for lines 1-${total} or use ${ld.display}:ALL.`,
              { total },
            );
          }
          if (end > total) {
            warnings.push(`end line ${end} is past the end of the file; showing lines ${start}-${total}`);
            end = total;
          }
        }
      }
    }
    if (!args.brief && total > 0) {
      const bytes = doc.lineEnd(end) - doc.lineStart(start);
      if (bytes > this.limits.maxReadBytes) {
        const fit = this.linesThatFit(doc, start);
        const firstLineBytes = doc.lineEnd(start) - doc.lineStart(start);
        if (firstLineBytes > this.limits.maxReadBytes) {
          throw new ToolError(
            'too_large',
            `line ${start} of ${ld.display} alone is ${firstLineBytes} bytes, over the ${this.limits.maxReadBytes}-byte ` +
              'read limit (a minified or generated file?); it cannot be shown. Use brief for metadata, or another tool.',
            { total, bytes: firstLineBytes, limit: this.limits.maxReadBytes },
          );
        }
        throw new ToolError(
          'too_large',
          `${ld.display}${whole ? '' : `:${start}-${end}`} is ${bytes} bytes (${end - start + 1} lines), over the ` +
            `${this.limits.maxReadBytes}-byte read limit. The file has ${total} lines; read a range, e.g. ` +
            `${ld.display}:${start}-${fit}, or use brief for metadata only.`,
          { total, bytes, limit: this.limits.maxReadBytes, suggested: { start, end: fit } },
        );
      }
    }
    if (doc.eolKind === 'mixed') {
      warnings.push(
        `file has mixed line endings (${doc.crlfCount} CRLF, ${doc.lfCount} LF); edits keep each untouched line's own ending`,
      );
    }
    const rec = await this.viewed.issue(ld.display, doc, start, end);
    const result: ReadResult = {
      status: 'ok',
      file: ld.display,
      start,
      end,
      total,
      viewed_code_id: rec.id,
      eol: doc.eolKind,
      bom: doc.hasBom,
      final_newline: doc.finalNewline,
    };
    if (ld.encoding) result.encoding = ld.encoding;
    if (args.brief) result.brief = true;
    else result.content = total === 0 ? '' : numbered(doc, start, end);
    if (warnings.length) result.warnings = warnings;
    return result;
  }

  private linesThatFit(doc: TextBuffer, start: number): number {
    const limitOffset = doc.lineStart(start) + this.limits.maxReadBytes;
    const line = doc.lineAt(limitOffset) - 1;
    return Math.max(start, Math.min(doc.lineCount, line));
  }

  private async resolveTarget(ld: Loaded, target: NonNullable<ReadArgs['target']>): Promise<{ start: number; end: number }> {
    const { doc } = ld;
    const total = doc.lineCount;
    const value = String(target.value ?? '').trim();
    const kind = target.kind;
    if (total === 0) throw new ToolError('invalid_argument', `target: ${ld.display} is empty`);
    const numeric = /^\d+$/.test(value);
    const checkLine = (n: number) => {
      if (n < 1 || n > total) {
        throw new ToolError('invalid_argument', `target line ${n} out of range (1..${total}) in ${ld.display}`, { total });
      }
    };
    switch (kind) {
      case 'line': {
        if (!numeric) throw new ToolError('invalid_argument', `target line must be a line number, got "${value}"`);
        const n = Number(value);
        checkLine(n);
        return { start: n, end: n };
      }
      case 'marker': {
        if (value === '') throw new ToolError('invalid_argument', 'target marker must not be empty');
        const needle = value.split('\n')[0];
        const at = doc.bytes.indexOf(Buffer.from(needle, 'utf8'), doc.bodyStart);
        if (at === -1) throw new ToolError('invalid_argument', `marker not found in ${ld.display}: ${needle}`);
        const n = doc.lineAt(at);
        return { start: n, end: n };
      }
      case 'function': {
        if (value === '') throw new ToolError('invalid_argument', 'target function must not be empty (a name or a line number)');
        const text = this.analyzableText(ld);
        if (numeric) {
          const n = Number(value);
          checkLine(n);
          const r = (await this.symbols?.enclosing(text, n, ld.languageId)) ?? findFunctionRange(text, n, ld.languageId);
          if (!r) throw new ToolError('invalid_argument', `line ${n} of ${ld.display} is not inside any function or block`);
          return { start: r.start, end: r.end };
        }
        const r = (await this.symbols?.byName(text, value, ld.languageId)) ?? findFunctionByName(text, value, ld.languageId);
        if (!r) throw new ToolError('invalid_argument', `function not found in ${ld.display}: ${value.length > 200 ? `${value.slice(0, 200)}… (${value.length} characters)` : value}`);
        return { start: r.start, end: r.end };
      }
      case 'tag': {
        if (value === '') throw new ToolError('invalid_argument', 'target tag must not be empty (a tag name or a line number)');
        const text = this.analyzableText(ld);
        let line: number;
        if (numeric) {
          line = Number(value);
          checkLine(line);
        } else {
          const name = value.replace(/^<\/?/, '').replace(/>$/, '').toLowerCase();
          const lower = text.toLowerCase();
          const at = [lower.indexOf('<' + name), lower.indexOf('</' + name)].filter((i) => i >= 0);
          if (at.length === 0) throw new ToolError('invalid_argument', `tag not found in ${ld.display}: ${value}`);
          line = lineOfIndex(text, Math.min(...at));
        }
        const r = findTagRange(text, line, ld.languageId);
        if (!r) throw new ToolError('invalid_argument', `line ${line} of ${ld.display} is not inside any paired tag`);
        return { start: r.start, end: r.end };
      }
      default:
        throw new ToolError('invalid_argument', `unknown target kind: ${String(kind)}; expected line, marker, function or tag`);
    }
  }

  private analyzableText(ld: Loaded): string {
    if (ld.doc.bytes.length > this.limits.maxAnalyzeBytes) {
      throw new ToolError(
        'too_large',
        `${ld.display} is ${ld.doc.bytes.length} bytes, over the ${this.limits.maxAnalyzeBytes}-byte limit for structural analysis; use line numbers.`,
      );
    }
    return ld.doc.text();
  }

  // ---------------------------------------------------------------- replace

  async replace(args: ReplaceArgs): Promise<EditResult> {
    const fr = parseFileRange(args.file);
    if (fr.spec.kind === 'none') {
      throw new ToolError('invalid_argument', `replace: file must include a line range, e.g. ${fr.path}:10, ${fr.path}:5-15 or ${fr.path}:ALL`);
    }
    return this.resolveAndLock(fr.path, async (abs) => {
      const ld = await this.load(fr.path, abs);
      const { doc } = ld;
      const total = doc.lineCount;
      const newLines = args.content === undefined ? [] : contentToLines(args.content);
      if (total === 0) {
        // an empty file: any of :ALL, :0, :1 replaces its (empty) content
        if (!(fr.spec.kind === 'all' || (fr.spec.kind === 'line' && fr.spec.line <= 1))) {
          throw new ToolError('invalid_argument', `replace: ${ld.display} is empty; use ${ld.display}:ALL (or be-insert at :0)`, { total });
        }
        if (args.viewed_code_id) await this.checkViewed(args.viewed_code_id, ld, 1, 0);
        if (args.old !== undefined && args.old.replace(/\r?\n/g, '') !== '') {
          throw new ToolError('conflict', `replace: old content does not match: ${ld.display} is empty`);
        }
        if (newLines.length === 0) return this.unchanged(ld, 'be-replace', 0, 0);
        const splice = planInsert(doc, 0, newLines, contentEol(args.content ?? ''));
        return this.applyEdit(ld, args, {
          tool: 'be-replace',
          start: 1,
          end: 0,
          newLines,
          splice,
          affected: affectedLines(this.lang, 1, newLines.length, newLines.length),
          summary: `be-replace on ${ld.display} lines 1-${newLines.length}`,
        }, { removed: 0, added: newLines.length });
      }
      const { start, end } = this.editRange(ld, fr.spec, 'replace');
      if (args.viewed_code_id) await this.checkViewed(args.viewed_code_id, ld, start, end);
      if (args.old !== undefined) this.checkOld(ld, start, end, args.old);
      const splice = planReplace(doc, start, end, newLines, contentEol(args.content ?? ''));
      const newTotal = total - (end - start + 1) + newLines.length;
      const affected =
        newLines.length > 0
          ? affectedLines(this.lang, start, start + newLines.length - 1, newTotal)
          : affectedDeleted(this.lang, start, end, newTotal);
      return this.applyEdit(ld, args, {
        tool: 'be-replace',
        start,
        end,
        newLines,
        splice,
        affected,
        summary: `be-replace on ${ld.display} lines ${start}-${end}`,
      }, { removed: end - start + 1, added: newLines.length });
    });
  }

  /** A range for replace/delete: :N, :S-E or :ALL, inside 1..total. */
  private editRange(ld: Loaded, spec: LineSpec, op: string): { start: number; end: number } {
    return editRange(ld, spec, op);
  }

  private checkViewed(id: string, ld: Loaded, start: number, end: number): Promise<void> {
    return checkViewed({ viewed: this.viewed, maxAnalyzeBytes: this.limits.maxAnalyzeBytes }, id, ld, start, end).catch(async (e: unknown) => { throw await explainStaleRead(this.history, e, ld.abs); });
  }

  private checkOld(ld: Loaded, start: number, end: number, old: string): void {
    checkOld(ld, start, end, old);
  }

  // ---------------------------------------------------------------- insert

  async insert(args: InsertArgs): Promise<EditResult> {
    if (typeof args.content !== 'string') {
      throw new ToolError('invalid_argument', 'insert: content is required (the lines to insert)');
    }
    const fr = parseFileRange(args.file);
    return this.resolveAndLock(fr.path, async (abs) => {
      const ld = await this.load(fr.path, abs);
      return this.insertLoaded(ld, fr.spec, args.content, args, 'be-insert');
    });
  }

  private async insertLoaded(
    ld: Loaded,
    spec: LineSpec,
    content: string,
    common: { format?: DiffFormat; preview?: boolean; brief?: boolean },
    tool: string,
  ): Promise<EditResult> {
    const total = ld.doc.lineCount;
    if (spec.kind === 'none') {
      throw new ToolError('invalid_argument', `insert: file must include a line number, e.g. ${ld.display}:10 (insert after line 10; :0 is the top)`);
    }
    if (spec.kind !== 'line') {
      throw new ToolError('invalid_argument', `insert: file must specify a single line, e.g. ${ld.display}:10 (insert after line 10)`);
    }
    const after = spec.line;
    if (after > total) {
      throw new ToolError(
        'invalid_argument',
        `insert: line ${after} is out of range (0..${total}) for ${ld.display}; use :0 for the top or :${total} to append`,
        { total },
      );
    }
    const newLines = contentToLines(content);
    if (newLines.length === 0) {
      const r = this.unchanged(ld, tool, after, 0);
      r.after = after;
      r.added = 0;
      return r;
    }
    const splice = planInsert(ld.doc, after, newLines, contentEol(content));
    const newTotal = total + newLines.length;
    return this.applyEdit(ld, common, {
      tool,
      start: after + 1,
      end: after,
      newLines,
      splice,
      affected: affectedLines(this.lang, after + 1, after + newLines.length, newTotal),
      summary: `${tool} on ${ld.display} after line ${after}`,
    }, { after, added: newLines.length });
  }

  // ---------------------------------------------------------------- delete

  async delete(args: DeleteArgs): Promise<EditResult> {
    const fr = parseFileRange(args.file);
    if (fr.spec.kind === 'none') {
      throw new ToolError('invalid_argument', `delete: file must include a line range, e.g. ${fr.path}:10, ${fr.path}:5-15 or ${fr.path}:ALL`);
    }
    return this.resolveAndLock(fr.path, async (abs) => {
      const ld = await this.load(fr.path, abs);
      const { doc } = ld;
      if (doc.lineCount === 0) {
        if (fr.spec.kind === 'all') {
          const r = this.unchanged(ld, 'be-delete', 0, 0);
          r.removed = 0;
          return r;
        }
        throw new ToolError('invalid_argument', `delete: ${ld.display} is empty; there are no lines to delete`, { total: 0 });
      }
      const { start, end } = this.editRange(ld, fr.spec, 'delete');
      const splice = planReplace(doc, start, end, []);
      const removedText = doc.bytes.toString('utf8', doc.lineStart(start), doc.lineEnd(end));
      const warnings: string[] = [];
      if (removedText.length <= this.limits.maxWholeBalanceBytes) {
        const quick = quickBalance(removedText, ld.languageId, this.lang);
        if (!/OK\s*$/.test(quick)) {
          warnings.push(`the deleted lines ${start}-${end} are not balanced on their own (${quick}); check the range was what you meant`);
        }
      }
      const newTotal = doc.lineCount - (end - start + 1);
      return this.applyEdit(
        ld,
        args,
        {
          tool: 'be-delete',
          start,
          end,
          newLines: [],
          splice,
          affected: affectedDeleted(this.lang, start, end, newTotal),
          summary: `be-delete on ${ld.display} lines ${start}-${end}`,
        },
        { removed: end - start + 1 },
        warnings,
        removedText.length > 0 ? { text: removedText, range: { start, end } } : undefined,
      );
    });
  }

  // ---------------------------------------------------------------- the common edit path

  private unchanged(ld: Loaded, tool: string, start: number, end: number): EditResult {
    void start;
    void end;
    return {
      status: 'ok',
      file: ld.display,
      total: ld.doc.lineCount,
      diff: '',
      balance: '',
      affected: affectedNothing(this.lang, ld.doc.lineCount),
      warnings: [`${tool}: nothing to change; the file was not written`],
    };
  }

  private async applyEdit(
    ld: Loaded,
    common: { format?: DiffFormat; preview?: boolean; brief?: boolean },
    edit: LineEdit,
    counts: { removed?: number; added?: number; after?: number },
    extraWarnings: string[] = [],
    deleted?: { text: string; range: { start: number; end: number } },
  ): Promise<EditResult> {
    const { doc } = ld;
    const { splice } = edit;
    const oldSlice = doc.bytes.subarray(splice.offset, splice.removeEnd);
    if (oldSlice.equals(splice.insert)) {
      const r = this.unchanged(ld, edit.tool, edit.start, edit.end);
      Object.assign(r, counts);
      r.warnings = [`${edit.tool}: the new content equals the current lines; the file was not written`];
      return r;
    }
    // the new file as three slices of the old buffer and the new text: a large file is never copied
    const parts = [doc.bytes.subarray(0, splice.offset), splice.insert, doc.bytes.subarray(splice.removeEnd)];
    const newSize = parts[0].length + parts[1].length + parts[2].length;
    const newTotal = doc.lineCount - (edit.end - edit.start + 1) + edit.newLines.length;
    const result: EditResult = {
      status: 'ok',
      file: ld.display,
      total: newTotal,
      diff: '',
      balance: '',
      affected: edit.affected,
      ...counts,
    };
    if (!common.brief) {
      result.diff = this.diffFor(doc, edit, common.format ?? 'plain');
      result.balance = this.balanceFor(ld, edit, parts, newSize);
    } else {
      result.brief = true;
    }
    const surrounding = doc.lines(Math.max(1, edit.start - 50), Math.min(doc.lineCount, edit.end + 50));
    const warnings = [...extraWarnings, ...contentWarnings(edit.newLines, usesTabIndent(surrounding))];

    if (common.preview) {
      result.preview = true;
      if (warnings.length) result.warnings = warnings;
      return result;
    }

    let chipId: string | undefined;
    if (deleted && this.chips) {
      // saved before the write so the text is never lost; removed again if the write fails
      const saved = await this.chips.saveContent('be-delete', deleted.text, { file: ld.abs, range: deleted.range });
      chipId = saved.chip.id;
      warnings.push(`deleted content saved as chip://${chipId}`);
      const capacity = (this.chips as { capacity?: unknown }).capacity;
      const max = typeof capacity === 'number' ? ` (queue max ${capacity})` : '';
      for (const ev of saved.evicted) warnings.push(`oldest chip ${ev} was evicted${max}`);
    }
    let afterHash: string | undefined;
    try {
      // under the lock, the file must still hold the bytes this edit was computed from
      const opts = { expectedMtimeMs: ld.stat.mtimeMs, expectedContent: doc.bytes };
      const written = this.files.writeParts
        ? this.files.writeParts(ld.abs, parts, opts)
        : this.files.write(ld.abs, Buffer.concat(parts, newSize), opts);
      // hashed while the write's I/O is in flight
      let stat: FileStat;
      [stat, afterHash] = await Promise.all([written, this.history ? sha256Parts(...parts) : undefined]);
      readBack(result, stat);
    } catch (e) {
      if (chipId && this.chips) await this.chips.delete(chipId).catch(() => undefined);
      throw (await this.history?.explainConflict?.(e, ld.abs)) ?? e; // names the session that changed the file
    }
    if (chipId) result.chip_id = chipId;
    await this.record(result, {
      tool: edit.tool,
      file: ld.abs,
      summary: edit.summary,
      created: false,
      offset: splice.offset,
      removed: Buffer.from(oldSlice),
      insertedLength: splice.insert.length,
      afterHash: afterHash ?? '',
      afterSize: newSize,
      chipId,
    }, warnings);
    // Written, hashed and recorded (the history keeps a copy of the removed bytes): nothing holds the old
    // buffer now, so the store may reuse it for the next read instead of allocating another file-sized one.
    this.files.release?.(doc.bytes);
    if (warnings.length) result.warnings = warnings;
    return result;
  }

  private async record(
    result: { event_id?: string; queue_full?: string },
    input: Parameters<EditHistory['record']>[0],
    warnings: string[],
  ): Promise<void> {
    if (!this.history) return;
    try {
      const rec = await this.history.record(input);
      result.event_id = rec.id;
      if (rec.queue_full) result.queue_full = rec.queue_full;
    } catch (e) {
      // the edit has landed; only its undo record is missing
      warnings.push(`the edit was written but could not be recorded for be-trx rollback: ${(e as Error).message}`);
    }
  }

  private diffFor(doc: TextBuffer, edit: LineEdit, format: DiffFormat): string {
    const total = doc.lineCount;
    const ws = Math.max(1, edit.start - 5);
    const we = Math.min(total, edit.end + 5);
    const before = { startLine: ws, lines: doc.lines(ws, we) };
    const after = {
      startLine: ws,
      lines: [...doc.lines(ws, edit.start - 1), ...edit.newLines, ...doc.lines(edit.end + 1, we)],
    };
    return renderDiff(before, after, format, this.lang);
  }

  private balanceFor(ld: Loaded, edit: LineEdit, parts: Buffer[], size: number): string {
    const { doc, languageId } = ld;
    if (size <= this.limits.maxWholeBalanceBytes) {
      return quickBalance(Buffer.concat(parts, size).toString('utf8', doc.bomLength), languageId, this.lang);
    }
    // a large file: compare the balance of the replaced lines with that of the new ones
    const oldText = edit.end >= edit.start ? doc.bytes.toString('utf8', doc.lineStart(edit.start), doc.lineEnd(edit.end)) : '';
    const newText = edit.newLines.join('\n');
    if (oldText.length + newText.length > this.limits.maxWholeBalanceBytes) {
      return this.lang === 'zh'
        ? `符号闭合快速检查：已跳过（文件与修改内容均超过 ${this.limits.maxWholeBalanceBytes} 字节）`
        : `balance: skipped (file and edit over ${this.limits.maxWholeBalanceBytes} bytes)`;
    }
    const before = quickBalance(oldText, languageId, 'en');
    const after = quickBalance(newText, languageId, 'en');
    const limit = this.limits.maxWholeBalanceBytes;
    if (before === after) {
      return this.lang === 'zh'
        ? `符号闭合快速检查：修改未改变括号平衡（仅检查修改的行，文件超过 ${limit} 字节）`
        : `balance: unchanged by this edit (edited lines checked; file over ${limit} bytes)`;
    }
    const strip = (q: string) => q.replace(/^balance: /, '');
    return this.lang === 'zh'
      ? `符号闭合快速检查：修改改变了括号平衡（修改前的行：${strip(before)}；修改后：${strip(after)}；文件超过 ${limit} 字节，未检查全文）`
      : `balance: this edit changes bracket balance (replaced lines: ${strip(before)}; new lines: ${strip(after)}; file over ${limit} bytes, not checked whole)`;
  }

  // ---------------------------------------------------------------- write

  async write(args: WriteArgs): Promise<WriteResult> {
    if (typeof args.content !== 'string') throw new ToolError('invalid_argument', 'write: content is required');
    const pathInput = args.file?.trim() ?? '';
    if (pathInput === '') throw new ToolError('invalid_argument', 'write: file is required (a path inside the workspace)');
    return this.resolveAndLock(pathInput, async (abs) => {
      const display = this.sandbox.display(abs);
      const st = await this.files.stat(abs);
      let old: Buffer = EMPTY;
      let oldDoc: TextBuffer | undefined;
      if (st) {
        this.checkFileSize(display, st.size);
        const content = await this.files.read(abs, { maxBytes: this.limits.maxFileBytes });
        old = content.bytes;
        try {
          assertText(old, display);
          oldDoc = new TextBuffer(old);
        } catch {
          oldDoc = undefined; // overwriting a non-text file: no line ending or BOM to keep
        }
      }
      let text = args.content;
      if (oldDoc && oldDoc.dominantEol === '\r\n') text = text.replace(/\r?\n/g, '\r\n');
      let bytes = Buffer.from(text, 'utf8');
      if (oldDoc?.hasBom && !text.startsWith('\uFEFF')) bytes = Buffer.concat([oldDoc.bytes.subarray(0, 3), bytes]);
      const lines = new TextBuffer(bytes).lineCount;
      const warnings: string[] = [];
      const result: WriteResult = { status: 'ok', files: 1 };
      const entry = { file: display, lines, bytes: bytes.length, created: !st } as NonNullable<WriteResult['results']>[number];
      if (args.preview) {
        result.preview = true;
      } else if (st && old.equals(bytes)) {
        warnings.push('the file already has this content; it was not written');
      } else {
        const [stat, afterHash] = await Promise.all([
          this.files.write(abs, bytes, { mkdirs: true, expectedMtimeMs: st?.mtimeMs, expectedContent: st ? old : null }),
          this.history ? sha256Parts(bytes) : undefined,
        ]).catch(async (e: unknown) => { throw (await this.history?.explainConflict?.(e, abs)) ?? e; });
        readBack(entry, stat);
        await this.record(result, {
          tool: 'be-write',
          file: abs,
          summary: `be-write on ${display}`,
          created: !st,
          offset: 0,
          removed: Buffer.from(old),
          insertedLength: bytes.length,
          afterHash: afterHash ?? '',
          afterSize: bytes.length,
        }, warnings);
      }
      if (warnings.length) entry.warnings = warnings;
      if (args.brief) result.brief = true;
      else result.results = [entry];
      return result;
    });
  }

  // ---------------------------------------------------------------- structure

  async funcRange(args: LineArgs): Promise<FuncRangeResult> {
    const ld = await this.load(args.file);
    const line = this.checkLine(ld, args.line);
    const text = this.analyzableText(ld);
    const r = (await this.symbols?.enclosing(text, line, ld.languageId)) ?? findFunctionRange(text, line, ld.languageId);
    if (!r) throw new ToolError('invalid_argument', `line ${line} of ${ld.display} is not inside any function or block`);
    const out: FuncRangeResult = { start: r.start, end: r.end, kind: r.kind };
    if (r.name) out.name = r.name;
    return out;
  }

  async tagRange(args: LineArgs): Promise<TagRangeResult> {
    const ld = await this.load(args.file);
    const line = this.checkLine(ld, args.line);
    const r = findTagRange(this.analyzableText(ld), line, ld.languageId);
    if (!r) throw new ToolError('invalid_argument', `line ${line} of ${ld.display} is not inside any paired tag`);
    return { start: r.start, end: r.end, kind: r.tag, tag: r.tag };
  }

  async balance(args: BalanceArgs): Promise<ReturnType<typeof checkBalance>> {
    const ld = await this.load(args.file);
    return checkBalance(this.analyzableText(ld), ld.languageId, !!args.verbose);
  }

  private checkLine(ld: Loaded, line: number): number {
    const total = ld.doc.lineCount;
    if (!Number.isInteger(line) || line < 1 || line > total) {
      throw new ToolError('invalid_argument', `target line ${line} out of range (1..${total}) in ${ld.display}`, { total });
    }
    return line;
  }

  // ---------------------------------------------------------------- chips

  async insertChip(args: InsertChipArgs): Promise<ChipListResult | InsertChipResult> {
    const from = (args.from ?? '').trim();
    const to = (args.to ?? '').trim();
    if (from === '' && to === '') return this.listChips(args);
    if (from === '') {
      throw new ToolError('invalid_argument', 'insert-chip: from is missing; use chip://<id> or file:///path (omit both from and to to list chips)');
    }
    if (to === '') {
      throw new ToolError('invalid_argument', 'insert-chip: to is missing; use file:///absolute/path:line, file://relative/path:line or path:line');
    }
    const format = args.format ?? 'raw';
    const target = parseFileRange(to);
    if (target.spec.kind !== 'line') {
      throw new ToolError(
        'invalid_argument',
        `insert-chip: to must end with :line (insert after that line; :0 is the top), e.g. ${target.path}:0`,
      );
    }
    let text: string;
    let source: string;
    if (/^chip:\/\//i.test(from)) {
      const id = from.slice('chip://'.length).trim();
      const chip = await this.requireChips().get(id);
      if (!chip) {
        const ids = (await this.requireChips().list()).map((c) => c.id);
        throw new ToolError(
          'not_found',
          `chip ${id} not found. ${ids.length ? `Available chips: ${ids.join(', ')}.` : 'There are no chips.'} Call be-insert-chip with no arguments to list them.`,
        );
      }
      text = this.renderChip(chip, format, languageIdFromPath(target.path));
      source = `chip://${chip.id}`;
    } else {
      const ld = await this.load(from);
      text = ld.doc.text();
      source = ld.display;
    }
    return this.resolveAndLock(target.path, async (abs) => {
      const ld = await this.load(target.path, abs);
      const r = await this.insertLoaded(ld, target.spec, text, { preview: args.preview, format: 'plain' }, 'be-insert-chip');
      return { ...r, source, format };
    });
  }

  private requireChips(): ChipSink {
    if (!this.chips) throw new ToolError('invalid_argument', 'chips are not available in this server');
    return this.chips;
  }

  private renderChip(chip: ChipRecord, format: 'raw' | 'annotated' | 'json', languageId: string): string {
    return (this.renderChipFn ?? renderChipDefault)(chip, format, languageId);
  }

  private async listChips(filter: ChipListFilter): Promise<ChipListResult> {
    const chips = this.chips;
    const list = chips ? filterChips(await chips.list(), filter, (c) => chips.originalText(c), (abs) => this.sandbox.display(abs)) : [];
    const result: ChipListResult = {
      status: 'ok',
      chips: list.map((c) => c.id),
      items: list.map((c) => {
        const item: ChipListResult['items'][number] = {
          id: c.id,
          tool: c.tool,
          created_at: c.created_at,
          size: c.size,
          preview: c.preview,
        };
        if (c.file) item.file = this.sandbox.display(c.file);
        if (c.range) item.range = c.range;
        if (c.tampered) item.tampered = true;
        return item;
      }),
    };
    if (list.length === 0) result.message = 'no chips recorded';
    return result;
  }

  // ---------------------------------------------------------------- transactions

  async trx(args: TrxArgs): Promise<Record<string, unknown>> {
    if (!this.history) throw new ToolError('invalid_argument', 'edit history is disabled in this server; be-trx is unavailable');
    switch (args.action) {
      case 'commit':
        return { status: 'ok', ...(await this.history.commit()) };
      case 'rollback': {
        const step = Math.max(1, Math.floor(args.step ?? 1));
        return { ...(await this.history.rollback(step, !!args.force)) };
      }
      case 'status':
        return { status: 'ok', ...(await this.history.status()) };
      default:
        if (this.history.review && (args.action === 'keep' || args.action === 'revert')) return { ...(await this.history.review({ ...args, action: args.action })) };
        throw new ToolError('invalid_argument', `unknown trx action: ${String(args.action)}; expected commit, rollback or status`);
    }
  }
}

function numbered(doc: TextBuffer, start: number, end: number): string {
  const out: string[] = [];
  for (let i = start; i <= end; i++) {
    const t = doc.lineText(i);
    out.push(`${i}\t${t === '' ? '<blank>' : t}`);
  }
  return out.join('\n');
}

function lineOfIndex(text: string, index: number): number {
  let line = 1;
  let pos = text.indexOf('\n');
  while (pos !== -1 && pos < index) {
    line++;
    pos = text.indexOf('\n', pos + 1);
  }
  return line;
}
