/**
 * `structure` of a file: nested symbols with one-line signatures and line ranges, its imports and its size.
 * Tree-sitter where a grammar exists, hand-written outlines for Markdown/JSON/YAML, an optional host
 * symbol provider (VS Code) for other languages, and an indentation outline as the last resort.
 */
import type { TokenCounter } from './types';
import type { Extracted } from './extract';
import { indentOutline, jsonOutline, markdownOutline, yamlOutline } from './outlines';
import { inThreadOutlines, type OutlineSource } from './treeOutline';
import type { ParserSource } from './node/treeSitter';
import type { FileStructure, OutlineSymbol, SymbolProvider } from './types';

export interface StructureOptions {
  /** Path shown to the agent. */
  path?: string;
  /** Absolute path, for the host symbol provider. */
  absPath?: string;
  /** Counts the file's tokens (the composition root's tokenizer). */
  tokenizer: TokenCounter;
  /** Tree-sitter parsers (the composition root's TreeSitterParsers), for outlines parsed in-thread. */
  parsers: ParserSource;
  /** Where tree-sitter outlines come from (the composition root's worker pool); default in-thread over `parsers`. */
  outlines?: OutlineSource;
  /** Abandons the outline (the worker's parse is ended) when it aborts. */
  signal?: AbortSignal;
  /** Larger texts are not parsed (tree-sitter time and memory grow with size); default 4 MB. */
  maxParseChars?: number;
  /** Larger texts get an estimated token count (chars / 4) instead of an exact one; default 2 MB. */
  maxExactTokenChars?: number;
  fallbackSymbols?: SymbolProvider;
  /** The tokenizer's ranks loading: awaited before the first count, once the parse has started. */
  tokensReady?: Promise<void>;
}

export const DEFAULT_MAX_PARSE_CHARS = 4 * 1024 * 1024;
export const DEFAULT_MAX_EXACT_TOKEN_CHARS = 2 * 1024 * 1024;

export function countLines(text: string): number {
  if (text.length === 0) return 0;
  let n = 1;
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) n++;
  return text.endsWith('\n') ? n - 1 : n;
}

/** Characters in lines longer than `min`. */
function charsInLongLines(text: string, min: number): number {
  let total = 0;
  for (let start = 0; start < text.length; ) {
    const nl = text.indexOf('\n', start);
    const end = nl === -1 ? text.length : nl;
    if (end - start > min) total += end - start;
    start = end + 1;
  }
  return total;
}

export function countTokens(text: string, tokenizer: TokenCounter, maxExact = DEFAULT_MAX_EXACT_TOKEN_CHARS): { tokens: number; estimated: boolean } {
  if (text.length > maxExact) return { tokens: Math.ceil(text.length / 4), estimated: true };
  return { tokens: tokenizer.count(text), estimated: false };
}

export async function structure(text: string, languageId: string, opts: StructureOptions): Promise<FileStructure> {
  const maxParse = opts.maxParseChars ?? DEFAULT_MAX_PARSE_CHARS;
  // Minified or generated text (most of it in lines over 4 KiB): its outline is thousands of symbols on line 1,
  // and building it took 44 s for a 4 MiB bundle, with the event loop blocked in the parser.
  const longLineChars = text.length > maxParse ? 0 : charsInLongLines(text, 4096);
  const minified = longLineChars > text.length / 2;
  // The parse starts first: on a worker it runs while this thread waits for the ranks and counts the tokens.
  const parsing = text.length <= maxParse && !minified ? (opts.outlines ?? inThreadOutlines(opts.parsers)).outline(text, languageId, opts.signal) : undefined;
  parsing?.catch(() => undefined); // awaited below, unless the count throws first
  await opts.tokensReady;
  const tokenizer: TokenCounter & { countAsync?(text: string): Promise<number> } = opts.tokenizer;
  // a count of up to maxExact characters can take a second: yield to the event loop while it runs
  const exact = tokenizer.countAsync && text.length <= (opts.maxExactTokenChars ?? DEFAULT_MAX_EXACT_TOKEN_CHARS);
  const { tokens, estimated } = exact ? { tokens: await tokenizer.countAsync!(text), estimated: false } : countTokens(text, tokenizer, opts.maxExactTokenChars);
  const result: FileStructure = {
    path: opts.path ?? '',
    languageId,
    source: 'none',
    lines: countLines(text),
    tokens,
    imports: [],
    symbols: [],
    notes: [],
  };
  if (estimated) result.tokensEstimated = true;
  if (text.length > maxParse) {
    result.notes.push(
      `file too large to outline (${(text.length / 1048576).toFixed(1)} MB > ${(maxParse / 1048576).toFixed(0)} MB); read it in line ranges`,
    );
    return result;
  }
  if (minified) {
    result.notes.push(`minified or generated text (${Math.round((100 * longLineChars) / text.length)}% in lines over 4096 characters): no outline; read it with mode "full" (pages)`);
    return result;
  }

  const ex = await parsing;
  if (ex) {
    result.source = 'tree-sitter';
    result.symbols = ex.symbols;
    result.imports = ex.imports;
    if (ex.errorLines.length) {
      result.notes.push(
        `syntax errors near ${ex.errorLines.map((l) => `L${l}`).join(', ')}; showing what parsed (symbols there may be missing or cut short)`,
      );
    }
    return result;
  }

  switch (languageId) {
    case 'markdown':
      result.source = 'markdown';
      result.symbols = markdownOutline(text);
      return result;
    case 'json':
    case 'jsonc':
    case 'json5':
      result.source = 'json';
      result.symbols = jsonOutline(text);
      return result;
    case 'yaml':
      result.source = 'yaml';
      result.symbols = yamlOutline(text);
      return result;
  }

  if (opts.fallbackSymbols && opts.absPath) {
    try {
      const syms = await opts.fallbackSymbols.symbols(opts.absPath, languageId);
      if (syms && syms.length) {
        result.source = 'document-symbols';
        result.symbols = syms;
        return result;
      }
    } catch {
      // The host provider is best effort; fall through to the indentation outline.
    }
  }
  result.source = 'indent';
  result.symbols = indentOutline(text);
  return result;
}

