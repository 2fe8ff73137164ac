/**
 * Where the symbols a session read or wrote live, for the recap: the top-level declarations its be-read replies
 * showed (numbered code rows `12 export function f(` and outline rows `12-30 f(…)`) and its landed edits wrote,
 * each at the file and line of the latest read or edit that showed it. Only what was read: a file changed after that reply (by this session or another)
 * is marked, since its lines may have moved; a symbol a later whole-file read of its file no longer showed is
 * marked too.
 */
import { hasGrammar, isCodeLanguage, languageIdFromPath } from '../text/languages';

export interface Declared {
  name: string;
  line: number;
}

/** One be-read reply: the file it read, when, what it declared, and whether it showed the whole file. */
export interface ReadSighting {
  file: string;
  time: number;
  declared: readonly Declared[];
  full: boolean;
  /** The call that showed them (an edit undone later shows nothing). */
  id?: string;
}

export interface FileSymbols {
  file: string;
  /** Most used first (replies that showed it), then by line. */
  symbols: { name: string; line: number; uses: number; gone: boolean }[];
  /** Newest sighting of any of its symbols. */
  lastSeen: number;
  /** The file changed after one of these sightings: its lines may have moved. */
  changedSince: boolean;
}

const KEYWORDS = '(?:function\\*?|class|interface|type|enum|const|let|var|def|fn|func|struct|trait|module|namespace|object|record|protocol|impl|mod)';
const MODIFIERS = '(?:(?:export|default|declare|abstract|async|static|public|final|pub(?:\\([^)]*\\))?|unsafe|extern)\\s+)*';
/** A numbered code row whose code starts at column 0 (a top-level declaration). */
const CODE_ROW = new RegExp(`^(\\d+)[ \\t]${MODIFIERS}${KEYWORDS}\\s+([A-Za-z_$][\\w$]*)`);
/** An outline row at the top level: `S-E signature` (nested rows are indented). */
const OUTLINE_ROW = new RegExp(`^(\\d+)(?:-\\d+)? ${MODIFIERS}(?:${KEYWORDS}\\s+)?([A-Za-z_$][\\w$]*)`);
const MAX_DECLARED = 400;

/** The header line of an outline reply (render/outline.ts). */
const OUTLINE_HEAD = /^\d+ lines, \d+ tokens \(structure/;

/** Top-level declarations in a be-read reply, with the lines the reply gave them; whether it showed the whole file. */
export function declaredIn(reply: string, wholeFileAsked = false): { declared: Declared[]; full: boolean } {
  const lines = reply.split('\n', 20_000);
  const outline = lines.some((l, i) => i < 3 && OUTLINE_HEAD.test(l));
  const row = outline ? OUTLINE_ROW : CODE_ROW;
  const declared: Declared[] = [];
  for (const l of lines) {
    if (outline && OUTLINE_HEAD.test(l)) continue;
    const m = row.exec(l);
    if (!m) continue;
    declared.push({ name: m[2]!, line: Number(m[1]) });
    if (declared.length >= MAX_DECLARED) break;
  }
  // a paged or query-narrowed outline, or a page of a file, shows part of it
  const partial = /\bnext: |^! \d+ of \d+ symbols|\(structure from line /m.test(reply.slice(0, 2000));
  return { declared, full: !partial && (outline || wholeFileAsked) };
}

/** An edit call's recorded arguments (`tool {json}`) asking for a preview only: nothing was written. */
export const PREVIEW_ARG = /"preview":true[,}]/;

/** A declaration at column 0 of code an edit wrote. */
const CODE_LINE = new RegExp(`^${MODIFIERS}${KEYWORDS}\\s+([A-Za-z_$][\\w$]*)`);
/** Where the memory's argument excerpt cut a long string (memoryObserver.excerptArgs): nothing after it has a known line. */
const EXCERPT_CUT = /\u2026 \[\d+ characters in all, \d+ omitted\] \u2026/;

/**
 * The top-level declarations a landed be-write / be-replace / be-insert wrote, at the lines they landed on, from
 * the call as the memory recorded it (`tool {json args}`); undefined for other tools, a preview or an unreadable call.
 */
export function declaredInEdit(tool: string, callContent: string): Declared[] | undefined {
  if (tool !== 'be-write' && tool !== 'be-replace' && tool !== 'be-insert') return undefined;
  let args: { file?: unknown; content?: unknown; preview?: unknown };
  try {
    args = JSON.parse(callContent.slice(tool.length + 1)) as typeof args;
  } catch {
    return undefined; // the excerpt was cut in the middle
  }
  if (typeof args.file !== 'string' || typeof args.content !== 'string' || args.preview === true) return undefined;
  const at = /:(\d+)(?:-\d+)?$/.exec(args.file);
  // be-write starts at line 1; be-replace at its range's first line; be-insert after its line (0: the top)
  const first = tool === 'be-write' ? 1 : at ? Number(at[1]) + (tool === 'be-insert' ? 1 : 0) : undefined;
  if (first === undefined) return undefined;
  const cut = EXCERPT_CUT.exec(args.content);
  const lines = (cut ? args.content.slice(0, cut.index) : args.content).split('\n');
  if (cut) lines.pop(); // the line the cut fell in is not whole
  const declared: Declared[] = [];
  lines.forEach((l, k) => {
    const m = CODE_LINE.exec(l);
    if (m && declared.length < MAX_DECLARED) declared.push({ name: m[1]!, line: first + k });
  });
  return declared;
}

/** One edit a be-trx rollback or revert undid: its event id and the file it put back (absolute, as the reply says). */
export interface UndoneByTrx {
  id: string;
  file: string;
}

/**
 * The edits a be-trx rollback or revert reply says it undid (their files changed, though the call named none);
 * undefined for a reply that is neither (a commit's, a refusal's text).
 */
export function undoneByTrx(reply: string): UndoneByTrx[] | undefined {
  let r: { restored?: { id?: unknown; file?: unknown }[]; reverted?: unknown; file?: unknown };
  try {
    r = JSON.parse(reply) as typeof r;
  } catch {
    return undefined;
  }
  if (typeof r !== 'object' || r === null) return undefined;
  const undone = Array.isArray(r.restored) ? r.restored.map((x) => ({ id: x?.id, file: x?.file })) : r.reverted !== undefined ? [{ id: r.reverted, file: r.file }] : undefined;
  if (!undone) return undefined;
  return undone.filter((u): u is UndoneByTrx => typeof u.id === 'string' && typeof u.file === 'string');
}

/** The event id a be-apply reply ends with (its batch's first snapshot); single edits' replies name none. */
export function eventIdIn(reply: string): string | undefined {
  return /"event_id":"(\w+)"\}\s*$/.exec(reply)?.[1];
}

