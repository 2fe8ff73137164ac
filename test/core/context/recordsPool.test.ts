/**
 * The cold index's second describer: a record described on the worker thread and rebuilt here (recordData.ts) is
 * the record this thread makes of the same bytes, and a map that shares its describing with the worker (or with a
 * describer that fails) holds the same records and answers the same overviews as one that does not.
 */
import { strict as assert } from 'node:assert';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import fc from 'fast-check';
import { described, emptyRecord, type FileRecord } from '../../../src/core/context/fileRecords';
import { fromRecordData, toRecordData } from '../../../src/core/context/recordData';
import { RecordsPool } from '../../../src/core/context/node/recordsPool';
import { RepoMap } from '../../../src/core/context/repoMap';
import type { RecordDescriber } from '../../../src/core/context/recordData';
import { diskReader } from '../../../src/core/context/node/readWalked';
import { diskWalker } from '../../../src/core/context/node/walk';
import { getTokenizer } from '../../../src/core/memory/node/tokenizer';

const tk = getTokenizer();
const pieces = ['export ', 'class ', 'function ', 'def ', 'import ', "from './util'", "require('../lib/x')", 'const ', 'value', 'Order', 'ledger_total', '(', ')', '{', '}', ';', ':', ' ', '\n', '  ', '\t', '"', "'", '//', '/*', '*/', '#', '"""', 'café', '\0', '$x', '0x1F'];
const text = fc.array(fc.constantFrom(...pieces), { maxLength: 120 }).map((xs) => xs.join(''));
const rel = fc.tuple(fc.constantFrom('src/a', 'lib/order_ledger', 'README', 'x'), fc.constantFrom('.ts', '.py', '.c', '.go', '.md', '.json', '.txt', '')).map(([b, e]) => b + e);

/** Every record of a map (its private store: the records are what this test compares). */
function recordsOf(map: RepoMap): Map<string, FileRecord> {
  const store = (map as unknown as { records: { values(): Iterable<FileRecord> } }).records;
  return new Map([...store.values()].map((r) => [r.rel, r]));
}

function write(root: string, relPath: string, body: string | Buffer): void {
  const p = join(root, relPath);
  mkdirSync(dirname(p), { recursive: true });
  writeFileSync(p, body);
}

/** `n` files in several languages in each of 16 folders (every batch holds some of each), a binary file, one too large to tag. */
function makeFolder(n: number): string {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'ctx-records-')));
  for (let i = 0; i < n; i++) {
    const kind = i % 4;
    if (kind === 0) write(root, `part${i % 16}/src/order${i}.ts`, `/** Order part ${i}. */\nimport { Ledger } from '../ledger';\nimport { money } from './money${i % 3}';\nexport class Order${i} {\n  total(l: Ledger): number {\n    return l.value + ${i};\n  }\n}\n`);
    else if (kind === 1) write(root, `part${i % 16}/py/mod${i}.py`, `"""Refund rules ${i}."""\nimport os\n\ndef refund_${i}(amount):\n    return amount * ${i}\n`);
    else if (kind === 2) write(root, `part${i % 16}/unit${i}.c`, `// Unit ${i}\n#include "unit.h"\nint unit_${i}(int x) {\n  return x + ${i};\n}\n`);
    else write(root, `part${i % 16}/page${i}.md`, `# Page ${i}\n\nHow the ledger works, part ${i}.\n`);
  }
  write(root, 'assets/logo.bin', Buffer.from([0, 1, 2, 3, 255, 0, 0, 7]));
  write(root, 'gen/big.ts', `export const table = [\n${'  1,\n'.repeat(300_000)}];\n`);
  return root;
}

