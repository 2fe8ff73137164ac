/**
 * The edit path every mutating operation shares (src/core/edits/editPath.ts): a failed write is explained by the
 * history and leaves nothing behind, a failed history record is a warning on an edit that landed, and the
 * read-back proof is the hash of the bytes on disk. Each case runs through every operation that writes.
 */
import { strict as assert } from 'node:assert';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import { ToolError } from '../../../src/core/errors';
import { NodeFileStore } from '../../../src/core/files/nodeFileStore';
import type { EditRecordInput, RecordResult } from '../../../src/core/history/types';
import type { EditService } from '../../../src/core/edits/service';
import { MemoryHistory, rejectsCode, workspace, type Workspace } from './helpers';

/** One call of each mutating operation on a.txt ('a\nb\nc\n'), with the text the file has after it. */
const OPERATIONS: { name: string; run: (svc: EditService) => Promise<unknown>; after: string }[] = [
  { name: 'be-replace', run: (s) => s.replace({ file: 'a.txt:2', content: 'B' }), after: 'a\nB\nc\n' },
  { name: 'be-insert', run: (s) => s.insert({ file: 'a.txt:3', content: 'd' }), after: 'a\nb\nc\nd\n' },
  { name: 'be-delete', run: (s) => s.delete({ file: 'a.txt:1' }), after: 'b\nc\n' },
  { name: 'be-write', run: (s) => s.write({ file: 'a.txt', content: 'whole\n' }), after: 'whole\n' },
  { name: 'be-insert-chip', run: (s) => s.insertChip({ from: 'src.txt', to: 'a.txt:0' }), after: 'chip text\na\nb\nc\n' },
];

/** A history whose record fails, or whose conflict explanation names a culprit. */
class ScriptedHistory extends MemoryHistory {
  failRecord = false;
  explained: string[] = [];
  override async record(input: EditRecordInput): Promise<RecordResult> {
    if (this.failRecord) throw new Error('history disk full (simulated)');
    return super.record(input);
  }
  async explainConflict(err: unknown, file: string): Promise<unknown> {
    this.explained.push(file);
    return new ToolError('conflict', `explained: ${(err as Error).message}`);
  }
}

function warningsOf(r: unknown): string[] {
  const o = r as { warnings?: string[]; results?: { warnings?: string[] }[] };
  return [...(o.warnings ?? []), ...(o.results?.flatMap((e) => e.warnings ?? []) ?? [])];
}

describe('core/edits the shared edit path', () => {
  let ws: Workspace;
  let history: ScriptedHistory;
  beforeEach(() => {
    history = new ScriptedHistory(new NodeFileStore()); // its store only serves rollbacks, which these cases do not run
    ws = workspace({ history });
    ws.write('a.txt', 'a\nb\nc\n');
    ws.write('src.txt', 'chip text\n');
  });
  afterEach(() => ws.cleanup());

  for (const op of OPERATIONS) {
    it(`${op.name}: a failed write goes through the history's explanation and leaves file, chips and history as they were`, async () => {
      ws.files.failWrites = true;
      await rejectsCode(op.run(ws.svc), 'conflict', /^explained: write .*disk full/);
      assert.deepEqual(history.explained, [ws.p('a.txt')]);
      assert.equal(ws.read('a.txt'), 'a\nb\nc\n');
      assert.equal(ws.chips.chips.length, 0);
      assert.equal(history.records.length, 0);
    });

    it(`${op.name}: a history that cannot record leaves the edit landed, with a warning that says so`, async () => {
      history.failRecord = true;
      const r = await op.run(ws.svc);
      assert.equal(ws.read('a.txt'), op.after);
      const warned = warningsOf(r).filter((w) => /written but could not be recorded for be-trx rollback: history disk full/.test(w));
      assert.equal(warned.length, 1, JSON.stringify(r));
      assert.equal((r as { event_id?: string }).event_id, undefined);
    });

    it(`${op.name}: the read-back proof is the sha256 of the file on disk, and the history's afterHash the full one`, async () => {
      const r = (await op.run(ws.svc)) as { sha256?: string; results?: { sha256?: string }[] };
      const full = createHash('sha256').update(fs.readFileSync(ws.p('a.txt'))).digest('hex');
      assert.equal(r.sha256 ?? r.results?.[0]?.sha256, full.slice(0, 16));
      assert.equal(history.records.length, 1);
      assert.equal(history.records[0]!.afterHash, full);
      assert.equal(history.records[0]!.tool, op.name);
    });
  }
});
