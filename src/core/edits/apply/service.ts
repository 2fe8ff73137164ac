/**
 * be-apply: several edits across several files, all or nothing. Every path is resolved, every file's lock taken
 * (in sorted order, so two batches never deadlock), every edit planned and checked against the files as they were
 * before the call; only then is anything written (commit.ts), and the batch is one be-trx rollback step.
 */
import { isToolError, ToolError } from '../../errors';
import type { FileStat, FileStore } from '../../files/fileStore';
import type { SandboxPort, WriteLookups } from '../../files/ports';
import { spliceBetween } from '../../history/splice';
import { sha256Parts } from '../../util/sha256';
import { explainStaleRead } from '../../history/review';
import type { EditHistory, EditRecordInput, GroupRecordResult } from '../../history/types';
import type { Lang } from '../../lang';
import { loadText, type LoadedText } from '../../read/load';
import { readBack } from '../readBack';
import type { DiffFormat } from '../types';
import type { ViewedCodeRegistry } from '../viewedCode';
import { BatchConflict, commitBatch, type BatchJournal, type FaultHook } from './commit';
import { withLocks } from './locks';
import { eachBounded } from '../../util/bounded';
import { randomHex } from '../../util/ids';
import { parseEdits, planFile, type ApplyEdit, type FilePlan, type ParsedEdit } from './plan';

export interface ApplyArgs {
  edits: ApplyEdit[];
  preview?: boolean;
  format?: DiffFormat;
  brief?: boolean;
}

export interface ApplyFileResult {
  file: string;
  total: number;
  created?: boolean;
  diff?: string;
  sha256?: string;
  encoding?: string;
}

export interface ApplyResult {
  status: 'ok';
  files: number;
  edits: number;
  results: ApplyFileResult[];
  preview?: boolean;
  /** The batch's history group: be-trx rollback step 1 undoes all of it. */
  event_id?: string;
  queue_full?: string;
  warnings?: string[];
}

export interface BatchEditorDeps {
  files: FileStore;
  sandbox: SandboxPort;
  /** node/journal.ts's ApplyJournal, given by the composition root */
  journal: BatchJournal;
  viewed: ViewedCodeRegistry;
  history?: EditHistory;
  lang?: Lang;
  maxFileBytes: number;
  maxAnalyzeBytes: number;
  /** Tests only: fail a step of the commit. */
  fault?: FaultHook;
}

export class BatchEditor {
  constructor(private readonly deps: BatchEditorDeps) {}

  async apply(args: ApplyArgs): Promise<ApplyResult> {
    const edits = parseEdits(args.edits);
    const { sandbox, files } = this.deps;
    // one call: the folders' look-ups of the write checks are shared by the batch's paths (each folder once)
    const lookups: WriteLookups = new Map();
    // every path resolved at once (each folder's look-ups shared); the first bad path in call order is the one reported
    const resolving = new Map<string, Promise<string>>();
    for (const e of edits) if (!resolving.has(e.path)) resolving.set(e.path, sandbox.resolveForWrite(e.path, [], lookups));
    const settled = await Promise.allSettled(resolving.values());
    const resolved = new Map([...resolving.keys()].map((k, i) => [k, settled[i]] as const));
    const byFile = new Map<string, ParsedEdit[]>();
    for (const e of edits) {
      const r = resolved.get(e.path)!;
      if (r.status === 'rejected') throw r.reason;
      byFile.set(r.value, [...(byFile.get(r.value) ?? []), e]);
    }
    // the batch lands together: no set of its files may make a git directory either (evil/HEAD + evil/refs/x ...)
    if (byFile.size > 1) await sandbox.resolveBatchForWrite([...byFile.keys()], lookups);
    return withLocks(files, [...byFile.keys()], async () => {
      // the files read several at once; planned in order, so the first bad edit is the one reported
      const perFile = [...byFile];
      const loads: Promise<LoadedText | undefined>[] = [];
      await eachBounded(perFile, 8, async ([abs, fileEdits], i) => {
        loads[i] = this.loadIfExists(abs, fileEdits);
        await loads[i].catch(() => undefined);
      });
      const plans: FilePlan[] = [];
      for (const [i, [abs, fileEdits]] of perFile.entries()) {
        const ld = await loads[i];
        const plan = await planFile(
          { viewed: this.deps.viewed, maxAnalyzeBytes: this.deps.maxAnalyzeBytes, lang: this.deps.lang ?? 'en' },
          { abs, display: sandbox.display(abs) },
          ld,
          fileEdits,
          args.format ?? 'plain',
        ).catch(async (e: unknown) => {
          throw await explainStaleRead(this.deps.history, e, abs); // a stale read names the session that changed the file
        });
        if (plan) plans.push(plan);
      }
      const result: ApplyResult = { status: 'ok', files: plans.length, edits: edits.length, results: [] };
      if (plans.length === 0) result.warnings = ['apply: the edits change nothing; no file was written'];
      if (args.preview || plans.length === 0) {
        if (args.preview) result.preview = true;
        result.results = plans.map((p) => this.fileResult(p, args.brief));
        return result;
      }
      for (const p of plans) await sandbox.checkWriteContent(p.abs, p.after);
      const stats = await commitBatch(
        files,
        this.deps.journal,
        plans.map((p) => ({ abs: p.abs, parts: [p.after], opts: { expectedContent: p.before, mkdirs: p.before === null } })),
        this.deps.fault,
      ).catch(async (e: unknown) => {
        // a file changed under the batch (an editor, git, a writer that takes no lock): say who, if an edit did
        throw e instanceof BatchConflict ? ((await this.deps.history?.explainConflict?.(e, e.file)) ?? e) : e;
      });
      result.results = plans.map((p, i) => this.fileResult(p, args.brief, stats[i]));
      await this.record(plans, result, stats);
      return result;
    });
  }

