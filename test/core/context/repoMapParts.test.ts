/**
 * The repository map's parts (file list, per-file records, ranking) and their versions: an invalidation bumps
 * exactly the parts it affects, and a warm map answers what a cold map over the same files answers.
 */
import { strict as assert } from 'node:assert';
import { mkdtempSync, mkdirSync, realpathSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import fc from 'fast-check';
import { RepoMap } from '../../../src/core/context/repoMap';
import { getTokenizer } from '../../../src/core/memory/node/tokenizer';
import { diskReader } from '../../../src/core/context/node/readWalked';
import { diskWalker } from '../../../src/core/context/node/walk';

const tk = getTokenizer();

function write(root: string, rel: string, text: string): string {
  const p = join(root, rel);
  mkdirSync(dirname(p), { recursive: true });
  writeFileSync(p, text);
  return p;
}

/** Write `text` and give the file `seconds` as its mtime (whole seconds: exact on every file system). */
function writeAt(root: string, rel: string, text: string, seconds: number): string {
  const p = write(root, rel, text);
  utimesSync(p, seconds, seconds);
  return p;
}

const LEDGER = '/** Order ledger. */\nexport class OrderLedger {\n  total = 0;\n}\n';
const user = (name: string) => `// ${name} feature.\nimport { OrderLedger } from '../ledger';\nexport function ${name}(l: OrderLedger): number {\n  return l.total;\n}\n`;

function makeRepo(): string {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'ctx-parts-')));
  write(root, 'src/ledger.ts', LEDGER);
  for (const n of ['checkout', 'invoice']) write(root, `src/features/${n}.ts`, user(n));
  write(root, 'src/util/strings.ts', '// String helpers.\nexport function padLeft(s: string): string {\n  return s;\n}\n');
  write(root, 'src/payment/policy.ts', '/** Refund rules for payments. */\nexport function windowDays(): number {\n  return 30;\n}\n');
  return root;
}

