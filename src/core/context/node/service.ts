/**
 * ContextService: the three read levels behind be-read's `mode`, be-overview and the MCP resources.
 * Every reply says its `mode` (overview | structure | full), its `data_type` (context_summary for maps,
 * file_content for content, so that a model does not try to "fix" a summary as if it were code) and a
 * `hint` naming the exact next call for more detail.
 */
import { promises as fsp } from 'node:fs';
import { dirname } from 'node:path';
import { ToolError } from '../../errors';
import type { FileStore } from '../../files/fileStore';
import { loadText, type LoadedText as LoadedDoc } from '../../read/load';
import { mixedEolWarning, readMetadata, type ReadMetadata, type ViewedIssuer } from '../../read/metadata';
import { namesLines, readRange } from '../../read/range';
import { TextBufferCache } from '../../read/bufferCache';
import type { EditedIndexCache } from '../../read/editedIndex';
import { isInside } from '../../files/ports';
import { parseFileRange } from '../../text/range';
import { BYTES_AS_TOKENS, DEFAULT_PAGE_TOKENS, fitsWithoutCounting, paginate } from '../full';
import { CONTEXT_SETTINGS } from '../settingsTable';
import { outlinePage, queryOutline } from '../outlinePage';
import { DEFAULT_OVERVIEW_BUDGET, RepoMap } from '../repoMap';
import { fileStoreReader } from './readWalked';
import { diskWalker } from './walk';
import { structure } from '../structure';
import type { ParserSource } from './treeSitter';
import type { OutlineSource } from '../treeOutline';
import type { RecordDescriber } from '../recordData';
import type { ContextMode, DataType, FileStructure, OutlineSymbol, SymbolProvider, TokenCounter } from '../types';

export type ReadMode = ContextMode | 'auto';

export interface ContextSettings {
  /** Mode of a be-read without a range and without `mode` (a setting; `full` is upstream's behaviour). */
  defaultMode: ReadMode;
  /** `auto` returns the whole file up to this many tokens, the structure above. */
  autoThresholdTokens: number;
  /** A full page never carries more content tokens than this. */
  pageTokens: number;
  overviewBudget: number;
  /** Files larger than this are refused (the EditService limit is the same by default). */
  maxFileBytes: number;
  /** Above this many characters, token counts of whole files are estimated (chars / 4). */
  maxExactTokenChars: number;
}

export const DEFAULT_CONTEXT_SETTINGS: ContextSettings = {
  defaultMode: CONTEXT_SETTINGS.defaultReadMode.default,
  autoThresholdTokens: CONTEXT_SETTINGS.autoFullMaxTokens.default,
  pageTokens: DEFAULT_PAGE_TOKENS,
  overviewBudget: DEFAULT_OVERVIEW_BUDGET,
  maxFileBytes: 64 * 1024 * 1024,
  maxExactTokenChars: 512 * 1024,
};

/** The sandbox as the context modes use it (core's Sandbox satisfies it). */
export interface PathResolver {
  readonly roots: readonly string[];
  resolve(input: string): Promise<string>;
  display(abs: string): string;
}

export interface ContextServiceDeps {
  sandbox: PathResolver;
  files: FileStore;
  /** Issues the viewed_code_id of each full page (the EditService's registry, so edits find the lines as read). */
  viewed: ViewedIssuer;
  /** Counts pages, outlines and overviews (one per composition root, shared by all of them). */
  tokenizer: TokenCounter;
  /** Tree-sitter parsers for outlines (the composition root's, shared with the edit tools' function ranges). */
  parsers: ParserSource;
  /** Where outlines are parsed (the composition root's worker pool, node/outlinePool.ts); default in-thread. */
  outlines?: OutlineSource;
  /** A second thread for a cold overview's describing (node/recordsPool.ts); default none. */
  describer?: RecordDescriber;
  fallbackSymbols?: SymbolProvider;
  settings?: Partial<ContextSettings>;
  /** The line index each big file's last edit derived (the EditService's), for a read of exactly those bytes. */
  editedIndex?: Pick<EditedIndexCache, 'indexFor'>;
}

