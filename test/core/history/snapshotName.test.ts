/**
 * A batch file (v 3) is named after its first part, or after a part that left before it (a crash between a
 * rewrite and its rename): a name claiming a later part, or the first part's seq with another id, is refused.
 */
import { strict as assert } from 'node:assert';
import { parseSnapshots, snapshotBase, type SnapshotFile } from '../../../src/core/history/snapshotFile';

const part = (seq: number, id: string): SnapshotFile => ({
  v: 2, workspace: 'w', id, seq, tool: 'be-apply', file: `/ws/f${seq}.txt`, summary: 's', created: false, offset: 0,
  inserted_length: 1, after_hash: 'h', after_size: 1, removed_length: 0, removed_b64: '', created_at: 1, created_ms: 1000, group: 'g',
});
const batch = JSON.stringify({ v: 3, workspace: 'w', group: 'g', parts: [part(5, 'aaaaaa'), part(6, 'bbbbbb')] });
const parse = (seq: number, id: string) => parseSnapshots(`${snapshotBase(seq, id)}.json`, id, seq, batch, new Set());

describe('core/history: the name of a batch snapshot file', () => {
  it('its first part\'s name: both parts', () => {
    const r = parse(5, 'aaaaaa');
    assert.ok(Array.isArray(r), String(r));
    assert.deepEqual(r.map((e) => e.meta.id), ['aaaaaa', 'bbbbbb']);
  });
  it('the name of a part that left before the first: both parts', () => {
    const r = parse(4, 'cccccc');
    assert.ok(Array.isArray(r), String(r));
    assert.equal(r.length, 2);
  });
  it('the first part\'s seq with another id, or a later seq: refused', () => {
    for (const [seq, id] of [[5, 'cccccc'], [6, 'bbbbbb'], [7, 'cccccc']] as const) assert.equal(typeof parse(seq, id), 'string', `${seq} ${id}`);
  });
});
