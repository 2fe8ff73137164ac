/**
 * The one place that knows the shape of our server's replies (be-overview, be-read, be-replace).
 *
 * By default a reply is plain text written for the model: a one-line header (`file:S-E/T id=… next: read {…}`), then
 * the payload (numbered rows, an empty row for an empty line). With `--reply json` it is upstream's JSON in
 * `structuredContent`. Every parser reads the structured field when it exists, else the text, so both work.
 * Token counting never goes through here: it is done on the model view in mcp.ts.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

type Structured = Record<string, unknown> | undefined;

const structured = (r: CallToolResult): Structured => r.structuredContent as Structured;
const contentText = (r: CallToolResult): string =>
  (r.content ?? []).map((p) => (p.type === 'text' ? p.text : '')).join('\n');
/** A named text field of the structured reply, or the whole text reply. */
function textOf(r: CallToolResult, field: string): string {
  const v = structured(r)?.[field];
  return typeof v === 'string' ? v : contentText(r);
}

/** Key files of a be-overview reply, in the order shown (the "key files" section: `  path 123L — …`). */
export function overviewFiles(r: CallToolResult): string[] {
  const text = textOf(r, 'overview');
  const lines = text.split('\n');
  const start = lines.findIndex((l) => /^key files\b/.test(l));
  if (start < 0) return [];
  const out: string[] = [];
  for (const line of lines.slice(start + 1)) {
    if (!/^\s/.test(line)) break; // next section
    const m = /^\s+(\S+) \d+L\b/.exec(line);
    if (m && !out.includes(m[1]!)) out.push(m[1]!);
  }
  return out;
}

export interface SymbolRange {
  start: number;
  end: number;
  line: string;
}

/**
 * The line range of `symbol` in a be-read structure reply. Rows are `S-E signature — doc` (or `S signature`),
 * indented under their container; `symbol` is `name` or `Container.name`: the container's row comes first and the
 * member is indented under it. Declarations match the name as a word followed by `(`, `=`, `:`, `<`, `[`, space
 * or end (def/func/method/const forms). A JSON reply's outline has the same rows.
 */
export function outlineRange(r: CallToolResult, symbol: string): SymbolRange | undefined {
  const rows = textOf(r, 'outline')
    .split('\n')
    .map((l) => /^(\s*)(\d+)(?:-(\d+))? (.*)$/.exec(l))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({ indent: m[1]!.length, start: Number(m[2]), end: Number(m[3] ?? m[2]), text: m[4]!.replace(/ — .*$/, '') }));
  const parts = symbol.split('.');
  const name = parts.pop()!;
  const container = parts.pop();
  const declares = (text: string, n: string) => new RegExp(`(^|[\\s.)*])${n.replace(/[$]/g, '\\$')}(\\s*[(=:<\\[]|\\s|$)`).test(text);
  let from = 0;
  let minIndent = -1;
  if (container) {
    from = rows.findIndex((row) => declares(row.text, container));
    if (from < 0) return undefined;
    minIndent = rows[from]!.indent;
    from++;
  }
  for (const row of rows.slice(from)) {
    if (container && row.indent <= minIndent) break; // left the container
    if (declares(row.text, name)) return { start: row.start, end: row.end, line: row.text };
  }
  return undefined;
}

/**
 * The lines of a be-read content reply. JSON: `N<TAB>text` rows, an empty line `<blank>`. Text: `N text` rows, an
 * empty line an empty row, a symbols-only row after a numbered one bare; an unnumbered row is the row above + 1.
 */