interface Tagged {
  mode: ContextMode;
  data_type: DataType;
  hint: string;
}

export interface OverviewReply extends Tagged {
  mode: 'overview';
  path: string;
  overview: string;
  files: number;
  lines: number;
  shown_files: number;
  tokens: number;
  budget: number;
}

export interface StructureReply extends Tagged {
  mode: 'structure';
  file: string;
  total: number;
  file_tokens: number;
  outline: string;
  symbols?: OutlineSymbol[];
  notes?: string[];
  /** A page of a longer outline: the first line its new rows start at, and the call for the next page. */
  from?: number;
  next?: { file: string; mode: 'structure'; from: number };
  /** An outline narrowed to a query: the query, how many symbols match it, how many are shown of all. */
  query?: string;
  matched?: number;
  matched_shown?: number;
  shown?: number;
  symbols_total?: number;
  /** The call that gives the symbols a narrowed outline left out. */
  all?: { file: string; mode: 'structure'; from: 1 };
}

/** A full page: upstream's read fields (id, eol, bom, ... from the read module, empty files too) and its rows. */
export interface FullReply extends Tagged, ReadMetadata {
  mode: 'full';
  content: string;
  warnings?: string[];
  next?: { file: string; column?: number };
  partial?: { line: number; from: number; to: number; length: number };
}

export type ContextReply = OverviewReply | StructureReply | FullReply;

export interface ReadRequest {
  /** Upstream grammar: `path`, `path:N`, `path:S-E`, `path:ALL`. */
  file: string;
  mode?: ReadMode;
  /** Continue a split long line at this 1-based character (from a previous page's hint). */
  column?: number;
  /** Structure only: also return the symbols as JSON. */
  json?: boolean;
  /** Override the page token limit for this call (bounded by the setting); an outline's page too. */
  limit?: number;
  /** Structure: the symbols that match these words and their neighbours, within a small budget. */
  query?: string;
  /** Structure: the page of the outline that starts at this line (a previous page's `next`). */
  from?: number;
  /** full: how an empty line is shown (default upstream's `<blank>`; '' for text replies). */
  blank?: string;
  /** The call was cancelled: an outline still parsing is abandoned. */
  signal?: AbortSignal;
}

/** One read of a file: the line model the id is hashed from, and its text (BOM excluded) for pages and outlines. */
interface LoadedText extends LoadedDoc {
  text: string;
}

export class ContextService {
  readonly settings: ContextSettings;
  readonly tokenizer: TokenCounter;
  private readonly maps = new Map<string, RepoMap>();
  /** The line index of each big file's last version read (pages of one file reuse it). */
  private readonly buffers: TextBufferCache;
  private watchedRoots = false;
  private firstUse: (() => void) | undefined;

  constructor(private readonly deps: ContextServiceDeps) {
    const edited = deps.editedIndex;
    this.buffers = new TextBufferCache(undefined, edited ? (abs, bytes) => edited.indexFor(abs, bytes) : undefined, (bytes) => deps.files.release?.(bytes));
    this.settings = { ...DEFAULT_CONTEXT_SETTINGS, ...deps.settings };
    this.tokenizer = deps.tokenizer;
  }

  updateSettings(s: Partial<ContextSettings>): void {
    Object.assign(this.settings, s);
  }

  /** The cached repository map of the root that holds `abs` (created on first use). */
  repoMapFor(abs: string): RepoMap {
    const root = [...this.deps.sandbox.roots].sort((a, b) => b.length - a.length).find((r) => isInside(r, abs));
    const key = root ?? abs;
    let map = this.maps.get(key);
    if (!map) {
      const start = this.firstUse;
      this.firstUse = undefined;
      start?.();
      map = new RepoMap(key, { tokenizer: this.tokenizer, reader: fileStoreReader(this.deps.files), walker: diskWalker, describer: this.deps.describer });
      map.watched = this.watchedRoots;
      this.maps.set(key, map);
    }
    return map;
  }

  /** A file or folder changed (a watcher or an edit tool saw it): the next overview re-reads it. */
  invalidate(abs: string): void {
    this.buffers.forget(abs);
    for (const m of this.maps.values()) if (isInside(m.root, abs)) m.invalidate(abs);
  }

