/**
 * The recap a host hook puts back into an agent's context after a compaction (`better-edit-tools recap`):
 * pinned constraints, the running summary, the edit calls (landed, refused, rolled back since or unknown: a refusal
 * or an undone edit is never shown as a change that landed, recapUndo.ts), the be-trx steps still open, the files
 * changed, edits other sessions landed, and how to recall any id in full. Plain text for a model, bounded by a token
 * budget however long the session or however many pins: each section takes what fits in its share, and says how
 * much it left out.
 */
import type { ChatMemory } from './chatMemory';
import { headOf } from './fingerprint';
import { describeAuthor } from '../history/author';
import { pinnedInOrder } from './recap';
import { formatReference } from './references';
import type { FileReference } from './types';
import type { TrailEntry } from './node/recallStore';
import { declaredIn, declaredInEdit, declaresSymbols, eventIdIn, PREVIEW_ARG, symbolLine, symbolLocations, undoneByTrx, type FileChange, type ReadSighting, type UndoneByTrx } from './recapSymbols';
import { allUndone, undosOf, type KeptEdit, type UndoneEdit, type Undos } from './recapUndo';

export type { UndoneEdit } from './recapUndo';

export const DEFAULT_SESSION_RECAP_TOKENS = 2000;
export const MIN_SESSION_RECAP_TOKENS = 200;
/** Files on one line of the other sessions' section: short lines, so the budget cuts between them. */
const OTHER_FILES_PER_LINE = 6;
const EDIT_TOOLS = new Set(['be-replace', 'be-insert', 'be-delete', 'be-write', 'be-insert-chip', 'be-apply', 'be-trx']);

export interface EditEvent {
  /** The call's id (its result's id follows it). */
  id: string;
  tool: string;
  files: FileReference[];
  /** preview: the call asked for a preview, so nothing was written whatever its result. */
  status: 'ok' | 'error' | 'unknown' | 'preview';
  /** Head of the error text, for failures still in the window. */
  error?: string;
  evicted: boolean;
  time: number;
  /** be-trx: what it did (rollback, commit, keep, revert). */
  action?: string;
  /** be-trx rollback / revert: the edits its reply says it undid ([]: none; absent: the reply is not known). */
  undid?: UndoneByTrx[];
  /** be-apply: its batch's event id. */
  eventId?: string;
}

/** A be-trx call's action, from its recorded arguments; `status` only reads and is no edit call. */
const trxAction = (tool: string, args: string | undefined): string | undefined => (tool === 'be-trx' ? /"action":"(\w+)"/.exec(args ?? '')?.[1] : undefined);

/**
 * Edit calls of the session, oldest first: from the recall archive's trail (every evicted call, however long the
 * session), then fingerprints (those the trail lacks), then those still in the window.
 */
export function editEvents(memory: ChatMemory, trail: readonly TrailEntry[] = []): EditEvent[] {
  const out: EditEvent[] = [];
  const seen = new Set<string>();
  for (const t of trail) {
    if (!EDIT_TOOLS.has(t.tool) || seen.has(t.id) || t.action === 'status') continue;
    seen.add(t.id);
    const extra = { ...(t.action ? { action: t.action } : {}), ...(t.undid ? { undid: t.undid } : {}), ...(t.eventId ? { eventId: t.eventId } : {}) };
    out.push({ id: t.id, tool: t.tool, files: t.references, status: t.preview ? 'preview' : t.status, evicted: true, time: t.time, ...extra });
  }
  const prints = memory.fingerprints();
  prints.forEach((f, i) => {
    if (f.kind !== 'tool_call' || !f.tool || !EDIT_TOOLS.has(f.tool) || seen.has(f.id)) return;
    const action = trxAction(f.tool, f.head);
    if (action === 'status') return;
    seen.add(f.id);
    // A unit's fingerprints are written call first, result second (ChatMemory.evictUnit).
    const next = prints[i + 1];
    const result = next && next.kind === 'tool_result' && next.tool === f.tool ? next : undefined;
    // only the heads are left: the arguments' or the reply's first words may say it was a preview
    const preview = PREVIEW_ARG.test(f.head) || (result?.head.includes('(preview: not written)') ?? false);
    const status = preview ? 'preview' : result?.status ?? 'unknown';
    out.push({ id: f.id, tool: f.tool, files: f.files, status, evicted: true, time: f.time, ...(action ? { action } : {}) });
  });
  for (const m of memory.visibleMessages()) {
    if (m.kind !== 'tool_call' || !m.tool || !EDIT_TOOLS.has(m.tool)) continue;
    const action = trxAction(m.tool, m.content);
    if (action === 'status') continue;
    const result = m.pairId !== undefined ? memory.get(m.pairId) : undefined;
    const undid = result?.status === 'ok' && m.tool === 'be-trx' ? undoneByTrx(result.content) : undefined;
    const eventId = result?.status === 'ok' && m.tool === 'be-apply' ? eventIdIn(result.content) : undefined;
    out.push({
      id: m.id,
      tool: m.tool,
      ...(action ? { action } : {}),
      ...(undid ? { undid } : {}),
      ...(eventId ? { eventId } : {}),
      files: m.references,
      status: PREVIEW_ARG.test(m.content) ? 'preview' : result?.status ?? 'unknown',
      ...(result?.status === 'error' ? { error: headOf(result.content, 120) } : {}),
      evicted: false,
      time: m.time,
    });
  }
  return out;
}

