/**
 * The repository map's compact paths for big folders: a warm walk lists only the changed and the new files (the
 * others are marked, not copied), every record is made with its query terms once (none re-made per query), and the
 * ranking keeps entries for the files an overview can show, not for all of them.
 */
import { strict as assert } from 'node:assert';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import fc from 'fast-check';
import { Graph } from '../../../src/core/context/rank/graph';
import { NameCounts } from '../../../src/core/context/nameCounts';
import { walkFilesSliced } from '../../../src/core/context/node/walk';
import { diskReader } from '../../../src/core/context/node/readWalked';
import { FileRecords, type FileRecord } from '../../../src/core/context/fileRecords';
import { MAX_RANKED, Ranking } from '../../../src/core/context/ranking';
import { FileList } from '../../../src/core/context/fileList';
import { diskWalker } from '../../../src/core/context/node/walk';

function write(root: string, rel: string, text: string | Buffer): string {
  const p = join(root, rel);
  mkdirSync(dirname(p), { recursive: true });
  writeFileSync(p, text);
  utimesSync(p, 1000, 1000);
  return p;
}

describe('context: the map at scale', () => {
  let root: string;
  beforeEach(() => {
    root = realpathSync(mkdtempSync(join(tmpdir(), 'ctx-scale-')));
    for (let i = 0; i < 30; i++) write(root, `d${i % 3}/f${i}.ts`, `export const v${i} = ${i};\n`);
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('walkFilesSliced lists only what keep accepts, asks about every regular file, and counts the limit over all', async () => {
    const asked: string[] = [];
    const { files } = await walkFilesSliced(root, { keep: (rel) => (asked.push(rel), rel.endsWith('7.ts')) });
    assert.equal(asked.length, 30);
    assert.deepEqual(files.map((f) => f.rel), ['d1/f7.ts', 'd2/f17.ts', 'd0/f27.ts'].sort((a, b) => (a < b ? -1 : 1)));
    const all = (await walkFilesSliced(root)).files;
    assert.deepEqual(asked, all.map((f) => f.rel), 'asked in the walk order');
    const capped = await walkFilesSliced(root, { maxFiles: 10, keep: () => false });
    assert.deepEqual([capped.files.length, capped.truncated], [0, true]);
  });

  it('a warm walk of the file list returns the changed, the new and the removed, and nothing else', async () => {
    const list = new FileList(root, diskWalker);
    assert.equal((await list.changes()).toRead.length, 30);
    assert.deepEqual(await list.changes(), { toRead: [], removed: [], walked: true });
    write(root, 'd0/f3.ts', 'export const changed = 1;\n');
    utimesSync(join(root, 'd0/f3.ts'), 2000, 2000);
    write(root, 'd9/new.ts', 'export const fresh = 1;\n');
    rmSync(join(root, 'd1/f4.ts'));
    const c = await list.changes();
    assert.deepEqual(c.toRead.map((f) => f.rel).sort(), ['d0/f3.ts', 'd9/new.ts']);
    assert.deepEqual(c.removed, ['d1/f4.ts']);
    assert.equal(list.size, 30);
    assert.deepEqual(await list.changes(), { toRead: [], removed: [], walked: true });
  });

  it('every record carries its terms: binary, empty, unreadable and code files alike', () => {
    write(root, 'bin/data.ts', Buffer.from([1, 0, 2, 0]));
    write(root, 'e/empty.ts', '');
    write(root, 'u/locked.ts', 'export const x = 1;\n');
    const records = new FileRecords(root, diskReader);
    // a read refused by the system (EACCES; a chmod does not stop root, so the port refuses here)
    const refusing = new FileRecords(root, {
      read: () => Promise.reject(new Error('EACCES')),
      readSync: () => {
        throw new Error('EACCES');
      },
    });
    const at = (rel: string, from = records) => {
      const abs = join(root, rel);
      const st = statSync(abs);
      return from.readSync({ abs, rel, size: st.size, mtimeMs: st.mtimeMs })!.rec!;
    };
    for (const rel of ['bin/data.ts', 'e/empty.ts', 'd0/f0.ts']) assert.ok(at(rel).terms, `${rel} has its terms`);
    const locked = at('u/locked.ts', refusing);
    assert.ok(locked.terms?.includes('lock'), 'an unreadable file is matched by its path, from terms made once');
    assert.equal(at('bin/data.ts').binary, true);
    const big = at('d0/f0.ts');
    assert.ok(big.tags && Object.isFrozen(big.tags.exported));
  });
});

describe('context: the ranking keeps only what an overview can show', () => {
  it('ranks every file, keeps the first MAX_RANKED in order (score, then lines, then path), counts all', () => {
    const n = MAX_RANKED + 100;
    const recs: FileRecord[] = Array.from({ length: n }, (_, i) => ({ rel: `f${i}.txt`, lines: i % 7, linesEstimated: false, languageId: 'plaintext', binary: false, summary: '', terms: undefined }));
    const ranking = new Ranking();
    ranking.update([], recs.map((rec) => ({ old: undefined, rec })), () => recs);
    const r = ranking.rank(recs, '', [], 1);
    assert.equal(r.total, n);
    assert.equal(r.ranked.length, MAX_RANKED);
    const expected = recs
      .map((f) => f.rel)
      .sort((a, b) => recs[+b.slice(1, -4)]!.lines - recs[+a.slice(1, -4)]!.lines || (a < b ? -1 : 1))
      .slice(0, MAX_RANKED);
    assert.deepEqual(r.ranked.map((f) => f.path), expected);
  });
});

describe('context: the graph folds updated files in place of their old edges', () => {
  it('updated files rank as a graph built from scratch over the same tags (property)', () => {
    const tagsOf = (defs: string[], uses: string[]) => ({ defs, refs: new NameCounts(uses.map((u) => [u, 1] as [string, number])), imports: [], summary: '', exported: [] });
    const names = ['alphaName', 'betaValue', 'gammaItem', 'deltaThing', 'epsilonNode'];
    const file = fc.record({ defs: fc.subarray(names, { maxLength: 2 }), uses: fc.subarray(names) });
    fc.assert(
      fc.property(fc.array(file, { minLength: 2, maxLength: 12 }), fc.array(fc.tuple(fc.nat(), file), { maxLength: 6 }), (files, edits) => {
        const before = files.map((f, i) => ({ rel: `f${i}.ts`, tags: tagsOf(f.defs, f.uses) }));
        const graph = new Graph(before.slice());
        const after = before.slice();
        for (const [at, f] of edits) {
          const i = at % after.length;
          after[i] = { rel: after[i]!.rel, tags: tagsOf(f.defs, f.uses) };
          graph.updateFiles([after[i]!]);
        }
        const fresh = new Graph(after);
        assert.deepEqual([...graph.rank(new Map(), '')], [...fresh.rank(new Map(), '')]);
      }),
      { numRuns: 150 },
    );
  });
});

describe('context: the graph keeps each name\'s total uses with its users', () => {
  it('usesOf is the sum of every file\'s count, after builds and updates alike (property)', () => {
    const names = ['alphaName', 'betaValue', 'gammaItem', 'deltaThing'];
    const uses = fc.array(fc.tuple(fc.constantFrom(...names), fc.integer({ min: 1, max: 4 })), { maxLength: 4 });
    const file = fc.record({ defs: fc.subarray(names, { maxLength: 2 }), uses });
    const tagsOf = (f: { defs: string[]; uses: [string, number][] }) => ({ defs: f.defs, refs: new NameCounts(new Map(f.uses)), imports: [], summary: '', exported: [] });
    const total = (files: { tags: ReturnType<typeof tagsOf> }[], name: string) => files.reduce((n, f) => n + (f.tags.refs.get(name) ?? 0), 0);
    fc.assert(
      fc.property(fc.array(file, { minLength: 1, maxLength: 8 }), fc.array(fc.tuple(fc.nat(), file), { maxLength: 8 }), (files, edits) => {
        const now = files.map((f, i) => ({ rel: `f${i}.ts`, tags: tagsOf(f) }));
        const graph = new Graph(now.slice());
        for (const name of names) assert.equal(graph.usesOf(name), total(now, name), `${name} when built`);
        for (const [at, f] of edits) {
          const i = at % now.length;
          now[i] = { rel: now[i]!.rel, tags: tagsOf(f) };
          graph.updateFiles([now[i]!]);
          for (const name of names) assert.equal(graph.usesOf(name), total(now, name), `${name} after an update`);
        }
      }),
      { numRuns: 200 },
    );
  });
});

describe('context: PageRank runs reuse their working arrays', () => {
  it('a run after others ranks as the first run on a fresh graph (property)', () => {
    const names = ['alphaName', 'betaValue', 'gammaItem', 'deltaThing'];
    const file = fc.record({ defs: fc.subarray(names, { maxLength: 2 }), uses: fc.subarray(names) });
    const tagsOf = (f: { defs: string[]; uses: string[] }) => ({ defs: f.defs, refs: new NameCounts(f.uses.map((u) => [u, 1] as [string, number])), imports: [], summary: '', exported: [] });
    const restart = fc.array(fc.tuple(fc.nat(), fc.double({ min: 0, max: 1, noNaN: true })), { maxLength: 4 });
    fc.assert(
      fc.property(fc.array(file, { minLength: 1, maxLength: 10 }), fc.array(restart, { minLength: 1, maxLength: 4 }), (files, restarts) => {
        const recs = files.map((f, i) => ({ rel: `f${i}.ts`, tags: tagsOf(f) }));
        const graph = new Graph(recs.slice());
        for (const [k, r] of restarts.entries()) {
          const vector = new Map(r.map(([at, x]) => [`f${at % recs.length}.ts`, x] as [string, number]));
          const key = `q${k}`;
          assert.deepEqual([...graph.rank(vector, key)], [...new Graph(recs.slice()).rank(vector, key)]);
        }
      }),
      { numRuns: 150 },
    );
  });
});