  private async loadIfExists(abs: string, edits: ParsedEdit[]): Promise<LoadedText | undefined> {
    const { files, sandbox, maxFileBytes } = this.deps;
    try {
      return await loadText({ files, sandbox, maxFileBytes }, abs, abs);
    } catch (e) {
      // a missing file is planned as a creation (only a write may do that; planFile says so otherwise)
      if (isToolError(e) && e.code === 'not_found' && (await files.stat(abs)) === undefined) return undefined;
      if (isToolError(e)) throw new ToolError(e.code, `apply: edit ${edits[0].index}: ${e.message}`, e.details);
      throw e;
    }
  }

  private fileResult(p: FilePlan, brief: boolean | undefined, stat?: FileStat): ApplyFileResult {
    const r: ApplyFileResult = { file: p.display, total: p.total };
    if (p.before === null) r.created = true;
    if (!brief && p.diff) r.diff = p.diff;
    if (p.encoding) r.encoding = p.encoding;
    readBack(r, stat);
    return r;
  }

  /** One snapshot per file, all in one group recorded together: a single be-trx rollback step, whatever the file count. */
  private async record(plans: FilePlan[], result: ApplyResult, stats: readonly FileStat[]): Promise<void> {
    const { history } = this.deps;
    if (!history) return;
    const group = randomHex(6);
    try {
      const inputs: EditRecordInput[] = [];
      for (const [i, p] of plans.entries()) {
        const undo = spliceBetween(p.before ?? Buffer.alloc(0), p.after);
        inputs.push({
          tool: 'be-apply',
          file: p.abs,
          summary: `be-apply: ${p.summary}`,
          created: p.before === null,
          offset: undo.offset,
          removed: undo.removed,
          insertedLength: undo.insertedLength,
          // the commit's digest when it is of these very bytes (a store that re-encodes them gives none)
          afterHash: stats[i]?.sha256OfGiven && stats[i].sha256 ? stats[i].sha256! : await sha256Parts(p.after),
          afterSize: p.after.length,
          group,
        });
      }
      const rec = history.recordGroup ? await history.recordGroup(inputs) : await recordOneByOne(history, inputs);
      result.event_id = rec.ids[0];
      if (rec.queue_full) result.queue_full = rec.queue_full;
    } catch (e) {
      (result.warnings ??= []).push(`the batch was written but could not be recorded for be-trx rollback: ${(e as Error).message}`);
    }
  }
}

/** A history without recordGroup (a test double): the snapshots one at a time, with the same group. */
async function recordOneByOne(history: EditHistory, inputs: readonly EditRecordInput[]): Promise<GroupRecordResult> {
  const out: GroupRecordResult = { ids: [] };
  for (const input of inputs) {
    const rec = await history.record(input);
    out.ids.push(rec.id);
    if (rec.queue_full) out.queue_full = rec.queue_full;
  }
  return out;
}