export interface FileTouched {
  path: string;
  refs: number;
  /** edit calls that landed in it and were not undone since */
  edits: number;
  refused: number;
  unknown: number;
  /** edit calls that landed in it and a rollback or revert undid since */
  rolledBack: number;
  previews: number;
  /** calls of other tools (reads, searches) that named it */
  reads: number;
}

/**
 * Paths referenced by the session's calls, most edited first: `edits` counts edit calls that landed (result ok)
 * and were not undone since (`undos`), `rolledBack` those undone, `refused` those refused (result error: nothing
 * was written), `unknown` those whose outcome left no record. A refused, undone or preview-only edit is never
 * counted as an edit: a model re-grounding from the recap must not believe it happened.
 */
export function filesTouched(memory: ChatMemory, trail: readonly TrailEntry[] = [], events = editEvents(memory, trail), undos?: Undos): FileTouched[] {
  const files = new Map<string, Omit<FileTouched, 'path'>>();
  const edits = new Map(events.map((e) => [e.id, e.status]));
  const note = (id: string, refs: readonly FileReference[]) => {
    const edit = edits.get(id);
    for (const r of refs) {
      const e = files.get(r.path) ?? { refs: 0, edits: 0, refused: 0, unknown: 0, rolledBack: 0, previews: 0, reads: 0 };
      e.refs++;
      if (edit === 'ok' && undos?.byCall.get(id)?.has(r.path)) e.rolledBack++;
      else if (edit === 'ok') e.edits++;
      else if (edit === 'error') e.refused++;
      else if (edit === 'unknown') e.unknown++;
      else if (edit === 'preview') e.previews++;
      else e.reads++;
      files.set(r.path, e);
    }
  };
  const inTrail = new Set(trail.map((t) => t.id));
  for (const t of trail) note(t.id, t.references);
  for (const f of memory.fingerprints()) if (f.kind === 'tool_call' && !inTrail.has(f.id)) note(f.id, f.files);
  for (const m of memory.visibleMessages()) if (m.kind === 'tool_call') note(m.id, m.references);
  return [...files.entries()]
    .map(([p, e]) => ({ path: p, ...e }))
    .sort((a, b) => b.edits - a.edits || b.refused - a.refused || b.refs - a.refs || (a.path < b.path ? -1 : 1));
}

/** An edit's declarations are as of just after it: later than the change it made (which marks earlier reads). */
const AFTER_THE_EDIT = 0.5;

/**
 * The session's be-read replies and landed edits that showed declarations: from the recall trail, then those still
 * in the window.
 */
export function readSightings(memory: ChatMemory, trail: readonly TrailEntry[] = []): ReadSighting[] {
  const out: ReadSighting[] = [];
  const seen = new Set<string>();
  for (const t of trail) {
    seen.add(t.id);
    const after = t.tool === 'be-read' ? 0 : AFTER_THE_EDIT;
    const file = t.references[0]?.path;
    if (file !== undefined && declaresSymbols(file) && t.symbols && t.symbols.declared.length > 0) out.push({ file, time: t.time + after, id: t.id, ...t.symbols });
  }
  for (const m of memory.visibleMessages()) {
    if (m.kind !== 'tool_call' || !m.tool || m.references.length === 0 || seen.has(m.id) || m.pairId === undefined) continue;
    const result = memory.get(m.pairId);
    if (result?.status !== 'ok') continue;
    const file = m.references[0]!.path;
    if (!declaresSymbols(file)) continue; // prose and data: lines that look like declarations are not
    if (m.tool === 'be-read') {
      const read = declaredIn(result.content, m.references[0]!.all === true);
      if (read.declared.length > 0) out.push({ file, time: m.time, id: m.id, ...read });
    } else {
      const declared = declaredInEdit(m.tool, m.content);
      if (declared?.length) out.push({ file, time: m.time + AFTER_THE_EDIT, id: m.id, declared, full: false });
    }
  }
  return out;
}

/** An edit that landed in the workspace by another session (from the be-trx history), newest last. */
export interface OtherSessionEdit {
  file: string;
  tool: string;
  session?: string;
  client?: string;
  time: number;
}