/**
 * Whether a file's language has declarations worth listing: code the repository map reads tags from, or one a
 * tree-sitter grammar parses. Prose (.md, .txt, .rst, …) and data files have none, whatever their lines look like.
 */
export function declaresSymbols(file: string): boolean {
  const lang = languageIdFromPath(file);
  return isCodeLanguage(lang) || hasGrammar(lang);
}

export const samePath = (a: string, b: string) => a === b || a.endsWith(`/${b}`) || b.endsWith(`/${a}`);

/**
 * A change to a file: an edit that landed at `time`, or one a rollback or revert undid at `undoneAt` (`time`:
 * when it had landed, when known). An undone edit moved the lines only for what was read between the two: read
 * before it landed, the file is back as it was; read after the undo, the lines are today's.
 */
export interface FileChange {
  file: string;
  time?: number;
  undoneAt?: number;
}

/** Whether `c` changed the lines a read at `read` showed. */
function changedAfter(c: FileChange, read: number): boolean {
  if (c.undoneAt === undefined) return c.time !== undefined && c.time >= read;
  return c.undoneAt >= read && (c.time === undefined || c.time < read);
}

/**
 * Per file, the symbols whose latest sighting was in it, files newest first. `changes` are the edits that landed
 * or were undone in each file (this session's and others'), to mark files changed after their symbols were read.
 * A symbol is one name in one file: two files declaring the same name keep both.
 */
export function symbolLocations(sightings: readonly ReadSighting[], changes: readonly FileChange[]): FileSymbols[] {
  const latest = new Map<string, { name: string; file: string; line: number; time: number; uses: number }>();
  for (const s of [...sightings].sort((a, b) => a.time - b.time)) {
    for (const d of s.declared) {
      const key = `${s.file}\0${d.name}`;
      const was = latest.get(key);
      latest.set(key, { name: d.name, file: s.file, line: d.line, time: s.time, uses: (was?.uses ?? 0) + 1 });
    }
  }
  const byFile = new Map<string, { name: string; line: number; uses: number; time: number }[]>();
  for (const at of latest.values()) {
    const list = byFile.get(at.file) ?? [];
    list.push({ name: at.name, line: at.line, uses: at.uses, time: at.time });
    byFile.set(at.file, list);
  }
  const out: FileSymbols[] = [];
  for (const [file, list] of byFile) {
    const mine = changes.filter((c) => samePath(c.file, file));
    // a later read of the whole file that did not show a symbol: it is not there any more (or not at the top level)
    const fullLater = sightings.filter((s) => s.full && s.file === file);
    const gone = (x: { name: string; time: number }) => fullLater.some((s) => s.time > x.time && !s.declared.some((d) => d.name === x.name));
    out.push({
      file,
      symbols: list.map((x) => ({ name: x.name, line: x.line, uses: x.uses, gone: gone(x) })).sort((a, b) => b.uses - a.uses || a.line - b.line),
      lastSeen: Math.max(...list.map((x) => x.time)),
      changedSince: list.some((x) => mine.some((c) => changedAfter(c, x.time))),
    });
  }
  return out.sort((a, b) => b.lastSeen - a.lastSeen || (a.file < b.file ? -1 : 1));
}

/** `- src/a.ts: parseConfig:40 loadEnv:61` (at most `max` symbols, then how many more), marked when changed since. */
export function symbolLine(f: FileSymbols, max = 16): string {
  const shown = f.symbols.slice(0, max).map((s) => `${s.name}:${s.line}${s.gone ? ' (not in a later read)' : ''}`);
  const more = f.symbols.length > max ? ` +${f.symbols.length - max} more` : '';
  return `- ${f.file}${f.changedSince ? ' (changed since: lines may have moved)' : ''}: ${shown.join(' ')}${more}`;
}
