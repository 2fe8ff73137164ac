import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import fc from 'fast-check';
import { HistoryStore } from '../../../src/core/history/node/store';
import { EditAuthors } from '../../../src/core/history/author';
import { currentSpans, editVersions, rebase } from '../../../src/core/history/review';
import { spliceBetween } from '../../../src/core/history/splice';
import { sha256Hex } from '../../../src/core/util/sha256';
import { NodeFileStore } from '../../../src/core/files/nodeFileStore';
import { Sandbox } from '../../../src/core/files/sandbox';
import { isToolError, ToolError } from '../../../src/core/errors';

/** A file of segments, one per line; an edit gives one segment a value of the other alphabet (so it differs whole). */
const LOWER = 'abcdefghijklm';
const UPPER = 'NOPQRSTUVWXYZ';
const render = (segs: string[]) => segs.map((s) => `${s}\n`).join('');

describe('edit review: keep and revert one edit', () => {
  let base: string;
  let root: string;
  let files: NodeFileStore;
  const authors = new EditAuthors();

  beforeEach(async () => {
    base = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'bet-review-')));
    root = path.join(base, 'ws');
    await fs.mkdir(root);
    files = new NodeFileStore();
  });
  afterEach(() => fs.rm(base, { recursive: true, force: true }));

  const open = (name: string) => HistoryStore.open({ dir: path.join(base, name), files, sandbox: new Sandbox([root]), authors });

  async function edit(store: HistoryStore, file: string, next: Buffer, session = 's1') {
    const before = await fs.readFile(file);
    await files.write(file, next);
    return authors.run({ session, client: 'test-client' }, () =>
      store.record({ tool: 'be-replace', file, summary: 'edit', created: false, ...spliceBetween(before, next), afterHash: sha256Hex(next), afterSize: next.length }),
    );
  }

  it('reverts any edit exactly when no newer edit touched its lines, refuses (naming the edit, file untouched) when one did; rollback undoes the revert', async () => {
    const segment = (alphabet: string) => fc.string({ unit: fc.constantFrom(...alphabet.split('')), minLength: 1, maxLength: 6 });
    await fc.assert(
      fc.asyncProperty(
        fc.array(segment(LOWER), { minLength: 1, maxLength: 6 }),
        fc.array(fc.tuple(fc.nat(), segment(LOWER), segment(UPPER)), { minLength: 1, maxLength: 8 }),
        fc.nat(),
        async (initial, ops, pick) => {
          const dirName = `h-${Math.random().toString(16).slice(2)}`;
          const store = await open(dirName);
          const file = path.join(root, `${dirName}.txt`);
          const segs = [...initial];
          const flips = segs.map(() => 0);
          await fs.writeFile(file, render(segs));
          const done: { id: string; seg: number; before: string }[] = [];
          for (const [at, lower, upper] of ops) {
            const seg = at % segs.length;
            const before = segs[seg]!;
            segs[seg] = ++flips[seg]! % 2 === 1 ? upper : lower; // alternate alphabets: every edit changes the whole segment
            done.push({ id: (await edit(store, file, Buffer.from(render(segs)))).id, seg, before });
          }
          const k = done[pick % done.length]!;
          const touchedSince = done.slice(done.indexOf(k) + 1).some((d) => d.seg === k.seg);
          const bytesBefore = await fs.readFile(file);
          if (touchedSince) {
            await assert.rejects(store.review({ action: 'revert', id: k.id }), (e: unknown) => isToolError(e) && e.code === 'conflict' && /changed since by edit/.test(e.message));
            assert.deepEqual(await fs.readFile(file), bytesBefore, 'a refused revert writes nothing');
            return;
          }
          await store.review({ action: 'revert', id: k.id });
          const expected = [...segs];
          expected[k.seg] = k.before;
          assert.equal(await fs.readFile(file, 'utf8'), render(expected));
          assert.ok(!(await store.status()).snapshots.some((s) => s.id === k.id), 'the reverted edit leaves the list');
          const back = await store.rollback(1, false); // the revert is an edit of its own
          assert.equal(back.status, 'ok');
          assert.deepEqual(await fs.readFile(file), bytesBefore, 'rolling back the revert restores the bytes exactly');
        },
      ),
      { numRuns: 60 },
    );
  });

  it('refuses a revert when the file was changed outside the tools, and writes nothing', async () => {
    const store = await open('h');
    const file = path.join(root, 'a.txt');
    await fs.writeFile(file, 'one\ntwo\n');
    const { id } = await edit(store, file, Buffer.from('one\nTWO\n'));
    await fs.writeFile(file, 'one\nTWO\nthree\n');
    await assert.rejects(store.review({ action: 'revert', id }), /changed since the last edit recorded on it .*something other than these tools/);
    assert.equal(await fs.readFile(file, 'utf8'), 'one\nTWO\nthree\n');
  });

  it('keep forgets the snapshot (and older ones of the file) and leaves the file; revert of a session undoes its edits newest first, not the others', async () => {
    const store = await open('h');
    const file = path.join(root, 'a.txt');
    const other = path.join(root, 'b.txt');
    await fs.writeFile(other, 'x\n');
    const kept = await edit(store, other, Buffer.from('X\n'), 's1');
    await fs.writeFile(file, 'a\nb\nc\nd\n');
    const e1 = await edit(store, file, Buffer.from('A\nb\nc\nd\n'), 's1');
    await edit(store, file, Buffer.from('A\nB\nc\nd\n'), 's2');
    await edit(store, file, Buffer.from('A\nB\nC\nd\n'), 's1');
    await edit(store, file, Buffer.from('A\nB\nC\nD\n'), 's2');
    assert.deepEqual(await store.review({ action: 'keep', id: kept.id }), { status: 'ok', kept: [kept.id] });
    assert.equal(await fs.readFile(other, 'utf8'), 'X\n');
    const r = (await store.review({ action: 'revert', session: 's1' })) as { status: string; reverted: string[] };
    assert.equal(r.status, 'ok');
    assert.equal(r.reverted.length, 2);
    assert.equal(r.reverted[1], e1.id);
    assert.equal(await fs.readFile(file, 'utf8'), 'a\nB\nc\nD\n');
    assert.deepEqual((await store.status()).snapshots.map((x) => x.summary.startsWith('revert of')), [true, true, false, false]);
  });

  it('shows the whole file before and after an older edit, and where each edit stands now', async () => {
    const store = await open('h');
    const file = path.join(root, 'a.txt');
    await fs.writeFile(file, 'a\nb\nc\n');
    const e1 = await edit(store, file, Buffer.from('a\nB\nB2\nc\n'));
    await edit(store, file, Buffer.from('z\na\nB\nB2\nc\n'));
    const v = await store.withQueue((q) => editVersions(q, e1.id));
    assert.equal(v.before?.toString(), 'a\nb\nc\n');
    assert.equal(v.after.toString(), 'a\nB\nB2\nc\n');
    const spans = await store.withQueue(async (q) => currentSpans(q, file, await fs.readFile(file)));
    assert.deepEqual(spans.find((s) => s.id === e1.id), { id: e1.id, startLine: 3, endLine: 4 });
  });

  it('a conflict names the session whose recorded edit made the current content', async () => {
    const store = await open('h');
    const file = path.join(root, 'a.txt');
    await fs.writeFile(file, 'x\n');
    await edit(store, file, Buffer.from('y\n'), 'other-session-1');
    const err = new ToolError('conflict', `${file} was changed by someone else since it was read.`);
    const named = await store.explainConflict(err, file);
    assert.match((named as Error).message, /changed by test-client \(session other-session-1\): be-replace, edit at .* \(edit [0-9a-f]{6}\)/);
    await fs.writeFile(file, 'outside\n');
    assert.match(((await store.explainConflict(err, file)) as Error).message, /No edit recorded through these tools explains the change/);
  });

  it('rebase shifts past edits before it and stops at one over it', () => {
    const e = (offset: number, removed: number, inserted: number) =>
      ({ id: 'n', offset, removed_length: removed, inserted_length: inserted, created: false }) as Parameters<typeof rebase>[1][number];
    assert.deepEqual(rebase({ offset: 10, inserted_length: 3 }, [e(0, 2, 5)]), { offset: 13 });
    assert.deepEqual(rebase({ offset: 10, inserted_length: 3 }, [e(13, 1, 0)]), { offset: 10 });
    assert.ok('blockedBy' in rebase({ offset: 10, inserted_length: 3 }, [e(12, 1, 1)]));
  });
});