/** The outlines of a source, or parsed in-thread by a set of parsers. */
function outlinesOf(from: OutlineSource | ParserSource): OutlineSource {
  return 'outline' in from ? from : inThreadOutlines(from);
}

export interface EnclosingSymbol {
  start: number;
  end: number;
  kind: string;
  name: string;
}

const CALLABLE = new Set(['function', 'method', 'constructor']);

/**
 * The innermost function/method around `line` (1-based), else the innermost class-like symbol, from the
 * tree-sitter outline. Undefined when the language has no grammar or nothing encloses the line.
 */
/** Whether a symbol's lines hold a region that did not parse: its range there may be cut short or run long. */
function overlapsError(sym: OutlineSymbol, ex: Extracted): boolean {
  return ex.errorRanges.some((r) => r.start <= sym.end && r.end >= sym.start);
}

/**
 * The innermost function/method around `line` (1-based), else the innermost class-like symbol, from the
 * tree-sitter outline. Undefined when the language has no grammar, nothing encloses the line, or the symbol
 * found spans a region that did not parse (the brace/indent analyzers then decide).
 */
export async function enclosingSymbol(text: string, line: number, languageId: string, from: OutlineSource | ParserSource): Promise<EnclosingSymbol | undefined> {
  const ex = text.length <= DEFAULT_MAX_PARSE_CHARS ? await outlinesOf(from).outline(text, languageId) : undefined;
  if (!ex) return undefined;
  let bestCallable: OutlineSymbol | undefined;
  let bestOther: OutlineSymbol | undefined;
  const visit = (syms: OutlineSymbol[] | undefined) => {
    for (const sym of syms ?? []) {
      if (line < sym.start || line > sym.end) continue;
      if (CALLABLE.has(sym.kind)) bestCallable = sym;
      else bestOther = sym;
      visit(sym.children);
    }
  };
  visit(ex.symbols);
  const best = bestCallable ?? bestOther;
  if (!best || overlapsError(best, ex) || ex.errorRanges.some((r) => r.start <= line && line <= r.end)) return undefined;
  return { start: best.start, end: best.end, kind: best.kind, name: best.name };
}

/** Find symbols by name (`calculate`, `PriceCalculator.calculate`), for be-read's `function` target. */
export function findSymbol(symbols: OutlineSymbol[], query: string): OutlineSymbol[] {
  const parts = query.split(/\.|::|#/).filter(Boolean);
  const out: OutlineSymbol[] = [];
  const visit = (syms: OutlineSymbol[] | undefined, path: string[]) => {
    for (const sym of syms ?? []) {
      const p = [...path, sym.name];
      const tail = p.slice(-parts.length);
      if (tail.length === parts.length && tail.every((n, i) => n === parts[i] || n.endsWith(`.${parts[i]}`))) out.push(sym);
      visit(sym.children, p);
    }
  };
  visit(symbols, []);
  return out;
}

/**
 * Tree-sitter function ranges for the edit tools (be-func-range, be-read's `function` target), as the
 * EditService's SymbolLocator port. Answers undefined where there is no grammar, so the brace/indent
 * analyzers decide there.
 */
export function treeSitterSymbols(from: OutlineSource | ParserSource) {
  const outlines = outlinesOf(from);
  return {
    enclosing: (text: string, line: number, languageId: string) => enclosingSymbol(text, line, languageId, outlines),
    async byName(text: string, name: string, languageId: string): Promise<EnclosingSymbol | undefined> {
      const ex = text.length <= DEFAULT_MAX_PARSE_CHARS ? await outlines.outline(text, languageId) : undefined;
      if (!ex) return undefined;
      const found = findSymbol(ex.symbols, name);
      const best = found.find((sym) => CALLABLE.has(sym.kind)) ?? found[0];
      if (!best || overlapsError(best, ex)) return undefined;
      return { start: best.start, end: best.end, kind: best.kind, name: best.name };
    },
  };
}
