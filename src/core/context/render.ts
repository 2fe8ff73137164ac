/** Compact text and JSON renderings of a FileStructure; the text form is what an agent reads. */
import type { TokenCounter } from './types';
import type { FileStructure, OutlineSymbol } from './types';

/**
 * A symbol's lines as an outline row starts with them (`12-40 name(…)`, `7 const X`): the numbers first, as in a
 * numbered page, cost 2 tokens less per row than a trailing ` @L12-40` (o200k_base) and read as the `path:S-E` to ask for.
 */
export function rangeTag(s: { start: number; end: number }): string {
  return s.start === s.end ? `${s.start}` : `${s.start}-${s.end}`;
}

/** Outline lines stay one line each: longer signatures and doc lines are cut (the range reads the rest). */
const MAX_SIGNATURE_CHARS = 80;
const MAX_DOC_CHARS = 40;
/** Modifiers that say little in an outline (visibility, readonly, export): dropped. `static`, `async` stay. */
const QUIET_MODIFIERS = /(^|[\s(,])(?:public|private|protected|override|declare|export|default)\s+(?=[\w$@#*[(<{'"])/g;
/** `readonly` of parameter properties and fields only; `readonly T[]` in a type stays. */
const QUIET_READONLY = /(^|[(,]\s*)readonly\s+(?=[\w$])/g;

/**
 * The signature as an outline line shows it: no visibility/readonly/export modifiers, no parameter default values
 * (the parameter becomes `name?`), no initializer after a declared type, no padding inside parentheses; cut at
 * MAX_SIGNATURE_CHARS. The `signature` field keeps the declaration as written.
 */
export function compactSignature(sig: string): string {
  let out = sig;
  for (let i = 0; i < 2; i++) out = out.replace(QUIET_MODIFIERS, '$1').replace(QUIET_READONLY, '$1');
  const value = valueAssignment(out);
  if (value) return value;
  out = stripDefaults(out);
  // `const X: T = …`: the type says enough.
  out = out.replace(/^((?:const|let|var|static)\s+[\w$]+\s*:\s*[^=]+?)\s*=\s.*$/, '$1');
  out = out.replace(/\(\s+/g, '(').replace(/,?\s+\)/g, ')').replace(/\s{2,}/g, ' ');
  // Python methods: `self`/`cls` is implied by the class the line is nested in.
  out = out.replace(/^((?:async\s+)?def\s+[\w$]+(?:\[[^\]]*\])?)\(\s*(?:self|cls)\b\s*(?::\s*[^,)]+)?(?:,\s*)?/, '$1(');
  // `typing.Any` → `Any`: the module prefix repeats on every Python annotation and names nothing new.
  if (/^(?:async\s+)?def\s/.test(out)) out = out.replace(/\btyping\.(?=[A-Z])/g, '');
  // `async f(): Promise<T>` says it twice.
  if (/\):\s*Promise</.test(out)) out = out.replace(/(^|\s)async\s+/, '$1');
  out = dropFunctionKeywords(out);
  return out.length <= MAX_SIGNATURE_CHARS ? out : out.slice(0, MAX_SIGNATURE_CHARS - 1) + '…';
}

/** Longer values of a constant are cut: the outline names it, the range reads it. */
const MAX_VALUE_CHARS = 32;

/**
 * `NAME = value` (Python, JS `const`/`let`, Go `const`/`var`) that is not a function: the name, then the value cut at
 * MAX_VALUE_CHARS (a regex or a joined table says nothing in an outline). undefined for anything else.
 */
function valueAssignment(sig: string): string | undefined {
  const m = /^((?:(?:const|let|var|static)\s+)?[#\w$.]+)\s*=\s*(?![=>])(.+)$/.exec(sig);
  if (!m) return undefined;
  const v = m[2]!.trim();
  if (/^(?:async\s+)?(?:function\b|(?:<[^=]*?>\s*)?\(.*=>\s*\{?$|[\w$]+\s*=>)/.test(v) || /^lambda\b/.test(v)) return undefined;
  return `${m[1]} = ${v.length <= MAX_VALUE_CHARS ? v : v.slice(0, MAX_VALUE_CHARS - 1) + '…'}`;
}

/**
 * In an outline `name(…)` already says "function": the keyword that introduces one (`def`, `func`, `function`,
 * `const name = (…) =>`) repeats on most lines and names nothing. Measured on httpx, hono and cobra
 * (`npm run bench:context`): 1-6 tokens per function line. A Go method keeps its receiver type, not its variable
 * (`(*Command) Name()`); Python's `-> None` and the `| None` of a parameter marked optional (`x?: T | None`) go
 * too: the default is None in nearly every such signature.
 */
/** Python's data-model methods whose parameters and result the protocol fixes: their name says it all. */
const FIXED_DUNDERS = new Set(
  'repr str bytes hash bool len iter aiter next anext reversed contains getitem setitem delitem eq ne lt le gt ge enter exit aenter aexit getstate setstate del format sizeof'
    .split(' ')
    .map((n) => `__${n}__`),
);

function dropFunctionKeywords(sig: string): string {
  let m: RegExpExecArray | null;
  if ((m = /^(async\s+)?def\s+(?=[\w$])/.exec(sig))) {
    let out = (m[1] ?? '') + sig.slice(m[0].length);
    const dunder = /^(__[a-z]+__)\(/.exec(out)?.[1];
    if (dunder && FIXED_DUNDERS.has(dunder)) return dunder;
    out = out.replace(/\s*->\s*None$/, '');
    return out.replace(/(\?:\s*[^,()]*?)\s*\|\s*None(?=\s*[,)])/g, '$1');
  }
  if ((m = /^func\s+\((?:[\w]+\s+)?([^()]+)\)\s*/.exec(sig))) return `(${m[1]!.trim()}) ${sig.slice(m[0].length)}`;
  if ((m = /^func\s+(?=[\w$])/.exec(sig))) return sig.slice(m[0].length);
  if ((m = /^(async\s+)?function\s*(\*?)\s*(?=[\w$])/.exec(sig))) return (m[1] ?? '') + m[2] + sig.slice(m[0].length);
  // `const f = (a: T): R =>`, `const f = async <T>(a: T) =>`, `#field = (a) =>` (a class field holding a function).
  m = /^(?:(?:const|let|var|static)\s+)?([#\w$]+)\s*=\s*(async\s+)?(<[^=]*?>)?\s*(\(.*\)(?:\s*:\s*.+?)?)\s*=>\s*\{?$/.exec(sig);
  if (m && balanced(m[4]!)) return `${m[2] ?? ''}${m[1]}${m[3] ?? ''}${m[4]}`;
  return sig;
}

/** Whether a parameter list (with an optional return type after it) opens with `(` and closes that paren. */
function balanced(params: string): boolean {
  let depth = 0;
  for (let i = 0; i < params.length; i++) {
    const c = params[i];
    if (c === '(') depth++;
    else if (c === ')' && --depth === 0) return /^(\s*:.*)?$/.test(params.slice(i + 1));
  }
  return false;
}

/** `f(a: T = x, b = 2)` → `f(a?: T, b?)`: defaults inside the first top-level parameter list. */
function stripDefaults(sig: string): string {
  const open = sig.indexOf('(');
  if (open < 0) return sig;
  let depth = 0;
  let out = sig.slice(0, open);
  let skipping = false;
  let name = '';
  for (let i = open; i < sig.length; i++) {
    const c = sig[i]!;
    if ('([{<'.includes(c)) depth++;
    else if (')]}>'.includes(c) && !(c === '>' && sig[i - 1] === '=')) depth--;
    if (depth === 0 && c === ')') return out + ')' + sig.slice(i + 1);
    if (depth === 1 && (c === ',' || c === '(')) {
      skipping = false;
      name = '';
      out += c;
      continue;
    }
    if (skipping) continue;
    if (depth === 1 && c === '=' && sig[i + 1] !== '>' && sig[i - 1] !== '=' && sig[i - 1] !== '!') {
      // Mark the parameter optional unless it already is or has a type (then `name?: T`).
      const trimmed = out.replace(/\s+$/, '');
      const colon = name.indexOf(':');
      if (colon >= 0) {
        const at = trimmed.length - (name.trimEnd().length - colon);
        out = /\?\s*$/.test(trimmed.slice(0, at)) ? trimmed : trimmed.slice(0, at) + '?' + trimmed.slice(at);
      } else out = trimmed.endsWith('?') ? trimmed : trimmed + '?';
      skipping = true;
      continue;
    }
    out += c;
    if (depth >= 1) name += c;
  }
  // Unbalanced: a signature the outline already cut (`…`) keeps the defaults stripped so far; else as written.
  return sig.endsWith('…') ? out.replace(/\u2026?$/, '…') : sig;
}

/**
 * A doc line as the outline shows it: its first clause (up to `. , ; :` or ` (`, when that leaves 12+ characters),
 * cut at MAX_DOC_CHARS. The reader wants what the symbol is for; the range reads the rest.
 */
export function docClause(doc: string): string {
  const stop = /[.,;:](?=\s)|\s\(/g;
  for (let m = stop.exec(doc); m; m = stop.exec(doc)) {
    if (m.index >= 12) {
      doc = doc.slice(0, m.index);
      break;
    }
  }
  doc = doc.replace(/[.:,;]$/, '');
  return doc.length <= MAX_DOC_CHARS ? doc : doc.slice(0, MAX_DOC_CHARS - 1) + '…';
}

/**
 * ` — doc`, without the symbol's own name when the doc opens with it (Go's convention, "`.query()` can get…"):
 * the line already shows the name. '' when nothing is left.
 */
function docAfterName(doc: string, name: string): string {
  const bare = (name.split('.').pop() ?? name).replace(/^#/, '').replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const m = new RegExp(`^\`?\\.?${bare}(?:\\(\\))?\`?\\s+(?=\\S)`).exec(doc);
  const rest = m ? doc.slice(m[0].length) : doc;
  const clause = docClause(rest);
  return clause ? ` — ${clause}` : '';
}

/** One outline row: `S-E signature — doc`, one space of indent per level. */
export function symbolRow(s: OutlineSymbol, depth: number): string {
  const doc = s.doc ? docAfterName(s.doc, s.name) : '';
  // One space per level: two spaces before a digit cost o200k_base a second token on every nested row.
  return `${' '.repeat(depth)}${rangeTag(s)} ${compactSignature(s.signature || s.name)}${doc}`;
}

/**
 * The outline rows of `syms` down to `maxDepth`, at most `cap` of them (the rest are only counted, by
 * visibleRows: a 4 MB file has 30,000 symbols and a page shows a few hundred).
 */
function symbolLines(syms: OutlineSymbol[], depth: number, maxDepth: number, out: string[], cap: number): void {
  for (const s of syms) {
    if (out.length >= cap) return;
    out.push(symbolRow(s, depth));
    if (s.children?.length && depth + 1 <= maxDepth) symbolLines(s.children, depth + 1, maxDepth, out, cap);
  }
}

/** The number of rows symbolLines gives without a cap. */
function visibleRows(syms: OutlineSymbol[], depth: number, maxDepth: number): number {
  let n = 0;
  for (const s of syms) {
    n++;
    if (s.children?.length && depth + 1 <= maxDepth) n += visibleRows(s.children, depth + 1, maxDepth);
  }
  return n;
}

function countAll(syms: OutlineSymbol[]): number {
  return syms.reduce((n, s) => n + 1 + countAll(s.children ?? []), 0);
}

export function structureHeader(s: FileStructure): string {
  const tok = `${s.tokensEstimated ? '≈' : ''}${s.tokens.toLocaleString('en-US')} tokens`;
  return `${s.path || '(text)'} · ${s.languageId} · ${s.lines.toLocaleString('en-US')} lines · ${tok}`;
}

/** `imports: a, b` (relative prefixes dropped), or undefined when the file imports nothing. */
export function importsLine(s: FileStructure): string | undefined {
  // Relative prefixes (./, ../../) repeat on every import and say little in an outline.
  // So do Python's leading dots (`.._config`); `__future__` is a compiler switch, not a dependency.
  const imports = s.imports.filter((i) => i !== '__future__').map((i) => i.replace(/^(\.\.?\/)+/, '').replace(/^\.+(?=[\w])/, ''));
  return imports.length ? `imports: ${imports.join(', ')}` : undefined;
}

export interface RenderOptions {
  /** Keep the rendering within this many tokens: nested levels go first, then the tail of the list. */
  maxTokens?: number;
  tokenizer?: TokenCounter;
  maxDepth?: number;
  /** Start with the header line (path · language · lines · tokens); off when the reply carries those as fields. */
  header?: boolean;
}

export function renderStructureText(s: FileStructure, opts: RenderOptions = {}): string {
  const render = (maxDepth: number, keep?: number): string => {
    const head = opts.header === false ? [] : [structureHeader(s)];
    const imports = importsLine(s);
    if (imports) head.push(imports);
    const rows = visibleRows(s.symbols, 0, maxDepth);
    const hidden = countAll(s.symbols) - rows;
    const lines: string[] = [];
    symbolLines(s.symbols, 0, maxDepth, lines, keep ?? Infinity);
    const notes = [...s.notes];
    if (keep !== undefined && keep < rows) notes.push(`${rows - keep} more outline lines not shown (over the size limit); read ranges with be-read`);
    if (hidden) notes.push(`${hidden} nested symbols not shown; ask for the structure of a range or read it`);
    if (s.symbols.length === 0 && s.source !== 'none') notes.push('no symbols found');
    return [...head, ...lines, ...notes.map((n) => `note: ${n}`)].join('\n');
  };
  const maxDepth = opts.maxDepth ?? 8;
  if (!opts.maxTokens || !opts.tokenizer) return render(maxDepth);
  const tk = opts.tokenizer;
  const limit = opts.maxTokens;
  // Every row is a token at least: more rows than the limit cannot fit, and are neither rendered nor counted.
  if (visibleRows(s.symbols, 0, maxDepth) <= limit) {
    const text = render(maxDepth);
    if (tk.count(text) <= limit) return text;
  }
  if (s.symbols.length <= limit) {
    const text = render(0);
    if (tk.count(text) <= limit) return text;
  }
  const hi = Math.min(s.symbols.length, limit);
  const fits = (keep: number) => tk.count(render(0, keep)) <= limit;
  let lo: number;
  const fit = (tk as TokenCounter & { fit?(text: string, limit: number): { chars: number } }).fit;
  if (typeof fit === 'function') {
    // The tokenizer's prefix fit finds the cut in one pass over what fits (a search counted every candidate whole:
    // 0.3-0.7 s of the event loop for a 4 MB file): the rows that fit beside the header and the notes, then a
    // step or two to the exact answer.
    const rows: string[] = [];
    symbolLines(s.symbols, 0, 0, rows, hi);
    const room = limit - tk.count(render(0, 0));
    const chars = room > 0 ? fit.call(tk, rows.join('\n'), room).chars : 0;
    lo = 0;
    for (let used = 0; lo < rows.length && used + rows[lo]!.length <= chars; lo++) used += rows[lo]!.length + 1;
    while (lo > 0 && !fits(lo)) lo--;
    while (lo < hi && fits(lo + 1)) lo++;
    return render(0, lo);
  }
  // Binary search the number of top-level lines that fit.
  lo = 0;
  let top = hi;
  while (lo < top) {
    const mid = Math.ceil((lo + top) / 2);
    if (fits(mid)) lo = mid;
    else top = mid - 1;
  }
  return render(0, lo);
}
