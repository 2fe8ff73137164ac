/**
 * Every sentence the edit operations say to an agent: errors (what was wrong, what was expected, how to recover),
 * warnings, conflict explanations and the short lines of a result. English by default; the lines upstream shows
 * in Chinese follow `lang` 'zh'. The operations decide *what* happened; this module only words it.
 */
import type { Lang } from '../lang';

export type { Lang };

/** An excerpt of an argument the agent sent, cut so an error never repeats a huge value back. */
function excerpt(value: string, max = 200): string {
  return value.length > max ? `${value.slice(0, max)}… (${value.length} characters)` : value;
}

const linesAt = (starts: number[], n: number): string => starts.map((s) => `lines ${s}-${s + n - 1}`).join(', ');

// loading a file and be-read: their sentences live with the read module (context modes say them too)
export { loadMessages, readMessages } from '../read/messages';

/** be-read's `target` and the structure tools (be-func-range, be-tag-range). */
export const targetMessages = {
  emptyFile: (display: string) => `target: ${display} is empty`,
  lineNotNumber: (value: string) => `target line must be a line number, got "${value}"`,
  emptyMarker: 'target marker must not be empty',
  markerNotFound: (display: string, needle: string) => `marker not found in ${display}: ${needle}`,
  emptyFunction: 'target function must not be empty (a name or a line number)',
  notInFunction: (line: number, display: string) => `line ${line} of ${display} is not inside any function or block`,
  functionNotFound: (display: string, name: string) => `function not found in ${display}: ${excerpt(name)}`,
  emptyTag: 'target tag must not be empty (a tag name or a line number)',
  tagNotFound: (display: string, value: string) => `tag not found in ${display}: ${value}`,
  notInTag: (line: number, display: string) => `line ${line} of ${display} is not inside any paired tag`,
  unknownKind: (kind: string) => `unknown target kind: ${kind}; expected line, marker, function or tag`,
};

// ------------------------------------------------------------------ the line edits

export const editMessages = {
  needsRange: (op: string, path: string) => `${op}: file must include a line range, e.g. ${path}:10, ${path}:5-15 or ${path}:ALL`,
  replaceEmptyFile: (display: string) => `replace: ${display} is empty; use ${display}:ALL (or be-insert at :0)`,
  replaceOldOnEmptyFile: (display: string) => `replace: old content does not match: ${display} is empty`,
  insertContentRequired: 'insert: content is required (the lines to insert)',
  insertNeedsLine: (display: string) => `insert: file must include a line number, e.g. ${display}:10 (insert after line 10; :0 is the top)`,
  insertNeedsSingleLine: (display: string) => `insert: file must specify a single line, e.g. ${display}:10 (insert after line 10)`,
  insertLineOutOfRange: (after: number, total: number, display: string) =>
    `insert: line ${after} is out of range (0..${total}) for ${display}; use :0 for the top or :${total} to append`,
  deleteEmptyFile: (display: string) => `delete: ${display} is empty; there are no lines to delete`,
  deletedUnbalanced: (start: number, end: number, quick: string) =>
    `the deleted lines ${start}-${end} are not balanced on their own (${quick}); check the range was what you meant`,
  nothingToChange: (tool: string) => `${tool}: nothing to change; the file was not written`,
  sameContent: (tool: string) => `${tool}: the new content equals the current lines; the file was not written`,
  deletedSaved: (chipId: string) => `deleted content saved as chip://${chipId}`,
  chipEvicted: (id: string, capacity: number | undefined) =>
    `oldest chip ${id} was evicted${capacity === undefined ? '' : ` (queue max ${capacity})`}`,
  notRecorded: (reason: string) => `the edit was written but could not be recorded for be-trx rollback: ${reason}`,
  /** The history's one-line summary of an edit (be-trx status lists it). */
  summaryLines: (tool: string, display: string, start: number, end: number) => `${tool} on ${display} lines ${start}-${end}`,
  summaryAfter: (tool: string, display: string, after: number) => `${tool} on ${display} after line ${after}`,
  summaryWrite: (display: string) => `be-write on ${display}`,
};

export function affectedLines(lang: Lang, start: number, end: number, total: number): string {
  return lang === 'zh'
    ? `行 ${start}-${end}（当前共 ${total} 行）`
    : `lines ${start}-${end} (file now has ${total} lines)`;
}

export function affectedDeleted(lang: Lang, start: number, end: number, total: number): string {
  return lang === 'zh'
    ? `行 ${start}-${end}（当前共 ${total} 行）`
    : `lines ${start}-${end} deleted (file now has ${total} lines)`;
}

export function affectedNothing(lang: Lang, total: number): string {
  return lang === 'zh' ? `无改动（当前共 ${total} 行）` : `no change (file has ${total} lines)`;
}

