/**
 * NodeFileStore.lockAll (a be-apply batch's locks taken at once): two stores on the same files behave as two
 * processes (each its own lock files' owner view, the same lock files), taking random overlapping sets in random
 * orders, mixed with single locks: nobody deadlocks (a wait would end in the lock timeout) and no file is ever held
 * by two at once.
 */
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import fc from 'fast-check';
import { NodeFileStore } from '../../../src/core/files/nodeFileStore';

describe('core/files NodeFileStore.lockAll', function () {
  this.timeout(120_000);
  let base: string;
  beforeEach(async () => (base = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'bet-lockall-')))));
  afterEach(() => fs.rm(base, { recursive: true, force: true }));

  it('two stores taking overlapping batches and single locks: no deadlock, never two holders of one file (property)', async () => {
    // two folders (each pinned once per batch) and one that does not exist yet (nothing to lock on there)
    await fs.mkdir(path.join(base, 'sub'));
    const files = [...Array.from({ length: 8 }, (_, i) => path.join(base, i < 4 ? '' : 'sub', `f${i}.txt`)), path.join(base, 'new', 'n.txt')];
    for (const f of files.slice(0, 8)) await fs.writeFile(f, 'x');
    const stores = [0, 1].map(() => new NodeFileStore({ crossProcess: true, lockTimeoutMs: 4_000 }));
    const holder = new Map<string, number>();
    const hold = async (who: number, paths: readonly string[]) => {
      for (const p of paths.filter((q) => !q.includes(`${path.sep}new${path.sep}`))) {
        assert.equal(holder.get(p), undefined, `${p} held by ${holder.get(p)} and ${who}`);
        holder.set(p, who);
      }
      await new Promise((r) => setTimeout(r, Math.random() * 3));
      for (const p of paths) if (holder.get(p) === who) holder.delete(p);
    };
    const job = fc.record({ store: fc.integer({ min: 0, max: 1 }), set: fc.subarray(files, { minLength: 1 }), single: fc.boolean() });
    await fc.assert(
      fc.asyncProperty(fc.array(job, { minLength: 2, maxLength: 8 }), async (jobs) => {
        await Promise.all(
          jobs.map((j, k) => {
            const s = stores[j.store];
            const who = k;
            if (j.single) return s.lock(j.set[0], () => hold(who, [j.set[0]]));
            const order = [...j.set].reverse(); // any order given: the store sorts
            return s.lockAll(order, () => hold(who, j.set));
          }),
        );
      }),
      { numRuns: 40 },
    );
    const left = [...(await fs.readdir(base)), ...(await fs.readdir(path.join(base, 'sub')))].filter((n) => !/^(f\d\.txt|sub)$/.test(n));
    assert.deepEqual(left, [], 'every lock file released');
  });

  it("a batch's locks in one folder are one lock file under each file's lock name, all gone after", async () => {
    const paths = ['a', 'b', 'c'].map((n) => path.join(base, `${n}.txt`));
    for (const p of paths) await fs.writeFile(p, 'x');
    const store = new NodeFileStore({ crossProcess: true, lockTimeoutMs: 2_000 });
    await store.lockAll(paths, async () => {
      const inodes = await Promise.all(['a', 'b', 'c'].map(async (n) => (await fs.lstat(path.join(base, `.${n}.txt.be-lock`))).ino));
      assert.equal(new Set(inodes).size, 1);
    });
    assert.deepEqual((await fs.readdir(base)).sort(), ['a.txt', 'b.txt', 'c.txt']);
  });

  it('inside lockAll a write to one of the paths uses the held lock', async () => {
    const f = path.join(base, 'a.txt');
    await fs.writeFile(f, 'old');
    const store = new NodeFileStore({ crossProcess: true, lockTimeoutMs: 2_000 });
    await store.lockAll([f, path.join(base, 'b.txt')], () => store.write(f, Buffer.from('new'), { expectedContent: Buffer.from('old') }));
    assert.equal(await fs.readFile(f, 'utf8'), 'new');
  });
});
