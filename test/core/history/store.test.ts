import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import fc from 'fast-check';
import { HistoryStore, workspaceHistoryDir, INLINE_REMOVED_MAX } from '../../../src/core/history/node/store';
import { applyInverse, spliceBetween } from '../../../src/core/history/splice';
import { sha256Hex } from '../../../src/core/util/sha256';
import { FakeClock, removeTempDirs, tempDir } from '../chips/helpers';
import { NodeFileStore } from '../../../src/core/files/nodeFileStore';
import { Sandbox } from '../../../src/core/files/sandbox';

describe('HistoryStore', () => {
  let root: string;
  let dir: string;
  let files: NodeFileStore;
  let clock: FakeClock;
  let warnings: string[];
  const open = (extra: Partial<Parameters<typeof HistoryStore.open>[0]> = {}) =>
    HistoryStore.open({ dir, files, sandbox: new Sandbox([root]), clock, log: (m) => warnings.push(m), ...extra });

  /** Performs an edit the way EditService will: write the new bytes, record the inverse splice. */
  async function edit(store: HistoryStore, file: string, next: string | Buffer, tool = 'be-write') {
    const before = await fs.readFile(file).catch(() => undefined);
    const after = Buffer.isBuffer(next) ? next : Buffer.from(next);
    await files.write(file, after);
    const splice = spliceBetween(before ?? Buffer.alloc(0), after);
    return store.record({
      tool,
      file,
      summary: `${tool} on ${path.basename(file)}`,
      created: before === undefined,
      ...splice,
      afterHash: sha256Hex(after),
      afterSize: after.length,
    });
  }

  beforeEach(async () => {
    root = await tempDir('bet-history-');
    dir = path.join(root, '.history');
    files = new NodeFileStore();
    clock = new FakeClock();
    warnings = [];
  });
  afterEach(removeTempDirs);

  it('records edits and rolls them back newest first', async () => {
    const store = await open();
    const a = path.join(root, 'a.txt');
    await fs.writeFile(a, 'one\ntwo\nthree\n');
    const r1 = await edit(store, a, 'one\nTWO\nthree\n', 'be-replace');
    const r2 = await edit(store, a, 'zero\none\nTWO\nthree\n', 'be-insert');
    assert.match(r1.id, /^[0-9a-f]{6}$/);
    assert.equal(r1.queue_full, undefined);
    const back1 = await store.rollback(1, false);
    assert.deepEqual(back1, { status: 'ok', rolled_back: 1, restored: [{ id: r2.id, file: a, action: 'restored' }] });
    assert.equal(await fs.readFile(a, 'utf8'), 'one\nTWO\nthree\n');
    const back2 = await store.rollback(5, false); // clamped to the queue length
    assert.equal(back2.rolled_back, 1);
    assert.equal(await fs.readFile(a, 'utf8'), 'one\ntwo\nthree\n');
    assert.deepEqual(await store.rollback(1, false), { status: 'ok', rolled_back: 0, restored: [] });
  });

  it('undoes runs of one file in memory and writes it once, across interleaved files', async () => {
    const counting = new (class extends NodeFileStore {
      writes = 0;
      override async write(p: string, b: Uint8Array, o?: Parameters<NodeFileStore['write']>[2]) {
        this.writes++;
        return super.write(p, b, o);
      }
    })();
    files = counting;
    const store = await open();
    const a = path.join(root, 'a.txt');
    const b = path.join(root, 'b.txt');
    await fs.writeFile(a, 'a0');
    await fs.writeFile(b, 'b0');
    const ids = [];
    ids.push((await edit(store, a, 'a1')).id);
    ids.push((await edit(store, b, 'b1')).id);
    ids.push((await edit(store, a, 'a2')).id);
    ids.push((await edit(store, a, 'a3')).id);
    const created = path.join(root, 'new.txt');
    ids.push((await edit(store, created, 'n1')).id);
    ids.push((await edit(store, created, 'n2')).id);
    counting.writes = 0;
    const r = await store.rollback(6, false);
    assert.equal(r.status, 'ok', r.errors?.join('\n'));
    assert.deepEqual(r.restored.map((x) => x.id), [...ids].reverse());
    assert.deepEqual(r.restored.map((x) => x.action), ['restored', 'deleted', 'restored', 'restored', 'restored', 'restored']);
    assert.equal(counting.writes, 3, 'a (a3->a1), b, a (a1->a0); the created file is removed without a write');
    assert.equal(await fs.readFile(a, 'utf8'), 'a0');
    assert.equal(await fs.readFile(b, 'utf8'), 'b0');
    await assert.rejects(fs.stat(created), /ENOENT/);
  });

  it('a conflict in the middle of one file\'s run still writes the part undone before it', async () => {
    const store = await open();
    const a = path.join(root, 'a.txt');
    await fs.writeFile(a, 'v0');
    const first = await edit(store, a, 'v1');
    await fs.writeFile(a, 'v1 edited elsewhere');
    const second = await edit(store, a, 'v2');
    const r = await store.rollback(2, false);
    assert.equal(r.status, 'partial');
    assert.deepEqual(r.restored.map((x) => x.id), [second.id]);
    assert.equal(r.conflict!.id, first.id);
    assert.equal(await fs.readFile(a, 'utf8'), 'v1 edited elsewhere');
    assert.equal((await store.status()).snapshots[0]!.id, first.id);
  });

  it('a failed write leaves the file and the queue as they were', async () => {
    const failing = new (class extends NodeFileStore {
      fail = false;
      override async write(p: string, b: Uint8Array, o?: Parameters<NodeFileStore['write']>[2]) {
        if (this.fail) throw new Error('disk full');
        return super.write(p, b, o);
      }
    })();
    files = failing;
    const store = await open();
    const a = path.join(root, 'a.txt');
    await fs.writeFile(a, 'x');
    await edit(store, a, 'y');
    await edit(store, a, 'z');
    failing.fail = true;
    const r = await store.rollback(2, false);
    assert.deepEqual({ status: r.status, rolled_back: r.rolled_back, restored: r.restored }, { status: 'partial', rolled_back: 0, restored: [] });
    assert.match(r.errors![0]!, /disk full.*unchanged/);
    assert.equal(await fs.readFile(a, 'utf8'), 'z');
    assert.equal((await store.status()).queue.used, 2);
    failing.fail = false;
    assert.equal((await store.rollback(2, false)).rolled_back, 2);
    assert.equal(await fs.readFile(a, 'utf8'), 'x');
  });

  it('treats step < 1 as 1', async () => {
    const store = await open();
    const a = path.join(root, 'a.txt');
    await fs.writeFile(a, 'x');
    await edit(store, a, 'y');
    await edit(store, a, 'z');
    assert.equal((await store.rollback(0, false)).rolled_back, 1);
    assert.equal(await fs.readFile(a, 'utf8'), 'y');
  });

  it('flaw: snapshot paths are stored as given and resolved against the working directory', async () => {
    const store = await open();
    await assert.rejects(
      store.record({ tool: 't', file: 'rel/a.txt', summary: '', created: false, offset: 0, removed: Buffer.alloc(0), insertedLength: 0, afterHash: '', afterSize: 0 }),
      /absolute/,
    );
  });

  it('writes snapshot files with mode 0600', async function () {
    if (process.platform === 'win32') this.skip();
    const store = await open();
    const a = path.join(root, 'a.txt');
    await fs.writeFile(a, 'x');
    await edit(store, a, 'y');
    const names = (await fs.readdir(dir)).filter((n) => n.startsWith('snap-'));
    assert.equal(names.length, 1);
    assert.equal((await fs.stat(path.join(dir, names[0]!))).mode & 0o777, 0o600);
  });

  it('evicts the oldest snapshot beyond maxCount with upstream\'s queue_full text', async () => {
    const store = await open({ maxCount: 2 });
    const a = path.join(root, 'a.txt');
    await fs.writeFile(a, '0');
    await edit(store, a, '1');
    await edit(store, a, '2');
    const third = await edit(store, a, '3');
    assert.equal(third.queue_full, 'snapshot queue reached maximum capacity (2); oldest snapshot evicted. The file was written successfully.');
    const st = await store.status();
    assert.equal(st.queue.used, 2);
    assert.equal((await fs.readdir(dir)).filter((n) => n.startsWith('snap-')).length, 2);
    assert.equal((await store.rollback(10, false)).rolled_back, 2);
    assert.equal(await fs.readFile(a, 'utf8'), '1');
  });

  it('evicts beyond maxBytes, keeps large removed bytes in a sidecar and still rolls them back', async () => {
    const store = await open({ maxBytes: 3 * INLINE_REMOVED_MAX });
    const a = path.join(root, 'big.bin');
    const big = Buffer.alloc(INLINE_REMOVED_MAX * 2, 7);
    await fs.writeFile(a, big);
    await edit(store, a, 'small'); // removes 128 KiB: sidecar
    assert.equal((await fs.readdir(dir)).filter((n) => n.endsWith('.bin')).length, 1);
    await fs.writeFile(path.join(root, 'c.bin'), Buffer.alloc(INLINE_REMOVED_MAX * 2, 9));
    // 2 x 128 KiB > 192 KiB: the oldest goes
    const r = await edit(store, path.join(root, 'c.bin'), 'tiny');
    assert.equal((await edit(store, path.join(root, 'c.bin'), 'tiny2')).queue_full, undefined);
    assert.match(r.queue_full ?? '', /^snapshot queue exceeded maximum disk capacity \(196608 bytes\); oldest snapshot\(s\) evicted\./);
    const st = await store.status();
    assert.equal(st.queue.used, 2);
    assert.ok(st.queue.bytes <= st.queue.max_bytes);
    await store.rollback(2, false);
    assert.deepEqual(await fs.readFile(path.join(root, 'c.bin')), Buffer.alloc(INLINE_REMOVED_MAX * 2, 9));
    assert.equal((await fs.readdir(dir)).filter((n) => n.startsWith('snap-')).length, 0);
  });

  it('skips a corrupt snapshot file with a warning and leaves it in place', async () => {
    await fs.mkdir(dir, { recursive: true });
    await fs.writeFile(path.join(dir, 'snap-000000000001-abcdef.json'), '{oops');
    await fs.writeFile(path.join(dir, 'snap-000000000002-123456.json'), JSON.stringify({ v: 1, id: 'other' }));
    const store = await open();
    assert.equal((await store.status()).queue.used, 0);
    assert.equal(warnings.length, 2, warnings.join('\n'));
    await fs.access(path.join(dir, 'snap-000000000001-abcdef.json'));
    const a = path.join(root, 'a.txt');
    await fs.writeFile(a, 'x');
    const r = await edit(store, a, 'y');
    const st = await store.status();
    assert.equal(st.snapshots[0]!.id, r.id);
    assert.ok(st.snapshots[0]!.seq > 2, 'seq continues after the highest name on disk');
  });

  it('sees snapshots another store instance (another process) added to the directory', async () => {
    const mine = await open();
    const other = await open();
    const a = path.join(root, 'a.txt');
    await fs.writeFile(a, 'x');
    await edit(other, a, 'y');
    assert.equal((await mine.status()).queue.used, 1);
    await mine.rollback(1, false);
    assert.equal(await fs.readFile(a, 'utf8'), 'x');
  });

  it('flaw: SnapshotDir() spawns git on every call', () => {
    // workspaceHistoryDir is a hash of the roots: a thousand calls take far less than one git subprocess each.
    const started = performance.now();
    for (let i = 0; i < 1000; i++) workspaceHistoryDir('/cache/snapshots', [root]);
    assert.ok(performance.now() - started < 500, `${performance.now() - started} ms`);
  });

  it('workspaceHistoryDir keys the directory by the workspace roots, without git', () => {
    const d1 = workspaceHistoryDir('/cache/snapshots', ['/w/one']);
    const d2 = workspaceHistoryDir('/cache/snapshots', ['/w/two']);
    assert.notEqual(d1, d2);
    assert.match(path.basename(d1), /^[0-9a-f]{16}$/);
    assert.equal(path.dirname(d1), '/cache/snapshots');
  });

  describe('upstream flaws', () => {
    it('flaw: after a restart same-second snapshots roll back in the wrong order', async () => {
      const store = await open(); // fake clock: every snapshot has the same second and millisecond
      const targets: string[] = [];
      for (let i = 0; i < 10; i++) {
        const f = path.join(root, `f${i}.txt`);
        await fs.writeFile(f, `original ${i}`);
        await edit(store, f, `edited ${i}`);
        targets.push(f);
      }
      const ids = (await store.status()).snapshots.map((s) => s.id);
      assert.notDeepEqual(ids, [...ids].sort().reverse(), 'ids happened to sort in seq order; the test would prove nothing');
      for (let i = 9; i >= 0; i--) {
        const reopened = await open(); // a restart before every step
        const r = await reopened.rollback(1, false);
        assert.equal(r.restored[0]!.file, targets[i]);
        assert.equal(await fs.readFile(targets[i]!, 'utf8'), `original ${i}`);
        if (i > 0) assert.equal(await fs.readFile(targets[i - 1]!, 'utf8'), `edited ${i - 1}`);
      }
    });

    it('flaw: rolling back a file creation leaves an empty file', async () => {
      const store = await open();
      const created = path.join(root, 'new.ts');
      const r = await edit(store, created, 'export const x = 1;\n');
      const back = await store.rollback(1, false);
      assert.deepEqual(back.restored, [{ id: r.id, file: created, action: 'deleted' }]);
      await assert.rejects(fs.stat(created), /ENOENT/);
    });

    it('flaw: rollback overwrites later edits', async () => {
      const store = await open();
      const a = path.join(root, 'a.txt');
      const b = path.join(root, 'b.txt');
      await fs.writeFile(a, 'a0');
      await fs.writeFile(b, 'b0');
      await edit(store, b, 'b1');
      const ra = await edit(store, a, 'a1');
      await fs.writeFile(a, 'a1 + a later edit made elsewhere');
      const back = await store.rollback(2, false);
      assert.equal(back.status, 'partial');
      assert.equal(back.rolled_back, 0);
      assert.equal(back.errors!.length, 1);
      assert.match(back.errors![0]!, new RegExp(`${a.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}.*changed`));
      assert.match(back.errors![0]!, /force: true/);
      assert.equal(back.conflict!.id, ra.id);
      assert.equal(back.conflict!.file, a);
      assert.equal(await fs.readFile(a, 'utf8'), 'a1 + a later edit made elsewhere');
      assert.equal(await fs.readFile(b, 'utf8'), 'b1', 'no older snapshot is undone past a conflict');
      assert.equal((await store.status()).queue.used, 2);
      const forced = await store.rollback(1, true);
      assert.equal(forced.status, 'ok');
      assert.equal(await fs.readFile(a, 'utf8'), 'a0 + a later edit made elsewhere'); // the splice, applied anyway
      assert.equal((await store.rollback(1, false)).status, 'ok');
      assert.equal(await fs.readFile(b, 'utf8'), 'b0');
    });

    it('flaw: commit reports only the in-memory count', async () => {
      const first = await open();
      const a = path.join(root, 'a.txt');
      await fs.writeFile(a, Buffer.alloc(INLINE_REMOVED_MAX + 10, 1));
      await edit(first, a, 'x'); // with a sidecar
      await edit(first, a, 'y');
      await edit(first, a, 'z');
      const second = await open(); // a new process
      assert.deepEqual(await second.commit(), { committed: 3 });
      assert.deepEqual((await fs.readdir(dir)).filter((n) => n.startsWith('snap-')), []);
      assert.equal((await second.status()).queue.used, 0);
      assert.deepEqual(await first.commit(), { committed: 0 });
      // seq stays monotonic after a commit and a restart
      const third = await open();
      await edit(third, a, 'w');
      assert.equal((await third.status()).snapshots[0]!.seq, 4);
    });

    it('flaw: status returns full file texts', async () => {
      const store = await open();
      const a = path.join(root, 'a.txt');
      const marker = 'UNIQUE-FILE-TEXT-MARKER';
      await fs.writeFile(a, `${marker}\n`.repeat(20_000));
      await edit(store, a, `${marker}\n`.repeat(20_000) + 'one more line\n', 'be-insert');
      clock.advance(1000);
      await edit(store, a, 'replaced', 'be-write');
      const st = await store.status();
      const json = JSON.stringify(st);
      assert.ok(!json.includes(marker), 'status must not carry file contents');
      assert.ok(json.length < 1000, `status is ${json.length} bytes`);
      assert.deepEqual(st.snapshots.map((s) => s.tool), ['be-write', 'be-insert']);
      assert.deepEqual(Object.keys(st.snapshots[0]!).sort(), ['bytes', 'created_at', 'created_ms', 'file', 'id', 'seq', 'summary', 'tool']);
      assert.deepEqual(st.queue, { used: 2, max: 30, bytes: st.snapshots[0]!.bytes + st.snapshots[1]!.bytes, max_bytes: 100 * 1024 * 1024 });
    });
  });

  describe('properties', () => {
    it('rolling back every recorded splice, across a reopen, restores the original bytes exactly', async function () {
      this.timeout(120_000);
      let run = 0;
      const fileState = fc.record({ original: fc.uint8Array({ maxLength: 300 }), startsAbsent: fc.boolean() });
      await fc.assert(
        fc.asyncProperty(
          fc.array(fileState, { minLength: 1, maxLength: 2 }),
          fc.array(
            fc.record({ f: fc.nat({ max: 1 }), at: fc.nat(), del: fc.nat({ max: 40 }), ins: fc.uint8Array({ maxLength: 40 }) }),
            { minLength: 1, maxLength: 12 },
          ),
          fc.nat({ max: 12 }),
          async (states, splices, reopenAfter) => {
            run++;
            dir = path.join(root, `h${run}`);
            let store = await open();
            let steps = 0;
            // every file either exists with `original`, or is created with it by a first recorded edit
            const tracked = [];
            for (const [k, st] of states.entries()) {
              const file = path.join(root, `p${run}-${k}.bin`);
              const current = Buffer.from(st.original);
              await files.write(file, current);
              if (st.startsAbsent) {
                await store.record({
                  tool: 'be-write', file, summary: 'create', created: true, offset: 0, removed: Buffer.alloc(0),
                  insertedLength: current.length, afterHash: sha256Hex(current), afterSize: current.length,
                });
                steps++;
              }
              tracked.push({ file, current, ...st });
            }
            for (const [i, s] of splices.entries()) {
              if (i === reopenAfter) store = await open();
              const t = tracked[s.f % tracked.length]!;
              const offset = t.current.length === 0 ? 0 : s.at % (t.current.length + 1);
              const removedLength = Math.min(s.del, t.current.length - offset);
              const next = Buffer.concat([t.current.subarray(0, offset), Buffer.from(s.ins), t.current.subarray(offset + removedLength)]);
              await files.write(t.file, next);
              await store.record({
                tool: 'be-replace',
                file: t.file,
                summary: `splice ${i}`,
                created: false,
                offset,
                removed: Buffer.from(t.current.subarray(offset, offset + removedLength)),
                insertedLength: s.ins.length,
                afterHash: sha256Hex(next),
                afterSize: next.length,
              });
              steps++;
              t.current = next;
            }
            const reopened = await open();
            const r = await reopened.rollback(steps, false);
            assert.equal(r.status, 'ok', r.errors?.join('\n'));
            assert.equal(r.rolled_back, steps);
            for (const t of tracked) {
              if (t.startsAbsent) await assert.rejects(fs.stat(t.file), /ENOENT/);
              else assert.deepEqual(await fs.readFile(t.file), Buffer.from(t.original));
            }
            assert.equal((await reopened.status()).queue.used, 0);
          },
        ),
        { numRuns: 60 },
      );
    });

    it('spliceBetween is the smallest splice and applyInverse undoes it', () => {
      fc.assert(
        fc.property(fc.uint8Array({ maxLength: 200 }), fc.uint8Array({ maxLength: 200 }), fc.uint8Array({ maxLength: 50 }), (prefix, middle, suffix) => {
          const before = Buffer.concat([prefix, middle, suffix]);
          const after = Buffer.concat([prefix, Buffer.from('X'), suffix]);
          const s = spliceBetween(before, after);
          assert.deepEqual(applyInverse(after, s), before);
          assert.ok(s.removed.length <= middle.length);
          assert.ok(s.insertedLength <= 1);
        }),
      );
      // a large file with a one-byte change gives a one-byte splice (the chunked memcmp path)
      const big = Buffer.alloc(1_000_000, 'a');
      const changed = Buffer.from(big);
      changed[654_321] = 0x62;
      const s = spliceBetween(big, changed);
      assert.deepEqual({ offset: s.offset, removed: s.removed.toString(), insertedLength: s.insertedLength }, { offset: 654_321, removed: 'a', insertedLength: 1 });
    });
  });
});