/** The balance line of an edit on a file too large to check whole (see editReport.ts). */
export const largeFileBalance = {
  skipped: (lang: Lang, limit: number) =>
    lang === 'zh'
      ? `符号闭合快速检查：已跳过（文件与修改内容均超过 ${limit} 字节）`
      : `balance: skipped (file and edit over ${limit} bytes)`,
  unchanged: (lang: Lang, limit: number) =>
    lang === 'zh'
      ? `符号闭合快速检查：修改未改变括号平衡（仅检查修改的行，文件超过 ${limit} 字节）`
      : `balance: unchanged by this edit (edited lines checked; file over ${limit} bytes)`,
  /** `before`/`after`: the English quick checks of the replaced and the new lines. */
  changed: (lang: Lang, limit: number, before: string, after: string) => {
    const strip = (q: string) => q.replace(/^balance: /, '');
    return lang === 'zh'
      ? `符号闭合快速检查：修改改变了括号平衡（修改前的行：${strip(before)}；修改后：${strip(after)}；文件超过 ${limit} 字节，未检查全文）`
      : `balance: this edit changes bracket balance (replaced lines: ${strip(before)}; new lines: ${strip(after)}; file over ${limit} bytes, not checked whole)`;
  },
};

/** The headers of a `plain` diff's two numbered listings (diff.ts). */
export function listingHeader(which: 'before' | 'after', start: number, end: number, lang: Lang): string {
  if (lang === 'zh') return which === 'before' ? `--- 修改前（行 ${start}-${end}）---` : `+++ 修改后（行 ${start}-${end}）+++`;
  return which === 'before' ? `--- before (lines ${start}-${end}) ---` : `+++ after (lines ${start}-${end}) +++`;
}

/** The words of the one-line balance check in edit results (balance.ts quickBalance), en and upstream's zh. */
export const quickBalanceMessages = {
  missing: (lang: Lang, pair: string, n: number) => (lang === 'zh' ? `${pair} 差 ${n} 个` : `${pair} missing ${n}`),
  tags: (lang: Lang, n: number) => (lang === 'zh' ? `标签 差 ${n} 个` : `tags unbalanced ${n}`),
  unterminated: (lang: Lang, symbol: string, where: string) =>
    lang === 'zh' ? `${symbol} 未闭合（行 ${where}）` : `${symbol} unterminated at line ${where}`,
  ok: (lang: Lang) => (lang === 'zh' ? '符号闭合快速检查：OK' : 'balance: OK'),
  unbalanced: (lang: Lang, parts: string[]) =>
    lang === 'zh' ? `符号闭合快速检查：Error (${parts.join('; ')})` : `balance: unbalanced (${parts.join('; ')})`,
};

/**
 * Warnings about the content an agent gave (not the whole file, not a numbered listing): tabs when the file
 * around is indented with spaces, trailing whitespace.
 */
export function contentWarnings(newLines: string[], fileUsesTabs: boolean): string[] {
  const warnings: string[] = [];
  let tabs = 0;
  let trailing = false;
  for (const l of newLines) {
    for (let i = 0; i < l.length; i++) if (l.charCodeAt(i) === 9) tabs++;
    if (/[ \t]$/.test(l)) trailing = true;
  }
  if (tabs > 0 && !fileUsesTabs) {
    warnings.push(`content contains ${tabs} tab characters but the file is indented with spaces — verify indentation`);
  }
  if (trailing) warnings.push('content contains trailing whitespace on one or more lines');
  return warnings;
}

/** Does this sample of lines mostly start with a tab (tab-indented code)? */
export function usesTabIndent(lines: string[]): boolean {
  let indented = 0;
  let tabbed = 0;
  for (const l of lines) {
    if (l.length === 0 || (l[0] !== ' ' && l[0] !== '\t')) continue;
    indented++;
    if (l[0] === '\t') tabbed++;
  }
  return indented > 0 && tabbed * 2 > indented;
}

// ------------------------------------------------------------------ the checks before an edit (guards.ts)

export const rangeMessages = {
  required: (op: string, display: string) => `${op}: file must include a line range, e.g. ${display}:5-15`,
  startOutOfRange: (op: string, start: number, total: number, display: string) =>
    `${op}: start line ${start} is out of range (1..${total}) for ${display}`,
  endOutOfRange: (op: string, start: number, end: number, total: number, display: string) =>
    `${op}: end line ${end} is out of range (${start}..${total}) for ${display}; the file has ${total} lines`,
};

