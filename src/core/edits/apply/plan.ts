/**
 * be-apply planning: every edit of a batch is parsed, checked and turned into byte splices on the file as it was
 * before the call, so line numbers never shift between two edits of one file. Nothing here writes. Per file the
 * splices are sorted and must not overlap; a `write` replaces a whole file and must be its file's only edit.
 */
import { ToolError } from '../../errors';
import { contentEol, contentToLines } from '../../text/content';
import { TextBuffer } from '../../text/lines';
import { formatSpec, parseFileRange, type LineSpec } from '../../text/range';
import { planInsert, planReplace, type ByteSplice } from '../../text/splice';
import { assertWellFormedText } from '../../text/validate';
import { renderDiff } from '../diff';
import type { Lang } from '../../lang';
import { checkOld, checkViewed, editRange, type GuardPorts } from '../guards';
import type { LoadedText } from '../../read/load';
import type { DiffFormat } from '../types';

export type ApplyOp = 'replace' | 'insert' | 'delete' | 'write';

export interface ApplyEdit {
  /** "path:S-E" | "path:N" | "path:ALL" | "path", as be-replace / be-insert / be-delete / be-write. */
  file: string;
  content?: string;
  /** Default: "path" with content = write, a range with content = replace, a range without = delete. */
  op?: ApplyOp;
  old?: string;
  viewed_code_id?: string;
}

export interface ParsedEdit {
  index: number; // 1-based position in the call, for messages
  op: ApplyOp;
  path: string;
  spec: LineSpec;
  content?: string;
  old?: string;
  viewedId?: string;
}

/** One file of the batch: what it held (UTF-8, as loaded) and what it will hold. */
export interface FilePlan {
  abs: string;
  display: string;
  /** null: the file does not exist (a write creates it) */
  before: Buffer | null;
  after: Buffer;
  total: number;
  diff: string;
  summary: string;
  encoding?: string;
}

export const MAX_BATCH_EDITS = 200;

const where = (e: ParsedEdit) => `edit ${e.index} (${e.op} ${e.path}${formatSpec(e.spec)})`;

export function parseEdits(edits: readonly ApplyEdit[]): ParsedEdit[] {
  if (!Array.isArray(edits) || edits.length === 0) {
    throw new ToolError('invalid_argument', 'apply: edits must be a non-empty array of {file, content?, op?}, e.g. [{"file": "a.ts:3-4", "content": "x\\n"}]');
  }
  if (edits.length > MAX_BATCH_EDITS) {
    throw new ToolError('invalid_argument', `apply: ${edits.length} edits is over the ${MAX_BATCH_EDITS}-edit limit of one call; split the batch.`);
  }
  return edits.map((raw, i) => {
    const index = i + 1;
    if (!raw || typeof raw.file !== 'string') throw new ToolError('invalid_argument', `apply: edit ${index} has no file (expected {file, content?, op?})`);
    if (raw.content !== undefined && typeof raw.content !== 'string') throw new ToolError('invalid_argument', `apply: edit ${index}: content must be a string`);
    const fr = parseFileRange(raw.file);
    const op: ApplyOp = raw.op ?? (fr.spec.kind === 'none' ? 'write' : raw.content === undefined ? 'delete' : 'replace');
    const e: ParsedEdit = { index, op, path: fr.path, spec: fr.spec, content: raw.content, old: raw.old, viewedId: raw.viewed_code_id };
    if (raw.content !== undefined) assertWellFormedText(raw.content, `apply: edit ${index} content`);
    if (op === 'write' && fr.spec.kind !== 'none') throw new ToolError('invalid_argument', `apply: ${where(e)}: write takes a plain path, no ":N" suffix`);
    if (op === 'write' && raw.content === undefined) throw new ToolError('invalid_argument', `apply: ${where(e)}: write needs content (the whole file)`);
    if (op === 'insert' && fr.spec.kind !== 'line') throw new ToolError('invalid_argument', `apply: ${where(e)}: insert needs "path:N" (after line N; :0 is the top)`);
    if (op === 'insert' && raw.content === undefined) throw new ToolError('invalid_argument', `apply: ${where(e)}: insert needs content`);
    if ((op === 'replace' || op === 'delete') && fr.spec.kind === 'none') {
      throw new ToolError('invalid_argument', `apply: ${where(e)}: ${op} needs a line range, e.g. ${fr.path}:5-15 or ${fr.path}:ALL`);
    }
    if (op === 'delete' && raw.content !== undefined) throw new ToolError('invalid_argument', `apply: ${where(e)}: delete takes no content`);
    if ((raw.old !== undefined || raw.viewed_code_id !== undefined) && op !== 'replace' && op !== 'delete') {
      throw new ToolError('invalid_argument', `apply: ${where(e)}: old and viewed_code_id apply to replace and delete only`);
    }
    return e;
  });
}

interface Planned {
  edit: ParsedEdit;
  splice: ByteSplice;
  start: number;
  end: number; // old lines start..end are replaced (end = start - 1: an insert)
  newLines: string[];
}

export interface PlanPorts extends GuardPorts {
  lang: Lang;
}