export function readLines(r: CallToolResult): Map<number, string> {
  const out = new Map<number, string>();
  const json = structured(r) !== undefined;
  // text: the header's range says where the rows start (no range: the whole file, from line 1)
  let last: number | undefined = json ? undefined : Number(/^(\d+)-\d+\//.exec(header(r))?.[1] ?? 1) - 1;
  for (const row of pageContent(r).split('\n')) {
    const m = json ? /^(\d+)\t(.*)$/.exec(row) : /^(\d+) (.*)$/.exec(row);
    if (m) {
      last = Number(m[1]);
      out.set(last, m[2] === '<blank>' && json ? '' : m[2]!);
    } else if (last !== undefined && !json) {
      out.set(++last, row);
    } else if (row === '' && last !== undefined) {
      out.set(++last, '');
    }
  }
  return out;
}

/** The first line of a text reply (its header), '' for a JSON reply. */
const header = (r: CallToolResult): string => (structured(r) ? '' : contentText(r).split('\n', 1)[0]!);

export function viewedCodeId(r: CallToolResult): string | undefined {
  const v = structured(r)?.viewed_code_id;
  if (typeof v === 'string') return v;
  return / id=([\w.-]+)/.exec(header(r))?.[1] ?? /viewed_code_id[=:]\s*"?([\w.-]+)/.exec(contentText(r))?.[1];
}

/** The next page of a be-read full reply, if the page ended early: the arguments to call with. */
export function nextPage(r: CallToolResult): { file: string; column?: number } | undefined {
  const next = structured(r)?.next as { file?: unknown; column?: unknown } | undefined;
  if (next && typeof next.file === 'string') return { file: next.file, column: typeof next.column === 'number' ? next.column : undefined };
  const m = / next: \S+ (\{[^\n]*?\})/.exec(header(r)) ?? /continue with be-read (\{[^\n]*?\})/.exec(contentText(r));
  if (!m) return undefined;
  const args = JSON.parse(m[1]!) as { file: string; column?: number };
  return { file: args.file, column: args.column };
}

/** Whether a full-mode page stopped at the page limit (used for the "a full page as the model receives it" figure). */
export function pageLimited(r: CallToolResult): boolean {
  if (structured(r)) return /page limit \d+ tokens reached/.test(textOf(r, 'hint'));
  return / next: /.test(header(r));
}

/** The numbered-lines text of a be-read content reply, as the server put it on the page (a text reply: after its header). */
export function pageContent(r: CallToolResult): string {
  if (structured(r)) return textOf(r, 'content');
  const rows = contentText(r).split('\n').slice(1);
  let notes = 0; // the `! warning` lines come right after the header; a bare row further down may start with `!`
  while (notes < rows.length && rows[notes]!.startsWith('! ')) notes++;
  return rows.slice(notes).join('\n');
}

/** A structure reply's next page (`next: be-read {"file":…,"mode":"structure","from":N}` on its header), if any. */
export function outlineNext(r: CallToolResult): Record<string, unknown> | undefined {
  const next = structured(r)?.next as Record<string, unknown> | undefined;
  if (next && next.mode === 'structure') return next;
  const m = / next: \S+ (\{"file":[^\n]*?"mode":"structure"[^\n]*?\})/.exec(header(r));
  return m ? (JSON.parse(m[1]!) as Record<string, unknown>) : undefined;
}

/** An outline narrowed to a query: the call for all of it (`all N: be-read {…}`), if it left symbols out. */
export function outlineAll(r: CallToolResult): Record<string, unknown> | undefined {
  const all = structured(r)?.all as Record<string, unknown> | undefined;
  if (all) return all;
  const m = /; all \d+: \S+ (\{[^\n]*?\})$/m.exec(contentText(r));
  return m ? (JSON.parse(m[1]!) as Record<string, unknown>) : undefined;
}

/** A reply the server paged as a last resort (`(reply page 1/N) next: tool {"reply_page":"id/2"}`): the next page's arguments. */
export function replyPageNext(r: CallToolResult): Record<string, unknown> | undefined {
  const m = /^\(reply page \d+\/\d+[^)]*\) next: \S+ (\{"reply_page":"[^"]+"\})/.exec(contentText(r));
  return m ? (JSON.parse(m[1]!) as Record<string, unknown>) : undefined;
}

/** The text of a reply page without its `(reply page …)` header line. */
export function replyPageBody(r: CallToolResult): string {
  const t = contentText(r);
  return t.startsWith('(reply page ') ? t.slice(t.indexOf('\n') + 1) : t;
}