/** What changed in the lines a viewed_code_id was issued for, as guards.ts found it. */
export type ViewedChange =
  /** the lines read are the same; lines above them changed */
  | { kind: 'above' }
  /** the lines as read are known: a diff, and where they went (`movedTo` undefined: the file was too large to search) */
  | { kind: 'lines'; diff: string; movedTo?: number[] }
  /** only the range's hash is known (an id from an earlier process): where it went, and the lines there now */
  | { kind: 'hash'; movedTo: number[]; now?: { start: number; lines: string[] } }
  /** nothing more is known */
  | { kind: 'unknown' };

export interface ViewedAt {
  id: string;
  start: number;
  end: number;
  total: number;
}

export const viewedMessages = {
  unknown: (id: string, display: string) =>
    `viewed_code_id ${id} is unknown or expired; nothing was changed. Re-read ${display} with be-read and use the new viewed_code_id.`,
  otherFile: (id: string, owner: string, display: string) =>
    `viewed_code_id ${id} belongs to ${owner || 'another file'}, not ${display}; nothing was changed. Re-read ${display}.`,
  outsideRange: (id: string, rec: ViewedAt, start: number, end: number, display: string) =>
    `lines ${start}-${end} are outside the lines ${rec.start}-${rec.end} read with viewed_code_id ${id}; nothing was changed. ` +
    `Read ${display}:${start}-${end} first.`,
  changed: (display: string, rec: ViewedAt, lineCount: number, change: ViewedChange): string => {
    const range = `${rec.start}-${rec.end}`;
    const parts = [
      `${display} changed since it was read (viewed_code_id ${rec.id}, lines ${range} of ${rec.total}; ` +
        `the file now has ${lineCount} lines); nothing was changed.`,
    ];
    const n = rec.end - rec.start + 1;
    switch (change.kind) {
      case 'above':
        parts.push(`Lines ${range} are the same, but lines above them changed.`);
        break;
      case 'lines':
        parts.push(`Lines ${range} then (-) and now (+):\n${change.diff}`);
        if (change.movedTo) {
          parts.push(
            change.movedTo.length > 0
              ? `The text you read is now at ${linesAt(change.movedTo, n)}.`
              : 'The text you read is no longer in the file as it was.',
          );
        }
        break;
      case 'hash':
        parts.push(
          change.movedTo.length > 0
            ? `Lines ${range} changed; the text you read is now at ${linesAt(change.movedTo, n)}.`
            : `Lines ${range} changed; the text you read is no longer in the file as it was.`,
        );
        if (change.now) {
          const { start, lines } = change.now;
          // the lines as read are not known (only their hash): no line is marked changed, for none is known to be
          parts.push(
            `Lines ${start}-${start + lines.length - 1} now (the lines as read are not kept past a restart, so no diff):\n` +
              lines.map((l, i) => `${start + i}\t${l}`).join('\n'),
          );
        }
        break;
      case 'unknown':
        break;
    }
    parts.push(`Re-read ${display} and retry with the new viewed_code_id.`);
    return parts.join('\n');
  },
  topChanged: (id: string, display: string, end: number, lineCount: number) =>
    `${display} changed in lines 1-${end} since they were read (viewed_code_id ${id}; the file now has ${lineCount} lines), ` +
    `or the id is another file's; nothing was changed. Re-read ${display} and retry with the new viewed_code_id.`,
  oldMismatch: (start: number, end: number, display: string, diff: string) =>
    `replace: old content does not match lines ${start}-${end} of ${display}; nothing was changed. ` +
    `Expected (-) vs current (+):\n${diff}\n` +
    'Re-read the range and pass its current text as old (the final line ending is optional).',
};

// ------------------------------------------------------------------ be-write

export const writeMessages = {
  contentRequired: 'write: content is required',
  fileRequired: 'write: file is required (a path inside the workspace)',
  sameContent: 'the file already has this content; it was not written',
};

// ------------------------------------------------------------------ be-insert-chip

export const chipMessages = {
  fromMissing: 'insert-chip: from is missing; use chip://<id> or file:///path (omit both from and to to list chips)',
  toMissing: 'insert-chip: to is missing; use file:///absolute/path:line, file://relative/path:line or path:line',
  toNeedsLine: (path: string) => `insert-chip: to must end with :line (insert after that line; :0 is the top), e.g. ${path}:0`,
  notFound: (id: string, available: string[]) =>
    `chip ${id} not found. ${available.length ? `Available chips: ${available.join(', ')}.` : 'There are no chips.'} Call be-insert-chip with no arguments to list them.`,
  unavailable: 'chips are not available in this server',
  noneRecorded: 'no chips recorded',
};

// ------------------------------------------------------------------ be-trx

export const trxMessages = {
  disabled: 'edit history is disabled in this server; be-trx is unavailable',
  unknownAction: (action: string) => `unknown trx action: ${action}; expected commit, rollback or status`,
};
