/**
 * Bracket, tag and quote balance (be-balance, and the `balance` field of edit results): the reports over
 * the comment/string scanner (core/text/scan) and the bracket matcher (matchBrackets.ts). Fixes over
 * upstream: comment syntax per language (`#`, `--`, `<!-- -->`, …), quote warnings only for strings that
 * really are unterminated (end of line for single-line kinds, end of file for multi-line kinds), tags only
 * in markup languages, and a bracket matcher that recovers from one missing bracket instead of cascading.
 */
import { syntaxFor } from '../text/languages';
import { scanText, Tok, TOKEN_CHARS, type ScanResult, type TagPair, type UnbalancedItem } from '../text/scan';
import { matchBrackets, type Matching } from './matchBrackets';
import type { Lang } from '../lang';
import { quickBalanceMessages } from './messages';

export type { UnbalancedItem } from '../text/scan';

export interface QuoteWarning {
  symbol: string;
  count: number;
  lines: number[];
}

export interface MatchedPair {
  symbol: string;
  open_line: number;
  close_line: number;
  depth: number;
}

export type BalanceReport =
  | { mode: 'unbalanced'; status: 'all balanced' }
  | { mode: 'unbalanced'; unbalanced: UnbalancedItem[] | null; quote_warnings: QuoteWarning[] | null }
  | {
      mode: 'verbose';
      symbols: string;
      tags: string;
      tag_tree: string | null;
      matched: MatchedPair[] | null;
      unbalanced: UnbalancedItem[] | null;
      quote_warnings: QuoteWarning[] | null;
    };

/**
 * The report written for a model (the default reply): upstream's non-verbose `mode` is `"unbalanced"` (the
 * report mode: only the unbalanced items) even when the status says `"all balanced"`, which reads as a
 * contradiction. Here `balanced` says it, `mode` and `status` are gone and empty lists are left out. Upstream's
 * shape stays the `--reply json` one (drop-in compatibility).
 */
export interface ModelBalanceReport {
  balanced: boolean;
  unbalanced?: UnbalancedItem[];
  quote_warnings?: QuoteWarning[];
  /** verbose only */
  symbols?: string;
  tags?: string;
  tag_tree?: string;
  matched?: MatchedPair[];
}

export function modelBalanceReport(report: BalanceReport): ModelBalanceReport {
  if ('status' in report) return { balanced: true };
  const out: ModelBalanceReport = { balanced: !report.unbalanced && !report.quote_warnings };
  if (report.unbalanced) out.unbalanced = report.unbalanced;
  if (report.quote_warnings) out.quote_warnings = report.quote_warnings;
  if (report.mode === 'verbose') {
    out.symbols = report.symbols;
    out.tags = report.tags;
    if (report.tag_tree) out.tag_tree = report.tag_tree;
    if (report.matched) out.matched = report.matched;
  }
  return out;
}

/** 1-based columns of token offsets, with one pass over the text for the line starts (no per-item search). */
function columnsOf(text: string, offsets: number[]): number[] {
  if (!offsets.length) return [];
  const order = offsets.map((_, k) => k).sort((a, b) => offsets[a] - offsets[b]);
  const cols = new Array<number>(offsets.length);
  let lineStart = 0;
  let nextNL = text.indexOf('\n');
  for (const k of order) {
    const off = offsets[k];
    while (nextNL !== -1 && nextNL < off) {
      lineStart = nextNL + 1;
      nextNL = text.indexOf('\n', lineStart);
    }
    cols[k] = off - lineStart + 1;
  }
  return cols;
}

const EXPECTED = ['}', '{', ']', '[', ')', '('];

interface Analysis {
  scan: ScanResult;
  matching: Matching;
  unbalanced: UnbalancedItem[];
  quoteWarnings: QuoteWarning[];
}

/** Full analysis: scan, match, and the upstream-shaped unbalanced items and quote warnings. */
export function analyzeBalance(text: string, languageId: string): Analysis {
  const scan = scanText(text, languageId);
  const matching = matchBrackets(scan.kinds);
  const cols = columnsOf(text, matching.unbalanced.map((t) => scan.offsets[t]));
  const unbalanced: UnbalancedItem[] = matching.unbalanced.map((t, k) => ({
    symbol: TOKEN_CHARS[scan.kinds[t]],
    line: scan.lines[t],
    col: cols[k],
    expected: EXPECTED[scan.kinds[t]],
  }));
  unbalanced.push(...scan.tagUnbalanced);
  unbalanced.sort((a, b) => a.line - b.line || (a.col ?? 0) - (b.col ?? 0));
  const syn = syntaxFor(languageId);
  const quoteWarnings: QuoteWarning[] = [];
  if (syn.quoteChecks || syn.kind === 'markup') {
    const by = new Map<string, number[]>();
    for (const u of scan.unterminated) {
      const l = by.get(u.symbol) ?? [];
      l.push(u.line);
      by.set(u.symbol, l);
    }
    for (const [symbol, lines] of by) {
      quoteWarnings.push({ symbol, count: lines.length, lines: [...new Set(lines)].sort((a, b) => a - b) });
    }
    quoteWarnings.sort((a, b) => a.lines[0] - b.lines[0]);
  }
  return { scan, matching, unbalanced, quoteWarnings };
}