  /**
   * A watcher reports every change under the roots (true) or not (false, the default). While true, warm
   * overviews look only at invalidated paths; otherwise they stat every file and compare mtimes.
   */
  setWatched(on: boolean): void {
    this.watchedRoots = on;
    for (const m of this.maps.values()) m.setWatched(on);
  }

  /**
   * Run `fn` once, just before the first repository map is created (the first overview). The CLI starts its file
   * watcher there: setting up a recursive watch walks every folder, which a server that only edits need not pay.
   */
  whenFirstMapped(fn: () => void): void {
    this.firstUse = fn;
  }

  get watched(): boolean {
    return this.watchedRoots;
  }

  async overview(args: { path?: string; budget?: number; query?: string } = {}): Promise<OverviewReply> {
    await this.tokenizer.ready?.(); // the first call loads the rank table in slices, not in one 300-500 ms block
    const abs = await this.deps.sandbox.resolve(args.path?.trim() ? args.path : this.deps.sandbox.roots[0]!);
    const st = await fsp.stat(abs).catch(() => undefined);
    if (!st) throw new ToolError('not_found', `folder not found: ${this.deps.sandbox.display(abs)}. Give a folder inside the workspace, or omit path for the whole workspace.`);
    const folder = st.isDirectory() ? abs : dirname(abs);
    const map = this.repoMapFor(folder);
    // A query's default is half the user's overviewBudget (1024 → 512, the measured query default): the matching
    // files are what was asked for, not the tree; the setting still scales it.
    const budget = args.budget ?? (args.query ? Math.max(128, Math.round(this.settings.overviewBudget / 2)) : this.settings.overviewBudget);
    let res = await map.overview({ folder, budget, query: args.query });
    // The budget covers the whole reply an agent receives, JSON fields included: shrink the map by the overhead
    // (laid out again from the index just refreshed: a second walk of 200,000 files would find nothing new).
    const overhead = this.tokenizer.count(JSON.stringify({ ...this.overviewReply(folder, res), overview: '' }));
    if (res.tokens + overhead > budget) res = await map.overview({ folder, budget: Math.max(128, budget - overhead), query: args.query, refresh: false });
    // structure reads of the files it shows come next: their parse workers start now, after the overview's own work
    this.deps.outlines?.warm?.();
    return this.overviewReply(folder, res);
  }

  private overviewReply(folder: string, res: Awaited<ReturnType<RepoMap['overview']>>): OverviewReply {
    return {
      mode: 'overview',
      data_type: 'context_summary',
      path: this.deps.sandbox.display(folder),
      overview: res.text,
      files: res.files,
      lines: res.lines,
      shown_files: res.shownFiles,
      tokens: res.tokens,
      budget: res.budget,
      hint: res.hint,
    };
  }

  /** Starts the outline workers in the background (a host at an idle moment): the first outline need not wait for them. */
  warmOutlines(): void {
    this.deps.outlines?.warm?.();
  }

  async structure(file: string, opts: { json?: boolean; signal?: AbortSignal } = {}): Promise<StructureReply> {
    await this.tokenizer.ready?.(); // the first call loads the rank table in slices, not in one 300-500 ms block
    const loaded = await this.load(parseFileRange(file).path);
    return this.structureOf(loaded, { json: opts.json, signal: opts.signal });
  }

