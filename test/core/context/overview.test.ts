import { strict as assert } from 'node:assert';
import { mkdtempSync, mkdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { RepoMap } from '../../../src/core/context/repoMap';
import { getTokenizer } from '../../../src/core/memory/node/tokenizer';
import { diskReader } from '../../../src/core/context/node/readWalked';
import { diskWalker } from '../../../src/core/context/node/walk';

const tk = getTokenizer();

function write(root: string, rel: string, text: string | Buffer): void {
  mkdirSync(dirname(join(root, rel)), { recursive: true });
  writeFileSync(join(root, rel), text);
}

/** A small repository: one module everybody uses, a few users, an unrelated module, ignored and binary files. */
function makeRepo(): string {
  const root = mkdtempSync(join(tmpdir(), 'ctx-overview-'));
  write(root, '.gitignore', 'generated/\n*.gen.ts\n');
  write(
    root,
    'src/ledger/orderLedger.ts',
    [
      '/** Order ledger: totals per order. */',
      'export class OrderLedger {',
      '  entries: number[] = [];',
      '  record(amount: number): void {',
      '    this.entries.push(amount);',
      '  }',
      '}',
      'export function computeTotals(ledger: OrderLedger): number {',
      '  return ledger.entries.reduce((a, b) => a + b, 0);',
      '}',
    ].join('\n'),
  );
  for (const name of ['checkout', 'invoice', 'reports', 'shipping']) {
    write(
      root,
      `src/features/${name}.ts`,
      [
        `// ${name} feature.`,
        "import { OrderLedger, computeTotals } from '../ledger/orderLedger';",
        `export function ${name}Summary(ledger: OrderLedger): string {`,
        `  return '${name}: ' + computeTotals(ledger);`,
        '}',
      ].join('\n'),
    );
  }
  write(root, 'src/payment/refundPolicy.ts', '/** Refund rules for payments. */\nexport function refundWindowDays(): number {\n  return 30;\n}\n');
  write(root, 'src/util/strings.ts', '// String helpers.\nexport function padLeft(s: string, n: number): string {\n  return s.padStart(n);\n}\n');
  write(root, 'generated/secretModule.ts', 'export const secretGenerated = 1;\n');
  write(root, 'src/schema.gen.ts', 'export const schemaGen = 1;\n');
  write(root, 'node_modules/dep/index.js', 'module.exports = 1;\n');
  write(root, 'assets/logo.png', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 1]));
  write(root, 'assets/blob.dat', Buffer.from([1, 2, 0, 3]));
  write(root, 'README.md', '# Ledger demo\n\nSome text.\n');
  return root;
}

describe('context/overview (repository map)', () => {
  let root: string;
  before(() => (root = makeRepo()));
  after(() => rmSync(root, { recursive: true, force: true }));

  it('ranks the most referenced file first and summarises each file in at most 30 characters', async () => {
    const map = new RepoMap(root, { tokenizer: tk, reader: diskReader, walker: diskWalker });
    const r = await map.overview();
    assert.equal(r.ranked[0]!.path, 'src/ledger/orderLedger.ts', r.text);
    assert.match(r.text, /src\/ledger\/orderLedger\.ts 10L — Order ledger: totals per orde… · /);
    for (const f of r.ranked) assert.ok(f.summary.length <= 30, f.summary);
    assert.deepEqual(r.ranked[0]!.symbols.slice(0, 2).sort(), ['OrderLedger', 'computeTotals']);
    assert.match(r.text, /^overview of \. · 9 files · \d+ lines/);
  });

  it('honours .gitignore, skips node_modules and binary files', async () => {
    const map = new RepoMap(root, { tokenizer: tk, reader: diskReader, walker: diskWalker });
    const r = await map.overview({ budget: 4000 });
    assert.ok(!/secret|schema\.gen|node_modules|logo\.png|blob\.dat/.test(r.text), r.text);
    assert.equal(r.files, 9); // 8 source/markdown files + .gitignore
    assert.equal(r.shownFiles, 9);
  });

  it('respects the token budget (counted with the tokenizer), showing less as the budget shrinks', async () => {
    const map = new RepoMap(root, { tokenizer: tk, reader: diskReader, walker: diskWalker });
    let prevShown = Infinity;
    for (const budget of [1024, 300, 200, 150]) {
      const r = await map.overview({ budget });
      assert.ok(tk.count(r.text) + tk.count(r.hint) <= budget, `budget ${budget}: ${tk.count(r.text)} + ${tk.count(r.hint)}`);
      assert.ok(r.shownFiles <= prevShown);
      prevShown = r.shownFiles;
    }
    assert.ok(prevShown < 9);
  });

  it('a query moves the matching files up', async () => {
    const map = new RepoMap(root, { tokenizer: tk, reader: diskReader, walker: diskWalker });
    const plain = await map.overview({ budget: 4000 });
    const idx = plain.ranked.findIndex((f) => f.path === 'src/payment/refundPolicy.ts');
    assert.ok(idx > 0);
    const withQuery = await map.overview({ budget: 4000, query: 'refund window' });
    assert.equal(withQuery.ranked[0]!.path, 'src/payment/refundPolicy.ts', withQuery.text);
    assert.match(withQuery.text, /query "refund window" first/);
  });

  it('describes a folder inside the root', async () => {
    const map = new RepoMap(root, { tokenizer: tk, reader: diskReader, walker: diskWalker });
    const r = await map.overview({ folder: join(root, 'src/features') });
    assert.equal(r.files, 4);
    assert.match(r.text, /^overview of src\/features · 4 files/);
  });

  it('is cached and re-reads only the changed file after an edit', async () => {
    const map = new RepoMap(root, { tokenizer: tk, reader: diskReader, walker: diskWalker });
    await map.overview();
    const cold = map.stats.parsed;
    assert.equal(cold, 10); // 9 text files + blob.dat, read once to find it is binary
    await map.overview();
    assert.equal(map.stats.parsed, cold, 'an unchanged repository is not re-read');

    // Same mtime and size would hide an edit from the stat check: invalidate() covers watchers/edit tools.
    // (The body uses one more name: words of comments are no uses, so a comment-only edit would keep every edge.)
    write(root, 'src/util/strings.ts', '// Text utilities.\nexport function padLeft(s: string, n: number): string {\n  return s.trimEnd().padStart(n);\n}\n');
    const t = new Date(Date.now() + 5000);
    utimesSync(join(root, 'src/util/strings.ts'), t, t);
    const r = await map.overview({ budget: 4000 });
    assert.equal(map.stats.parsed, cold + 1, 'exactly one file re-read');
    assert.equal(map.stats.partialGraphUpdates, 1, 'defs unchanged: only its edges were updated');
    assert.match(r.text, /src\/util\/strings\.ts 4L — Text utilities\./);

    map.invalidate(join(root, 'src/features/invoice.ts'));
    await map.overview();
    assert.equal(map.stats.parsed, cold + 2);

    // A new file that defines a name others use: full graph rebuild, the file shows up.
    write(root, 'src/features/extra.ts', '// Extra.\nexport function extraThing(): number { return 1; }\n');
    const r2 = await map.overview({ budget: 4000 });
    assert.equal(map.stats.parsed, cold + 3);
    assert.match(r2.text, /src\/features\/extra\.ts/);
    rmSync(join(root, 'src/features/extra.ts'));
    const r3 = await map.overview({ budget: 4000 });
    assert.ok(!/extra\.ts/.test(r3.text));
    assert.equal(map.stats.parsed, cold + 3, 'a deletion re-reads nothing');
  });
});
