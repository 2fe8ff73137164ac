/**
 * A large file's outline from parts parsed apart (on two worker threads, node/outlinePool.ts): the text is cut at
 * top-level boundaries where no construct can run across, each part is parsed alone, and the outlines are joined
 * with their line offsets. The joined outline is the whole-file parse's, by construction and by test
 * (test/core/context/outlineChunks.property.test.ts compares the two on generated C, TypeScript and Python):
 *
 *  - C-like languages cut after a line that is exactly `}` or `};` (a body closed at column 0), where the next
 *    line that is neither blank nor a comment starts a declaration (a keyword that cannot continue an expression
 *    in TypeScript and JavaScript; in C an identifier other than `else`/`while`, or `#define`/`#include`; in Go
 *    `func`, `type`, `var`, `const` or `import`; in Rust an item's keyword or an attribute);
 *  - Python cuts before a `def` or `class` at column 0 whose previous non-blank line is no decorator, comment or
 *    continued line;
 *  - a part with a syntax error (an unclosed `#if`, comment, string or bracket that ran across the cut shows as one)
 *    makes the caller parse the file whole, so that error recovery, and the outline, are the whole file's.
 */
import type { Extracted } from './extract';
import type { OutlineSymbol } from './types';

const C_LIKE = new Set(['c', 'typescript', 'typescriptreact', 'javascript', 'javascriptreact', 'go', 'rust']);
const CHUNKABLE = new Set([...C_LIKE, 'python']);

/** What may start the part after a cut: a declaration, never a token that continues the statement before it. */
const JS_START = /^(?:export|import|function|class|interface|enum|const|let|var|declare|namespace|abstract|async|type)\b/;
const C_START = /^(?!(?:else|while)\b)(?:[A-Za-z_]|#(?:define|include)\b)/;
const PY_START = /^(?:def|class|async[ \t]+def)[ \t]/;
const GO_START = /^(?:func|type|var|const|import)\b/;
const RUST_START = /^(?:pub|fn|struct|enum|union|trait|impl|mod|use|const|static|type|unsafe|async|extern)\b|^macro_rules!|^#!?\[/;
const STARTS: Readonly<Record<string, RegExp>> = { c: C_START, go: GO_START, rust: RUST_START };

export function chunkable(languageId: string): boolean {
  return CHUNKABLE.has(languageId);
}

/** Offsets (line starts) where `text` may be cut, nearest each n-th of its length; [] when there is none. */
export function cutPoints(text: string, languageId: string, parts: number): number[] {
  if (!CHUNKABLE.has(languageId) || parts < 2) return [];
  const cuts: number[] = [];
  for (let k = 1; k < parts; k++) {
    const target = Math.floor((text.length * k) / parts);
    const at = nearestCut(text, languageId, target, cuts.at(-1) ?? 0);
    if (at !== undefined && at > (cuts.at(-1) ?? 0) && at < text.length) cuts.push(at);
  }
  return cuts;
}

/** The first cut at or after `target`, else the last one before it (but after `after`). */
function nearestCut(text: string, languageId: string, target: number, after: number): number | undefined {
  const isCut = languageId === 'python' ? pythonCut : C_LIKE.has(languageId) ? (t: string, i: number) => cLikeCut(t, i, languageId) : undefined;
  if (!isCut) return undefined;
  for (let i = text.indexOf('\n', target); i >= 0; i = text.indexOf('\n', i + 1)) if (isCut(text, i + 1)) return i + 1;
  for (let i = text.lastIndexOf('\n', target - 1); i > after; i = text.lastIndexOf('\n', i - 1)) if (isCut(text, i + 1)) return i + 1;
  return undefined;
}

/** The line of `text` that starts at `start` (without its line break). */
function lineAt(text: string, start: number): string {
  const end = text.indexOf('\n', start);
  return text.slice(start, end < 0 ? text.length : end).replace(/\r$/, '');
}

/** The start of the line before the one starting at `start` (which is > 0). */
function prevLineStart(text: string, start: number): number {
  return start < 2 ? 0 : text.lastIndexOf('\n', start - 2) + 1;
}

/** `at` starts a line; the line before is `}` or `};`, and the next code line starts a declaration. */
function cLikeCut(text: string, at: number, languageId: string): boolean {
  if (at < 2) return false;
  const before = lineAt(text, prevLineStart(text, at));
  if (before !== '}' && before !== '};') return false;
  const start = STARTS[languageId] ?? JS_START;
  let inBlock = false;
  for (let i = at; i < text.length; ) {
    const line = lineAt(text, i);
    const t = line.trim();
    if (inBlock) inBlock = !t.includes('*/');
    else if (t.startsWith('/*')) inBlock = !t.slice(2).includes('*/');
    else if (t && !t.startsWith('//')) return line === line.trimStart() && start.test(line);
    const end = text.indexOf('\n', i);
    if (end < 0) return false;
    i = end + 1;
  }
  return false;
}

/** `at` starts a `def`/`class` line at column 0 after a plain line of code (blank lines between allowed). */
function pythonCut(text: string, at: number): boolean {
  if (at < 2 || !PY_START.test(lineAt(text, at))) return false;
  for (let i = prevLineStart(text, at); ; i = prevLineStart(text, i)) {
    const line = lineAt(text, i);
    const t = line.trim();
    if (t) return !t.startsWith('@') && !t.startsWith('#') && !line.endsWith('\\');
    if (i === 0) return false;
  }
}

/** `text` cut at `cuts`, each part with the number of lines before it. */
export function cutText(text: string, cuts: number[]): { text: string; lineOffset: number }[] {
  const out: { text: string; lineOffset: number }[] = [];
  let from = 0;
  let lines = 0;
  for (const to of [...cuts, text.length]) {
    const part = text.slice(from, to);
    out.push({ text: part, lineOffset: lines });
    for (let i = part.indexOf('\n'); i >= 0; i = part.indexOf('\n', i + 1)) lines++;
    from = to;
  }
  return out;
}

/** The parts' outlines as one, lines shifted by each part's offset; undefined when a part did not parse cleanly. */
export function joinOutlines(parts: { outline: Extracted | undefined; lineOffset: number }[]): Extracted | undefined {
  const symbols: OutlineSymbol[] = [];
  const imports = new Set<string>();
  for (const { outline, lineOffset } of parts) {
    if (!outline || outline.errorRanges.length || outline.errorLines.length) return undefined;
    for (const s of outline.symbols) symbols.push(shifted(s, lineOffset));
    for (const i of outline.imports) imports.add(i);
  }
  return { symbols, imports: [...imports], errorLines: [], errorRanges: [] };
}

function shifted(s: OutlineSymbol, by: number): OutlineSymbol {
  if (!by) return s;
  const out: OutlineSymbol = { ...s, start: s.start + by, end: s.end + by };
  if (s.children) out.children = s.children.map((c) => shifted(c, by));
  return out;
}
