/** Compact text and JSON renderings of a FileStructure; the text form is what an agent reads. */
import type { TokenCounter } from './types';
import type { FileStructure, OutlineSymbol } from './types';

export function rangeTag(s: { start: number; end: number }): string {
  return s.start === s.end ? `@L${s.start}` : `@L${s.start}-${s.end}`;
}

function symbolLines(syms: OutlineSymbol[], depth: number, maxDepth: number, out: string[]): number {
  let hidden = 0;
  for (const s of syms) {
    const doc = s.doc ? ` — ${s.doc}` : '';
    out.push(`${'  '.repeat(depth)}${s.signature || s.name} ${rangeTag(s)}${doc}`);
    if (s.children?.length) {
      if (depth + 1 <= maxDepth) hidden += symbolLines(s.children, depth + 1, maxDepth, out);
      else hidden += countAll(s.children);
    }
  }
  return hidden;
}

function countAll(syms: OutlineSymbol[]): number {
  return syms.reduce((n, s) => n + 1 + countAll(s.children ?? []), 0);
}

export function structureHeader(s: FileStructure): string {
  const tok = `${s.tokensEstimated ? '≈' : ''}${s.tokens.toLocaleString('en-US')} tokens`;
  return `${s.path || '(text)'} · ${s.languageId} · ${s.lines.toLocaleString('en-US')} lines · ${tok}`;
}

export interface RenderOptions {
  /** Keep the rendering within this many tokens: nested levels go first, then the tail of the list. */
  maxTokens?: number;
  tokenizer?: TokenCounter;
  maxDepth?: number;
}

export function renderStructureText(s: FileStructure, opts: RenderOptions = {}): string {
  const render = (maxDepth: number, keep?: number): string => {
    const head = [structureHeader(s)];
    if (s.imports.length) head.push(`imports: ${s.imports.join(', ')}`);
    const body: string[] = [];
    const hidden = symbolLines(s.symbols, 0, maxDepth, body);
    let lines = body;
    const notes = [...s.notes];
    if (keep !== undefined && keep < body.length) {
      notes.push(`${body.length - keep} more outline lines not shown (over the size limit); read ranges with be-read`);
      lines = body.slice(0, keep);
    }
    if (hidden) notes.push(`${hidden} nested symbols not shown; ask for the structure of a range or read it`);
    if (s.symbols.length === 0 && s.source !== 'none') notes.push('no symbols found');
    return [...head, ...lines, ...notes.map((n) => `note: ${n}`)].join('\n');
  };
  const maxDepth = opts.maxDepth ?? 8;
  let text = render(maxDepth);
  if (!opts.maxTokens || !opts.tokenizer) return text;
  const tk = opts.tokenizer;
  const limit = opts.maxTokens;
  if (tk.count(text) <= limit) return text;
  text = render(0);
  if (tk.count(text) <= limit) return text;
  // Binary search the number of top-level lines that fit.
  let lo = 0;
  let hi = s.symbols.length;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (tk.count(render(0, mid)) <= limit) lo = mid;
    else hi = mid - 1;
  }
  return render(0, lo);
}

/** JSON form: the structure as data (no header line, no notes merged into text). */
export function renderStructureJson(s: FileStructure): Record<string, unknown> {
  return { ...s };
}