describe('context: records described on a worker thread', () => {
  it('a record rebuilt from its plain data (through a structured clone) is the record this thread makes (property)', () => {
    fc.assert(
      fc.property(text, rel, fc.boolean(), (body, name, asBinary) => {
        const bytes = asBinary ? Buffer.concat([Buffer.from(body), Buffer.from([0, 0, 0])]) : Buffer.from(body);
        const here = described(emptyRecord(name), bytes);
        const data = structuredClone(toRecordData(described(emptyRecord(name), bytes)));
        assert.deepEqual(fromRecordData(emptyRecord(name), data), here);
      }),
      { numRuns: 1500 },
    );
  });

  it("the worker's records are this thread's; a lost worker rejects its batch, and the next batch starts a fresh one", async function () {
    this.timeout(30_000);
    const pool = new RecordsPool();
    try {
      const files = [
        { rel: 'src/order.ts', bytes: Buffer.from("import { x } from './x';\nexport class Order {\n  total(): number {\n    return 1;\n  }\n}\n") },
        { rel: 'empty.py', bytes: Buffer.alloc(0) },
        { rel: 'logo.png', bytes: Buffer.from([137, 80, 78, 71, 0, 0]) },
        { rel: 'notes.md', bytes: Buffer.from('# Notes\n\nthe ledger\n') },
      ];
      const data = await pool.describe(files);
      assert.equal(data.length, files.length);
      for (const [i, f] of files.entries()) assert.deepEqual(fromRecordData(emptyRecord(f.rel), data[i]!), described(emptyRecord(f.rel), f.bytes));
      assert.equal(pool.running, true);
      // the worker ends while a batch is under way: that batch rejects, the pool starts over
      const worker = (pool as unknown as { worker: { terminate(): Promise<number> } }).worker;
      // a batch the worker takes ~0.1 s over (900 KB of code to tag): ended at once, it cannot have answered
      const slow = { rel: 'src/slow.ts', bytes: Buffer.from('export function total(order: Order): number { return order.value + ledger.sum; }\n'.repeat(11_000)) };
      const lost = pool.describe([slow]);
      void worker.terminate();
      await assert.rejects(lost, /records worker stopped|ended/);
      const again = await pool.describe(files.slice(0, 1));
      assert.deepEqual(fromRecordData(emptyRecord(files[0]!.rel), again[0]!), described(emptyRecord(files[0]!.rel), files[0]!.bytes));
    } finally {
      await pool.close();
    }
    await assert.rejects(pool.describe([]), /closed/);
  });

  it('a map that shares its cold read with the worker, or with a describer that fails, holds the same records and answers the same', async function () {
    this.timeout(60_000);
    const root = makeFolder(640);
    const pool = new RecordsPool();
    let calls = 0;
    const failing: RecordDescriber = {
      describe: (files) => (++calls > 1 ? Promise.reject(new Error('gone')) : pool.describe(files)),
    };
    let used = 0;
    const counting: RecordDescriber = { describe: (files) => ((used += files.length), pool.describe(files)) };
    try {
      const alone = new RepoMap(root, { tokenizer: tk, reader: diskReader, walker: diskWalker });
      const shared = new RepoMap(root, { tokenizer: tk, reader: diskReader, walker: diskWalker, describer: counting });
      const flaky = new RepoMap(root, { tokenizer: tk, reader: diskReader, walker: diskWalker, describer: failing });
      const questions = [{}, { query: 'refund rules' }, { query: 'order ledger total', budget: 3000 }, { folder: join(root, 'part3') }];
      for (const q of questions) {
        const a = await alone.overview(q);
        assert.deepEqual(await shared.overview(q), a);
        assert.deepEqual(await flaky.overview(q), a);
      }
      assert.ok(used > 64, `the worker described ${used} files`);
      assert.ok(calls >= 2, 'the failing describer answered one batch and failed the next');
      const want = recordsOf(alone);
      assert.ok(want.size > 640, `${want.size} records`);
      assert.deepEqual(recordsOf(shared), want);
      assert.deepEqual(recordsOf(flaky), want);
    } finally {
      await pool.close();
      rmSync(root, { recursive: true, force: true });
    }
  });
});