/** The splices of one existing file's line edits, checked against the file as loaded. */
async function planLines(ports: PlanPorts, ld: LoadedText, edits: ParsedEdit[]): Promise<Planned[]> {
  const { doc } = ld;
  const out: Planned[] = [];
  for (const e of edits) {
    const newLines = e.content === undefined ? [] : contentToLines(e.content);
    const fallback = contentEol(e.content ?? '');
    if (e.op === 'insert') {
      const after = (e.spec as { line: number }).line;
      if (after > doc.lineCount) throw new ToolError('invalid_argument', `apply: ${where(e)}: line ${after} is out of range (0..${doc.lineCount}) for ${ld.display}`);
      if (newLines.length > 0) out.push({ edit: e, splice: planInsert(doc, after, newLines, fallback), start: after + 1, end: after, newLines });
      continue;
    }
    if (doc.lineCount === 0) {
      const all = e.spec.kind === 'all' || (e.spec.kind === 'line' && e.spec.line <= 1);
      if (!all) throw new ToolError('invalid_argument', `apply: ${where(e)}: ${ld.display} is empty; use ${ld.display}:ALL`);
      if (e.viewedId) await checkViewed(ports, e.viewedId, ld, 1, 0);
      if (newLines.length > 0) out.push({ edit: e, splice: planInsert(doc, 0, newLines, fallback), start: 1, end: 0, newLines });
      continue;
    }
    const { start, end } = editRange(ld, e.spec, `apply: ${where(e)}`);
    if (e.viewedId) await checkViewed(ports, e.viewedId, ld, start, end);
    if (e.old !== undefined) checkOld(ld, start, end, e.old);
    out.push({ edit: e, splice: planReplace(doc, start, end, newLines, fallback), start, end, newLines });
  }
  // sorted by offset; at one offset an insert (nothing removed) goes before a replacement, else in call order
  out.sort((a, b) => a.splice.offset - b.splice.offset || (a.splice.removeEnd - a.splice.offset) - (b.splice.removeEnd - b.splice.offset) || a.edit.index - b.edit.index);
  for (let i = 1; i < out.length; i++) {
    const prev = out[i - 1];
    const cur = out[i];
    if (cur.splice.offset < prev.splice.removeEnd) {
      throw new ToolError(
        'invalid_argument',
        `apply: ${where(prev.edit)} and ${where(cur.edit)} overlap in ${ld.display}; nothing was changed. ` +
          'Ranges refer to the file before the call: merge the two into one edit.',
      );
    }
  }
  return out;
}

function compose(doc: TextBuffer, planned: Planned[]): Buffer {
  const parts: Buffer[] = [];
  let at = 0;
  for (const p of planned) {
    parts.push(doc.bytes.subarray(at, p.splice.offset), p.splice.insert);
    at = p.splice.removeEnd;
  }
  parts.push(doc.bytes.subarray(at));
  return Buffer.concat(parts);
}

function diffOf(ports: PlanPorts, doc: TextBuffer, planned: Planned[], format: DiffFormat): string {
  return planned
    .map((p) => {
      const ws = Math.max(1, p.start - 3);
      const we = Math.min(doc.lineCount, p.end + 3);
      const before = { startLine: ws, lines: doc.lines(ws, we) };
      const after = { startLine: ws, lines: [...doc.lines(ws, p.start - 1), ...p.newLines, ...doc.lines(p.end + 1, we)] };
      return renderDiff(before, after, format, ports.lang);
    })
    .join('\n');
}

/** A whole-file write's bytes, as be-write makes them: the old file's CRLF and BOM are kept. */
function writeBytes(old: TextBuffer | undefined, content: string): Buffer {
  let text = content;
  if (old && old.dominantEol === '\r\n') text = text.replace(/\r?\n/g, '\r\n');
  let bytes = Buffer.from(text, 'utf8');
  if (old?.hasBom && !text.startsWith('\uFEFF')) bytes = Buffer.concat([old.bytes.subarray(0, 3), bytes]);
  return bytes;
}

/**
 * One file's plan. `ld` is undefined when the file does not exist (only a write may create it).
 * Returns undefined when the edits change nothing.
 */
export async function planFile(
  ports: PlanPorts,
  target: { abs: string; display: string },
  ld: LoadedText | undefined,
  edits: ParsedEdit[],
  format: DiffFormat,
): Promise<FilePlan | undefined> {
  const write = edits.find((e) => e.op === 'write');
  if (write && edits.length > 1) {
    throw new ToolError('invalid_argument', `apply: ${where(write)} rewrites ${target.display} whole, so it must be the only edit of that file; nothing was changed.`);
  }
  if (write) {
    const after = writeBytes(ld?.doc, write.content ?? '');
    if (ld && ld.doc.bytes.equals(after)) return undefined;
    const total = new TextBuffer(after).lineCount;
    const summary = `${ld ? 'rewrite' : 'create'} ${target.display} (${total} lines)`;
    return { abs: target.abs, display: target.display, before: ld ? ld.doc.bytes : null, after, total, diff: '', summary, encoding: ld?.encoding };
  }
  if (!ld) {
    const e = edits[0];
    throw new ToolError('not_found', `apply: ${where(e)}: file not found: ${target.display}; to create a file use op "write" with a plain path.`);
  }
  const planned = await planLines(ports, ld, edits);
  const after = compose(ld.doc, planned);
  if (after.equals(ld.doc.bytes)) return undefined;
  const total = new TextBuffer(after).lineCount;
  const summary = `${planned.length} edit(s) on ${target.display}: ` + planned.map((p) => (p.end < p.start ? `+after ${p.start - 1}` : `${p.start}-${p.end}`)).join(', ');
  return {
    abs: target.abs,
    display: target.display,
    before: ld.doc.bytes,
    after,
    total,
    diff: diffOf(ports, ld.doc, planned, format),
    summary,
    encoding: ld.encoding,
  };
}