function formatSymbols(scan: ScanResult): string {
  const byKind: number[][] = [[], [], [], [], [], []];
  for (let t = 0; t < scan.kinds.length; t++) byKind[scan.kinds[t]].push(scan.lines[t]);
  const order = [Tok.LBrace, Tok.RBrace, Tok.LParen, Tok.RParen, Tok.LBracket, Tok.RBracket];
  return order.map((k) => `${TOKEN_CHARS[k]}\t${byKind[k].length ? byKind[k].join(' ') : '(none)'}`).join('\n');
}

function formatTagTree(pairs: TagPair[]): string {
  const rows = pairs.map((p) => `${p.depth}\t${'  '.repeat(Math.min(p.depth - 1, 10))}<${p.tag}>\t${p.openLine}\t${p.closeLine}`);
  return ['depth\ttag\topen\tclose', ...rows].join('\n');
}

/** be-balance: upstream's result shapes, with English "(none)". */
export function checkBalance(text: string, languageId: string, verbose: boolean): BalanceReport {
  const a = analyzeBalance(text, languageId);
  const unbalanced = a.unbalanced.length ? a.unbalanced : null;
  const quote_warnings = a.quoteWarnings.length ? a.quoteWarnings : null;
  if (!verbose) {
    if (!unbalanced && !quote_warnings) return { mode: 'unbalanced', status: 'all balanced' };
    return { mode: 'unbalanced', unbalanced, quote_warnings };
  }
  const { scan, matching } = a;
  const matched: MatchedPair[] = [];
  // upstream order: pairs in the order they close
  for (let t = 0; t < scan.kinds.length; t++) {
    const o = matching.partner[t];
    if ((scan.kinds[t] & 1) === 1 && o >= 0) {
      matched.push({ symbol: TOKEN_CHARS[scan.kinds[o]] + TOKEN_CHARS[scan.kinds[t]], open_line: scan.lines[o], close_line: scan.lines[t], depth: matching.depth[t] });
    }
  }
  return {
    mode: 'verbose',
    symbols: formatSymbols(scan),
    tags: scan.tagPairs.length ? scan.tagPairs.map((p) => `<${p.tag}>  ${p.openLine}:${p.closeLine}`).join('\n') : '(none)',
    tag_tree: scan.tagPairs.length ? formatTagTree(scan.tagPairs) : null,
    matched: matched.length ? matched : null,
    unbalanced,
    quote_warnings,
  };
}

/**
 * The one-line check of the whole new file put in edit results:
 * en `balance: OK` / `balance: unbalanced ({} missing 1; " unterminated at line 4)`,
 * zh upstream's `符号闭合快速检查：OK` / `符号闭合快速检查：Error ({} 差 1 个; …)`.
 */
export function quickBalance(text: string, languageId: string, lang: Lang = 'en'): string {
  const a = analyzeBalance(text, languageId);
  const counts = new Map<string, number>();
  for (const t of a.matching.unbalanced) {
    const pair = TOKEN_CHARS[a.scan.kinds[t] & ~1] + TOKEN_CHARS[(a.scan.kinds[t] & ~1) + 1];
    counts.set(pair, (counts.get(pair) ?? 0) + 1);
  }
  const parts: string[] = [];
  for (const pair of ['{}', '[]', '()']) {
    const n = counts.get(pair);
    if (n) parts.push(quickBalanceMessages.missing(lang, pair, n));
  }
  if (a.scan.tagUnbalanced.length) parts.push(quickBalanceMessages.tags(lang, a.scan.tagUnbalanced.length));
  for (const q of a.quoteWarnings) {
    const where = q.lines.slice(0, 5).join(', ') + (q.lines.length > 5 ? ', …' : '');
    parts.push(quickBalanceMessages.unterminated(lang, q.symbol, where));
  }
  return parts.length ? quickBalanceMessages.unbalanced(lang, parts) : quickBalanceMessages.ok(lang);
}