/** A be-trx step still in the history (not committed, rolled back or kept): one edit, or one be-apply batch. */
export interface OpenStep {
  /** The event id (a batch's: its first snapshot's, as be-apply returned it). */
  id: string;
  tool: string;
  files: string[];
  session?: string;
  client?: string;
  time: number;
}

export interface SessionRecapInput {
  sessionId: string;
  lastActivity: number;
  budgetTokens?: number;
  /** The recall archive's trail (readTrail): edits that left the window long ago. */
  trail?: readonly TrailEntry[];
  /** This session's MCP client name, when the history recorded it. */
  client?: string;
  /** Edits other sessions landed in the same workspace (the be-trx history), oldest first. */
  otherEdits?: readonly OtherSessionEdit[];
  /** The workspace's open be-trx steps, oldest first ([]: none open; absent: the history was not read). */
  openSteps?: readonly OpenStep[];
  /** Edits (any session's) a rollback or revert undid, from the landed-edit log (absent: it was not read). */
  undone?: readonly UndoneEdit[];
  /** This session's landed edits the history and log still hold, not undone (they tell its calls apart from the undone ones). */
  kept?: readonly KeptEdit[];
  count(text: string): number;
}

/** An edit call's outcome as the recap says it: a landed edit undone since is rolled back, not landed. */
function outcome(e: EditEvent, undos: Undos): string {
  if (e.status === 'error') return `REFUSED, nothing written${e.error ? `: ${e.error}` : ''}`;
  if (e.status === 'preview') return 'preview only, nothing written';
  if (e.status === 'unknown') return 'outcome unknown';
  if (e.tool === 'be-trx') {
    const back = undos.putBack.get(e.id) ?? [];
    if (e.action !== 'rollback' && e.action !== 'revert') return 'done';
    if (back.length === 0) return e.undid ? 'nothing undone' : 'done';
    const files = [...new Set(back)];
    return `undid ${back.length} edit${back.length > 1 ? 's' : ''}: ${files.slice(0, 3).join(', ')}${files.length > 3 ? ` +${files.length - 3} more` : ''}`;
  }
  const undone = undos.byCall.get(e.id);
  if (!undone) return 'landed';
  if (allUndone(e, undos)) return 'rolled back (landed, undone since)';
  return `landed; rolled back since: ${[...undone].join(', ')}`;
}

/** Lines taken while they fit in `budget`; the first line that does not fit ends the section. */
function within(lines: string[], budget: number, count: (t: string) => number): { kept: string[]; used: number } {
  const kept: string[] = [];
  let used = 0;
  for (const l of lines) {
    const cost = count(`${l}\n`);
    if (used + cost > budget) break;
    kept.push(l);
    used += cost;
  }
  return { kept, used };
}