  /** be-read with a mode. Ranges always read `full`; `auto` picks full or structure by size. */
  async read(req: ReadRequest): Promise<ContextReply> {
    // the rank table is awaited where a count is needed (a small range needs none: see full())
    const fr = parseFileRange(req.file);
    const hasRange = namesLines(fr.spec);
    const requested = req.mode ?? (hasRange ? 'full' : this.settings.defaultMode);

    const abs = await this.deps.sandbox.resolve(fr.path);
    if (requested === 'overview') return this.overview({ path: (await isDirectory(abs)) ? abs : dirname(abs) });
    let loaded: LoadedText;
    try {
      loaded = await this.load(fr.path, abs);
    } catch (e) {
      // Only an explicit overview maps a folder; otherwise refuse as upstream be-read does, naming the call that works.
      if (e instanceof ToolError && e.code === 'invalid_argument' && (await isDirectory(abs))) {
        const display = this.deps.sandbox.display(abs);
        throw new ToolError(
          'invalid_argument',
          `${display} is a directory; be-read reads files. For a map of the folder call be-overview {"path":"${display}"} or be-read with mode "overview".`,
        );
      }
      throw e;
    }
    // a large file's outline waits for its workers' start (~0.1-0.2 s): they start now, while this thread decodes the
    // text and finds its cuts, not after
    if (!hasRange && requested !== 'full' && loaded.doc.bytes.length >= LARGE_OUTLINE_BYTES) this.deps.outlines?.warm?.(0, true);
    let mode: ContextMode = hasRange ? 'full' : requested === 'auto' ? 'full' : requested;
    if (!hasRange && requested === 'auto') {
      await this.ranks();
      const small = loaded.text.length <= this.settings.autoThresholdTokens * 2 || (loaded.text.length <= this.settings.autoThresholdTokens * 12 && this.tokenizer.count(loaded.text) <= this.settings.autoThresholdTokens);
      mode = small ? 'full' : 'structure';
    }
    if (mode === 'structure') return this.structureOf(loaded, req);
    return this.full(loaded, fr.spec, req);
  }

  private ranksLoaded = false;

  /** The first call that counts loads the rank table in slices, not in one 300-500 ms block. */
  private async ranks(): Promise<void> {
    if (this.ranksLoaded) return;
    await this.tokenizer.ready?.();
    this.ranksLoaded = true;
  }

  /**
   * The outline of a file: a page of whole symbols within the page limit (`req.limit`, under a host's limit), or
   * with a query the matching symbols and their neighbours within a query's budget (half the overviewBudget, as
   * a query overview), with the call for what it left out.
   */
  private async structureOf(loaded: LoadedText, req: Pick<ReadRequest, 'json' | 'limit' | 'query' | 'from' | 'signal'>): Promise<StructureReply> {
    const s: FileStructure = await structure(loaded.text, loaded.languageId, {
      tokensReady: this.ranks(),
      path: loaded.display,
      absPath: loaded.abs,
      tokenizer: this.tokenizer,
      parsers: this.deps.parsers,
      outlines: this.deps.outlines,
      signal: req.signal,
      fallbackSymbols: this.deps.fallbackSymbols,
      maxExactTokenChars: this.settings.maxExactTokenChars,
    });
    const pageTokens = Math.max(64, Math.min(req.limit ?? this.settings.pageTokens, this.settings.pageTokens));
    const reply: StructureReply = {
      mode: 'structure',
      data_type: 'context_summary',
      file: loaded.display,
      total: s.lines,
      file_tokens: s.tokens,
      outline: '',
      hint: '',
    };
    const q = req.from === undefined && req.query?.trim() ? req.query.trim() : undefined;
    const budget = Math.min(pageTokens, Math.max(128, Math.round(this.settings.overviewBudget / 2)));
    const narrowed = q ? await queryOutline(s, q, { maxTokens: budget, tokenizer: this.tokenizer }) : undefined;
    if (narrowed) {
      Object.assign(reply, { outline: narrowed.text, query: q, matched: narrowed.matched, matched_shown: narrowed.matchedShown, shown: narrowed.shown, symbols_total: narrowed.total });
      if (narrowed.shown < narrowed.total) reply.all = { file: loaded.display, mode: 'structure', from: 1 };
    } else {
      // The reply's fields carry path, lines and tokens: the outline starts with the imports and symbols.
      const page = outlinePage(s, { from: req.from, maxTokens: pageTokens, tokenizer: this.tokenizer });
      reply.outline = page.text;
      if (q) reply.query = q; // nothing matched: the plain outline, and the reply says so
      if ((req.from ?? 1) > 1) reply.from = page.from;
      if (page.next) reply.next = { file: loaded.display, mode: 'structure', from: page.next };
    }
    reply.hint = narrowed ? `be-read {"file":"${s.path}:${narrowed.best.start}-${narrowed.best.end}"} reads ${narrowed.best.name}` : structureHint(s);
    if (req.json) reply.symbols = s.symbols;
    if (s.notes.length) reply.notes = s.notes;
    if (s.symbols.length === 0 && s.source !== 'none') reply.notes = [...(reply.notes ?? []), 'no symbols found'];
    return reply;
  }