describe('context/repoMap parts: one version per part', () => {
  let root: string;
  beforeEach(() => (root = makeRepo()));
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('a query ranks by the fresh summaries: after a comment-only edit the warm map answers as a cold one', async () => {
    const map = new RepoMap(root, { tokenizer: tk, reader: diskReader, walker: diskWalker });
    const before = await map.overview({ query: 'refund', budget: 4000 });
    assert.equal(before.ranked[0]!.path, 'src/payment/policy.ts');
    // Comment words are no uses: the tags stay, only the summary (a BM25 field) changes.
    const t = statSync(join(root, 'src/util/strings.ts')).mtimeMs / 1000 + 5;
    writeAt(root, 'src/util/strings.ts', '// Refund refund refund helpers.\nexport function padLeft(s: string): string {\n  return s;\n}\n', t);
    const warm = await map.overview({ query: 'refund', budget: 4000 });
    const cold = await new RepoMap(root, { tokenizer: tk, reader: diskReader, walker: diskWalker }).overview({ query: 'refund', budget: 4000 });
    assert.deepEqual(
      warm.ranked.map((f) => f.path),
      cold.ranked.map((f) => f.path),
    );
    assert.equal(warm.text, cold.text);
  });

  it('a query asked before a comment-only edit is not answered from the reference ranks of the old summaries', async () => {
    // found by the property below: the graph kept its personalised ranks per query while the summary edit moved the
    // relevance they are personalised toward, so two matching files stayed in the old order
    const beta = (word: string) => `// ${word} notes.\nimport { OrderLedger } from './ledger';\nexport function beta(l: OrderLedger): number {\n  return 1;\n}\n`;
    writeAt(root, 'src/beta.ts', beta('plain'), 1_700_000_001);
    const map = new RepoMap(root, { tokenizer: tk, reader: diskReader, walker: diskWalker });
    await map.overview({ query: 'refund', budget: 4000 });
    writeAt(root, 'src/beta.ts', beta('refund'), 1_700_000_002);
    map.invalidate(join(root, 'src/beta.ts'));
    const warm = await map.overview({ query: 'refund', budget: 4000 });
    const cold = await new RepoMap(root, { tokenizer: tk, reader: diskReader, walker: diskWalker }).overview({ query: 'refund', budget: 4000 });
    assert.deepEqual(warm.ranked.map((f) => f.path), cold.ranked.map((f) => f.path));
  });

  it('watched: an invalidated file is re-read even when its size and mtime did not change', async () => {
    const p = writeAt(root, 'src/util/strings.ts', '// String helpers.\nexport function padLeft(s: string): string {\n  return s;\n}\n', 1_700_000_000);
    const map = new RepoMap(root, { tokenizer: tk, reader: diskReader, walker: diskWalker });
    await map.overview();
    map.setWatched(true);
    // Two writes within one timestamp tick, same length: stat cannot tell them apart, the invalidation can.
    writeAt(root, 'src/util/strings.ts', '// Spring helpers.\nexport function padLeft(s: string): string {\n  return s;\n}\n', 1_700_000_000);
    map.invalidate(p);
    const r = await map.overview({ budget: 4000 });
    assert.match(r.text, /src\/util\/strings\.ts 4L — Spring helpers\./);
  });

  it('a file touched with the same bytes is re-read, but no part changes and the overview is the memoized one', async () => {
    const map = new RepoMap(root, { tokenizer: tk, reader: diskReader, walker: diskWalker });
    const first = await map.overview();
    const versions = map.versions();
    const parsed = map.stats.parsed;
    const p = join(root, 'src/features/invoice.ts');
    utimesSync(p, statSync(p).mtimeMs / 1000 + 5, statSync(p).mtimeMs / 1000 + 5);
    const again = await map.overview();
    assert.equal(map.stats.parsed, parsed + 1, 'the new mtime makes it read');
    assert.deepEqual(map.versions(), versions);
    assert.equal(again, first, 'same bytes: the memoized overview, not a recomputed one');
  });

  it('a body edit bumps the records only; a new definition the ranking too; a new file the list, records and ranking', async () => {
    const map = new RepoMap(root, { tokenizer: tk, reader: diskReader, walker: diskWalker });
    await map.overview();
    let v = map.versions();
    const parsed = map.stats.parsed;
    const p = join(root, 'src/features/invoice.ts');
    const later = () => statSync(p).mtimeMs / 1000 + 5;

    writeAt(root, 'src/features/invoice.ts', user('invoice') + '// more\n', later());
    await map.overview();
    assert.equal(map.stats.parsed, parsed + 1, 'only the edited file is re-read');
    let now = map.versions();
    assert.deepEqual({ files: now.files, ranking: now.ranking }, { files: v.files, ranking: v.ranking });
    assert.ok(now.records > v.records);
    v = now;

    writeAt(root, 'src/features/invoice.ts', user('invoice') + 'export function invoiceTwo(): number {\n  return 2;\n}\n', later());
    await map.overview();
    now = map.versions();
    assert.equal(now.files, v.files, 'the same files');
    assert.ok(now.records > v.records && now.ranking > v.ranking);
    v = now;

    const walks = map.stats.walks;
    write(root, 'src/features/extra.ts', user('extra'));
    const r = await map.overview({ budget: 4000 });
    now = map.versions();
    assert.ok(now.files > v.files && now.records > v.records && now.ranking > v.ranking, JSON.stringify({ v, now }));
    assert.equal(map.stats.walks, walks + 1, 'unwatched: the list is re-walked');
    assert.equal(map.stats.parsed, parsed + 3, 'and only the new file read');
    assert.match(r.text, /src\/features\/extra\.ts/);
  });

  it('watched: a reported new file joins the list without a walk; an unchanged repository bumps nothing', async () => {
    const map = new RepoMap(root, { tokenizer: tk, reader: diskReader, walker: diskWalker });
    await map.overview();
    map.setWatched(true);
    const v = map.versions();
    await map.overview();
    assert.deepEqual(map.versions(), v);
    map.invalidate(write(root, 'src/new.ts', 'export const fresh = 1;\n'));
    await map.overview();
    assert.ok(map.versions().files > v.files);
    assert.equal(map.stats.walks, 1);
  });

  it('a warm overview shows a changed, an added and a deleted file (the layout reuses its sums and trees only while no file changed)', async () => {
    for (const watched of [false, true]) {
      const map = new RepoMap(root, { tokenizer: tk, reader: diskReader, walker: diskWalker });
      const cold = await map.overview({ budget: 2000 });
      map.setWatched(watched);
      const fresh = async () => {
        const cold2 = await new RepoMap(root, { tokenizer: tk, reader: diskReader, walker: diskWalker }).overview({ budget: 2000 });
        const warm = await map.overview({ budget: 2000 });
        assert.equal(warm.text, cold2.text, `watched ${watched}`);
        return warm;
      };
      // changed: two more lines in util/, one query word in its summary
      const changed = writeAt(root, 'src/util/strings.ts', '// String helpers for ledgers.\nexport function padLeft(s: string): string {\n  return s;\n}\n\n\n', 2_000_000_000);
      map.invalidate(changed);
      const a = await fresh();
      assert.equal(a.lines, cold.lines + 2);
      assert.match(a.text, /util\/ 1 files, 6 lines/);
      assert.equal((await map.overview({ budget: 2000, query: 'ledgers strings' })).ranked[0]!.path, 'src/util/strings.ts');
      // added: a new folder in the tree, a new file in the count
      const added = write(root, 'src/report/summary.ts', '// Report.\nexport function reportTotal(): number {\n  return 1;\n}\n');
      map.invalidate(added);
      const b = await fresh();
      assert.equal(b.files, cold.files + 1);
      assert.match(b.text, /report\/ 1 files, 4 lines/);
      // deleted: out of the tree and the count
      rmSync(added);
      map.invalidate(added);
      const c = await fresh();
      assert.equal(c.files, cold.files);
      assert.doesNotMatch(c.text, /report\//);
      rmSync(root, { recursive: true, force: true });
      root = makeRepo();
    }
  });

  it('property: after any sequence of edits, additions, removals and touches a warm map answers as a cold one', async function () {
    this.timeout(60_000);
    const names = ['alpha', 'beta', 'gamma'];
    const op = fc.oneof(
      fc.record({ kind: fc.constant('summary' as const), file: fc.constantFrom(...names), word: fc.constantFrom('refund', 'ledger', 'policy', 'shipping') }),
      fc.record({ kind: fc.constant('body' as const), file: fc.constantFrom(...names), lines: fc.integer({ min: 0, max: 6 }) }),
      fc.record({ kind: fc.constant('defs' as const), file: fc.constantFrom(...names), uses: fc.boolean() }),
      fc.record({ kind: fc.constant('remove' as const), file: fc.constantFrom(...names) }),
      fc.record({ kind: fc.constant('touch' as const), file: fc.constantFrom(...names) }),
    );
    const query = fc.constantFrom(undefined, 'refund', 'ledger policy');
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(op, query, fc.boolean()), { minLength: 2, maxLength: 5 }), async (steps) => {
        const dir = makeRepo();
        try {
          const map = new RepoMap(dir, { tokenizer: tk, reader: diskReader, walker: diskWalker });
          await map.overview();
          let tick = 1_700_000_000;
          const state = new Map<string, { word: string; lines: number; extra: boolean; uses: boolean }>();
          const render = (s: { word: string; lines: number; extra: boolean; uses: boolean }, name: string) =>
            `// ${s.word} notes.\nimport { OrderLedger } from './ledger';\nexport function ${name}(l: OrderLedger): number {\n` +
            '  return 1;\n'.repeat(s.lines + 1) +
            '}\n' +
            (s.extra ? `export function ${name}Extra(): number {\n  return ${s.uses ? 'padLeft' : '2'};\n}\n` : '');
          for (const [o, q, watched] of steps) {
            map.setWatched(watched);
            const rel = `src/${o.file}.ts`;
            const s = state.get(o.file) ?? { word: 'plain', lines: 0, extra: false, uses: false };
            if (o.kind === 'remove') {
              rmSync(join(dir, rel), { force: true });
              state.delete(o.file);
            } else if (o.kind === 'touch') {
              if (state.has(o.file)) utimesSync(join(dir, rel), ++tick, tick);
            } else {
              if (o.kind === 'summary') s.word = o.word;
              if (o.kind === 'body') s.lines = o.lines;
              if (o.kind === 'defs') Object.assign(s, { extra: !s.extra, uses: o.uses });
              state.set(o.file, s);
              writeAt(dir, rel, render(s, o.file), ++tick);
            }
            map.invalidate(join(dir, rel));
            // Every step asks the plain question too: its kept ranking is what most edits must refresh.
            const cold = new RepoMap(dir, { tokenizer: tk, reader: diskReader, walker: diskWalker });
            for (const query of [undefined, q]) {
              const warm = await map.overview({ query, budget: 4000 });
              assert.equal(warm.text, (await cold.overview({ query, budget: 4000 })).text, JSON.stringify({ step: o, query }));
            }
          }
        } finally {
          rmSync(dir, { recursive: true, force: true });
        }
      }),
      { numRuns: 40 },
    );
  });
});