export function renderSessionRecap(memory: ChatMemory, input: SessionRecapInput): string {
  const budget = Math.max(MIN_SESSION_RECAP_TOKENS, Math.floor(input.budgetTokens ?? DEFAULT_SESSION_RECAP_TOKENS));
  const count = input.count;
  const header =
    `[Better Edit Tools recap of session ${input.sessionId}, last activity ${new Date(input.lastActivity).toISOString()}. ` +
    'Ids in [brackets] can be recalled in full with be-memory {"action":"recall","id":…}.]';
  let left = budget - count(`${header}\n`);
  const out: string[] = [header];
  const section = (title: string, lines: string[], share: number, more: (n: number) => string) => {
    if (lines.length === 0 || left <= 0) return;
    const titleCost = count(`\n${title}\n`);
    const moreCost = 16; // the "(N more …)" line
    const { kept, used } = within(lines, Math.floor(left * share) - titleCost - moreCost, count);
    if (kept.length === 0) return;
    out.push('', title, ...kept);
    left -= titleCost + used;
    if (kept.length < lines.length) {
      const line = more(lines.length - kept.length);
      out.push(line);
      left -= count(`${line}\n`);
    }
  };
  const pins = pinnedInOrder(memory).map((m) => `- [${m.id}] ${headOf(m.content, 300)}`);
  section('Pinned constraints (always apply):', pins, 0.45, (n) => `(${n} more pinned: be-memory {"action":"pins","offset":${pins.length - n}})`);
  const events = editEvents(memory, input.trail);
  const undos = undosOf(events, input.sessionId, input.undone, input.kept);
  const edits = [...events].reverse(); // newest first
  const editLines = edits.map((e) => {
    const files = e.files.slice(0, 2).map(formatReference).join(', ');
    return `- [${e.id}] ${e.tool}${e.action ? ` ${e.action}` : ''}${files ? ` ${files}` : ''} → ${outcome(e, undos)}`;
  });
  const who = input.client ? `${input.client}, this session` : 'this session';
  section(`Edit calls by ${who} (newest first):`, editLines, 0.3, (n) => `(${n} older edit calls)`);
  if (input.openSteps?.length === 0) {
    const none = 'Open be-trx steps: none (every edit in this workspace was committed, rolled back or kept).';
    if (count(`\n${none}\n`) <= left) {
      out.push('', none);
      left -= count(`\n${none}\n`);
    }
  }
  const steps = [...(input.openSteps ?? [])].reverse().map((s) => {
    const files = s.files.length > 3 ? `${s.files.slice(0, 3).join(', ')} +${s.files.length - 3} more` : s.files.join(', ');
    return `- ${s.id} ${s.tool} ${files}${s.session === input.sessionId ? '' : ` by ${describeAuthor(s)}`}`;
  });
  section(
    "Open be-trx steps, newest first (not committed; this session's unless named):",
    steps,
    0.2,
    (n) => `(${n} older open steps: be-trx status lists them)`,
  );
  const touched = filesTouched(memory, input.trail, events, undos);
  const fileLine = (title: string, items: string[]) => {
    if (items.length === 0 || left <= 0) return;
    const { kept } = within([items.join(', ')], Math.floor(left * 0.3), count);
    const line = kept[0] ?? within(items, Math.floor(left * 0.3), count).kept.join(', ');
    if (line) {
      out.push('', title, line);
      left -= count(`\n${title}\n${line}\n`);
    }
  };
  fileLine(`Files changed by ${who} (edits that landed):`, touched.filter((f) => f.edits > 0).map((f) => `${f.path} (×${f.edits})`));
  fileLine('Edits refused (nothing was written to these paths):', touched.filter((f) => f.refused > 0).map((f) => `${f.path} (×${f.refused})`));
  const noEdit = (f: FileTouched) => f.edits === 0 && f.unknown === 0;
  fileLine('Edits rolled back (no edit of this session is left in these):', touched.filter((f) => f.rolledBack > 0 && noEdit(f)).map((f) => `${f.path} (×${f.rolledBack})`));
  // a preview-only call neither read nor edited its file
  fileLine('Files read, not edited:', touched.filter((f) => f.reads > 0 && noEdit(f) && f.refused === 0 && f.rolledBack === 0).map((f) => f.path));
  const changes: FileChange[] = [
    ...edits
      .filter((e) => e.tool !== 'be-trx' && (e.status === 'ok' || e.status === 'unknown'))
      .flatMap((e) => e.files.filter((f) => !undos.byCall.get(e.id)?.has(f.path)).map((f) => ({ file: f.path, time: e.time }))),
    ...undos.changes,
    ...(input.otherEdits ?? []).map((e) => ({ file: e.file, time: e.time })),
  ];
  // grouped by author, files newest first, a few to a line: more files fit the budget than one line per edit
  const byAuthor = new Map<string, { time: number; files: Map<string, number> }>();
  for (const e of [...(input.otherEdits ?? [])].reverse()) {
    const who = describeAuthor(e);
    let a = byAuthor.get(who);
    if (!a) byAuthor.set(who, (a = { time: e.time, files: new Map() }));
    a.files.set(e.file, (a.files.get(e.file) ?? 0) + 1);
  }
  const others: string[] = [];
  for (const [who, a] of byAuthor) {
    const files = [...a.files].map(([f, n]) => (n > 1 ? `${f} (×${n})` : f));
    for (let i = 0; i < files.length; i += OTHER_FILES_PER_LINE) {
      const when = i === 0 ? `, newest at ${new Date(a.time).toISOString().replace(/\.\d{3}Z$/, 'Z')}` : ', older';
      others.push(`- ${files.slice(i, i + OTHER_FILES_PER_LINE).join(', ')} — by ${who}${when}`);
    }
  }
  section('Edits other sessions landed in this workspace (files newest first, by author):', others, 0.4, (n) => `(${n} more lines of files edited by other sessions)`);
  // what an undone edit wrote is not there any more
  const sightings = readSightings(memory, input.trail).filter((s) => s.id === undefined || !undos.byCall.has(s.id));
  const symbols = symbolLocations(sightings, changes).map((f) => symbolLine(f));
  section('Symbols read or written, at the file and line of the latest read or edit that showed them (newest first):', symbols, 0.85, (n) => `(${n} more files with symbols read)`);
  // The summary's newest lines say where the work is now: they are kept first.
  const summary = memory.summary().split('\n').filter((l) => l !== '').reverse();
  const summaryTitle = 'Summary of earlier conversation (newest first):';
  section(summaryTitle, summary, 1, (n) => `(${n} older summary lines left out)`);
  return `${out.join('\n')}\n`;
}