  private async full(loaded: LoadedText, spec: ReturnType<typeof parseFileRange>['spec'], req: ReadRequest): Promise<FullReply> {
    const doc = loaded.doc;
    const total = doc.lineCount;
    const { start, end, warnings } = readRange(spec, total, loaded.display);
    const limit = Math.min(req.limit ?? this.settings.pageTokens, this.settings.pageTokens);
    const source = { count: total, line: (n: number) => doc.lineText(n) };
    const pageReq = { path: loaded.display, source, start, end, column: req.column, limit, blank: req.blank };
    // before the ranks are loaded, a range within the limit in bytes is the same page without a count
    const uncounted = !this.ranksLoaded && fitsWithoutCounting(pageReq);
    if (!uncounted) await this.ranks();
    const page = paginate({ ...pageReq, tokenizer: uncounted ? BYTES_AS_TOKENS : this.tokenizer });
    // The id and the metadata of the page's own lines, hashed from the buffer the page was cut from.
    const meta = await readMetadata(this.deps.viewed, loaded, total === 0 ? 0 : page.start, total === 0 ? 0 : page.end);
    const mixed = mixedEolWarning(loaded.doc);
    if (mixed) warnings.push(mixed);
    const reply: FullReply = {
      ...meta,
      mode: 'full',
      data_type: 'file_content',
      file: loaded.display,
      start: total === 0 ? 0 : page.start,
      end: total === 0 ? 0 : page.end,
      total,
      content: page.content,
      hint: page.hint,
    };
    if (page.next) reply.next = page.next;
    if (page.partial) reply.partial = page.partial;
    if (warnings.length) reply.warnings = warnings;
    return reply;
  }

  /**
   * The file through the FileStore (an editor's unsaved buffer in VS Code), read once, by the loader the edit
   * tools use: same size limit, same text check, same line model. `resolved`: the caller resolved it already.
   */
  private async load(pathInput: string, resolved?: string): Promise<LoadedText> {
    const ports = { files: this.deps.files, sandbox: this.deps.sandbox, maxFileBytes: this.settings.maxFileBytes, index: (abs: string, bytes: Buffer) => this.buffers.bufferOf(abs, bytes) };
    const loaded = await loadText(ports, pathInput, resolved);
    // decoded on first use: a full page of a 10 MB file needs only its own lines
    let text: string | undefined;
    return {
      ...loaded,
      get text() {
        return (text ??= loaded.doc.text());
      },
    };
  }
}

/** From this size a text is parsed in parts on the outline workers (OutlinePool's partChars, 1 MiB characters). */
const LARGE_OUTLINE_BYTES = 1024 * 1024;

/** A folder is no FileStore file: this one stat tells "map it" from "refuse it"; it never opens anything. */
async function isDirectory(abs: string): Promise<boolean> {
  return (await fsp.stat(abs).catch(() => undefined))?.isDirectory() === true;
}

/** "Read one symbol" pointing at the largest callable (the full read when there is none). */
function structureHint(s: FileStructure): string {
  const all: OutlineSymbol[] = [];
  const visit = (xs: OutlineSymbol[] | undefined) => xs?.forEach((x) => (all.push(x), visit(x.children)));
  visit(s.symbols);
  const pick = all.filter((x) => x.kind === 'function' || x.kind === 'method').sort((a, b) => b.end - b.start - (a.end - a.start))[0] ?? all[0];
  // The example call is enough: the outline rows start with their ranges, and the catalog lists mode "full".
  return pick ? `be-read {"file":"${s.path}:${pick.start}-${pick.end}"} reads ${pick.name}` : `be-read {"file":"${s.path}","mode":"full"} reads all ${s.lines} lines`;
}
