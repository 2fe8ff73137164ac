/**
 * Rollback goes where the sandbox says at the moment it writes, never where a link put on the path since the
 * edit points; snapshots of another workspace in a shared directory are never touched; a FIFO in the snapshot
 * directory does not hang; long sequence numbers stay visible after a restart.
 */
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { HistoryStore } from '../../../src/core/history/node/store';
import { spliceBetween } from '../../../src/core/history/splice';
import { sha256Hex } from '../../../src/core/util/sha256';
import { NodeFileStore } from '../../../src/core/files/nodeFileStore';
import { Sandbox } from '../../../src/core/files/sandbox';
import { tempDir } from '../chips/helpers';

const OUTSIDE_DATA = 'IMPORTANT OUTSIDE DATA';
const posixOnly = process.platform === 'win32' ? describe.skip : describe;

/** An edit the way EditService records one: write the new bytes, record the inverse splice of the real path. */
async function edit(store: HistoryStore, files: NodeFileStore, file: string, next: string) {
  const before = await fs.readFile(file).catch(() => undefined);
  const after = Buffer.from(next);
  await files.write(file, after, { mkdirs: true });
  return store.record({
    tool: 'be-write',
    file,
    summary: `be-write on ${path.basename(file)}`,
    created: before === undefined,
    ...spliceBetween(before ?? Buffer.alloc(0), after),
    afterHash: sha256Hex(after),
    afterSize: after.length,
  });
}

function mkfifo(p: string): void {
  execFileSync('mkfifo', [p]);
}

/** Fails the test instead of hanging it when `p` does not settle in `ms`. */
async function within<T>(ms: number, p: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not finish in ${ms} ms (blocked?)`)), ms);
  });
  try {
    return await Promise.race([p, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

posixOnly('HistoryStore confinement', () => {
  let tmp: string;
  let root: string;
  let outside: string;
  let dir: string;
  let files: NodeFileStore;
  let warnings: string[];
  const open = (roots = [root], historyDir = dir) =>
    HistoryStore.open({ dir: historyDir, files, sandbox: new Sandbox(roots), log: (m) => warnings.push(m) });

  beforeEach(async () => {
    tmp = await tempDir('bet-history-conf-');
    root = path.join(tmp, 'root');
    outside = path.join(tmp, 'outside');
    dir = path.join(tmp, 'history');
    await fs.mkdir(path.join(root, 'sub'), { recursive: true });
    await fs.mkdir(outside);
    await fs.writeFile(path.join(outside, 'a.txt'), OUTSIDE_DATA);
    files = new NodeFileStore();
    warnings = [];
  });
  afterEach(() => fs.rm(tmp, { recursive: true, force: true }));

  for (const force of [false, true]) {
    it(`a file replaced by a link to an outside file is not written through (force ${force})`, async () => {
      const store = await open();
      const a = path.join(root, 'a.txt');
      await fs.writeFile(a, 'x0\n');
      await edit(store, files, a, 'x1\n');
      await fs.rm(a);
      await fs.symlink(path.join(outside, 'a.txt'), a);
      const r = await store.rollback(1, force);
      assert.equal(r.status, 'partial');
      assert.equal(r.rolled_back, 0);
      assert.match(r.errors![0]!, /now leads to .*outside|outside the allowed roots/);
      assert.equal(await fs.readFile(path.join(outside, 'a.txt'), 'utf8'), OUTSIDE_DATA);
      assert.equal((await fs.lstat(a)).isSymbolicLink(), true, 'the link itself is left alone');
      assert.equal((await store.status()).queue.used, 1, 'the snapshot stays for when the file is back');
    });

    it(`a folder replaced by a link to an outside folder is not written into (force ${force})`, async () => {
      const store = await open();
      const a = path.join(root, 'sub', 'a.txt');
      await fs.writeFile(a, 'x0\n');
      await edit(store, files, a, 'x1\n');
      await fs.rm(path.join(root, 'sub'), { recursive: true });
      await fs.symlink(outside, path.join(root, 'sub'));
      // the outside file now has the edit's hash, so only the path check stands between it and the undo
      await fs.writeFile(path.join(outside, 'a.txt'), force ? OUTSIDE_DATA : 'x1\n');
      const r = await store.rollback(1, force);
      assert.equal(r.rolled_back, 0);
      assert.match(r.errors![0]!, /outside the allowed roots/);
      assert.equal(await fs.readFile(path.join(outside, 'a.txt'), 'utf8'), force ? OUTSIDE_DATA : 'x1\n');
    });
  }

  it('undoing a creation does not delete an outside file when its folder became a link', async () => {
    const store = await open();
    const a = path.join(root, 'sub', 'a.txt');
    await edit(store, files, a, 'created\n');
    await fs.rm(path.join(root, 'sub'), { recursive: true });
    await fs.symlink(outside, path.join(root, 'sub'));
    await fs.writeFile(path.join(outside, 'a.txt'), 'created\n'); // same hash as the created file
    const r = await store.rollback(1, true);
    assert.equal(r.rolled_back, 0);
    assert.equal(await fs.readFile(path.join(outside, 'a.txt'), 'utf8'), 'created\n');
  });

  it('does not follow a link put on the path even when it points inside the roots', async () => {
    const store = await open();
    const a = path.join(root, 'a.txt');
    const other = path.join(root, 'other.txt');
    await fs.writeFile(a, 'x0\n');
    await edit(store, files, a, 'x1\n');
    await fs.writeFile(other, 'x1\n');
    await fs.rm(a);
    await fs.symlink(other, a);
    const r = await store.rollback(1, true);
    assert.equal(r.rolled_back, 0);
    assert.match(r.errors![0]!, /now leads to .*other\.txt.*never follows a link/);
    assert.equal(await fs.readFile(other, 'utf8'), 'x1\n');
  });

  it('bytes read while a link stood on the path for a moment are not spliced into the file (force)', async () => {
    const a = path.join(root, 'a.txt');
    const secret = path.join(outside, 'a.txt');
    // a FileStore read that lands in the window: the path is a link to the outside file only while it is read
    const racing = new (class extends NodeFileStore {
      override async read(p: string) {
        await fs.rename(p, `${p}.away`);
        await fs.symlink(secret, p);
        try {
          return await super.read(p);
        } finally {
          await fs.unlink(p);
          await fs.rename(`${p}.away`, p);
        }
      }
    })();
    const store = await HistoryStore.open({ dir, files: racing, sandbox: new Sandbox([root]) });
    await fs.writeFile(a, 'x0\n');
    await edit(store, files, a, 'x1\n');
    await fs.utimes(secret, new Date(), new Date(Date.now() - 60_000));
    const r = await store.rollback(1, true);
    assert.equal(r.rolled_back, 0);
    // refused by the store's no-follow open, or by the rollback's own re-check when a store follows links
    assert.match(r.errors![0]!, /replaced while it was being read|the path changed while it was being used/);
    assert.equal(await fs.readFile(a, 'utf8'), 'x1\n', 'no outside byte landed in the workspace');
  });

  it('undoing a creation never removes through a folder that became a link at the last moment', async function () {
    if (process.platform !== 'linux') this.skip(); // the store's folder handle is Linux-only (/proc/self/fd)
    const sub = path.join(root, 'sub');
    // a FileStore remove that lands in the window: the folder is swapped for a link to outside just before it
    const racing = new (class extends NodeFileStore {
      override async remove(p: string) {
        await fs.rename(sub, `${sub}.away`);
        await fs.symlink(outside, sub);
        return super.remove(p);
      }
    })();
    const store = await HistoryStore.open({ dir, files: racing, sandbox: new Sandbox([root]) });
    const a = path.join(sub, 'a.txt');
    await edit(store, files, a, 'created\n');
    const r = await store.rollback(1, false);
    assert.equal(r.rolled_back, 0, 'refused: the folder is not the one that was checked');
    assert.match(r.errors![0]!, /the path changed while it was being used/);
    assert.equal(await fs.readFile(path.join(outside, 'a.txt'), 'utf8'), OUTSIDE_DATA, 'the outside file is still there');
    assert.equal(await fs.readFile(path.join(`${sub}.away`, 'a.txt'), 'utf8'), 'created\n', 'nothing inside was lost either');
  });

  it('a FIFO where the file was is refused without opening it', async () => {
    const store = await open();
    const a = path.join(root, 'a.txt');
    await fs.writeFile(a, 'x0\n');
    await edit(store, files, a, 'x1\n');
    await fs.rm(a);
    mkfifo(a);
    const r = await within(3000, store.rollback(1, true), 'rollback onto a FIFO');
    assert.equal(r.rolled_back, 0);
    assert.match(r.errors![0]!, /FIFO/);
  });

  it('still rolls back ordinary edits, creations included', async () => {
    const store = await open();
    const a = path.join(root, 'sub', 'a.txt');
    const b = path.join(root, 'b.txt');
    await fs.writeFile(a, 'x0\n');
    await edit(store, files, a, 'x1\n');
    await edit(store, files, b, 'new\n');
    const r = await store.rollback(2, false);
    assert.equal(r.status, 'ok', r.errors?.join('\n'));
    assert.equal(await fs.readFile(a, 'utf8'), 'x0\n');
    await assert.rejects(fs.access(b));
  });

  it('refuses to roll back into .git unless the sandbox allows writes there', async () => {
    const cfg = path.join(root, '.git', 'config');
    await fs.mkdir(path.dirname(cfg));
    await fs.writeFile(cfg, '[core]\n');
    const allowed = await HistoryStore.open({ dir, files, sandbox: new Sandbox([root], { allowWrite: ['.git/config'] }) });
    await edit(allowed, files, cfg, '[core]\n\tfsmonitor = x\n');
    const strict = await open();
    const r = await strict.rollback(1, false);
    assert.equal(r.rolled_back, 0);
    assert.match(r.errors![0]!, /\.git/);
    assert.equal((await allowed.rollback(1, false)).rolled_back, 1);
    assert.equal(await fs.readFile(cfg, 'utf8'), '[core]\n');
  });

  describe('a history directory shared by two projects', () => {
    it('each server sees, rolls back and commits only its own snapshots', async () => {
      const other = path.join(tmp, 'other');
      await fs.mkdir(other);
      const mine = await open([root]);
      const theirs = await open([other]);
      assert.notEqual(mine.workspace, theirs.workspace);
      const a = path.join(root, 'a.txt');
      const b = path.join(other, 'b.txt');
      await fs.writeFile(a, 'a0');
      await fs.writeFile(b, 'b0');
      await edit(mine, files, a, 'a1');
      await edit(theirs, files, b, 'b1');
      await edit(theirs, files, b, 'b2');

      assert.deepEqual((await mine.status()).snapshots.map((s) => s.file), [a]);
      assert.deepEqual((await theirs.status()).snapshots.map((s) => s.file), [b, b]);
      const r = await mine.rollback(10, true);
      assert.deepEqual(r.restored.map((x) => x.file), [a]);
      assert.equal(await fs.readFile(b, 'utf8'), 'b2', 'the other project was not rolled back');
      assert.equal(await fs.readFile(a, 'utf8'), 'a0');

      await edit(mine, files, a, 'a2');
      assert.equal((await mine.commit()).committed, 1);
      assert.equal((await theirs.status()).queue.used, 2, "committing one project keeps the other's snapshots");
      assert.equal((await theirs.rollback(2, false)).rolled_back, 2);
      assert.equal(await fs.readFile(b, 'utf8'), 'b0');
    });

    it("one project's snapshots do not count against the other's queue", async () => {
      const other = path.join(tmp, 'other');
      await fs.mkdir(other);
      const mine = await HistoryStore.open({ dir, files, sandbox: new Sandbox([root]), maxCount: 2 });
      const theirs = await HistoryStore.open({ dir, files, sandbox: new Sandbox([other]), maxCount: 2 });
      const a = path.join(root, 'a.txt');
      await fs.writeFile(a, '0');
      await edit(mine, files, a, '1');
      await edit(mine, files, a, '2');
      const b = path.join(other, 'b.txt');
      await fs.writeFile(b, '0');
      for (let i = 1; i <= 3; i++) await edit(theirs, files, b, String(i));
      assert.equal((await mine.status()).queue.used, 2);
      assert.equal((await mine.rollback(2, false)).rolled_back, 2);
      assert.equal(await fs.readFile(a, 'utf8'), '0');
    });

    it('adopts an older record without a workspace only when its file lies inside the roots', async () => {
      await fs.mkdir(dir, { recursive: true });
      const a = path.join(root, 'a.txt');
      const elsewhere = path.join(outside, 'a.txt');
      await fs.writeFile(a, 'new');
      const v1 = (seq: number, id: string, file: string) =>
        fs.writeFile(
          path.join(dir, `snap-${String(seq).padStart(12, '0')}-${id}.json`),
          JSON.stringify({
            v: 1, id, seq, tool: 'be-write', file, summary: 's', created: false, offset: 0, inserted_length: 3,
            after_hash: sha256Hex(Buffer.from('new')), after_size: 3, removed_length: 3,
            removed_b64: Buffer.from('old').toString('base64'), created_at: 1, created_ms: 1000,
          }),
        );
      await v1(1, 'aaaaaa', a);
      await v1(2, 'bbbbbb', elsewhere);
      const store = await open();
      assert.deepEqual((await store.status()).snapshots.map((s) => s.id), ['aaaaaa']);
      assert.equal((await store.rollback(5, true)).rolled_back, 1);
      assert.equal(await fs.readFile(a, 'utf8'), 'old');
      assert.equal(await fs.readFile(elsewhere, 'utf8'), OUTSIDE_DATA);
    });
    it('a planted snapshot that claims this workspace but names a file outside the roots is never rolled back', async () => {
      const store = await open();
      const a = path.join(root, 'a.txt');
      await fs.writeFile(a, 'x0\n');
      await edit(store, files, a, 'x1\n');
      const [name] = (await fs.readdir(dir)).filter((n) => n.startsWith('snap-'));
      const real = JSON.parse(await fs.readFile(path.join(dir, name!), 'utf8')) as Record<string, unknown>;
      const elsewhere = path.join(outside, 'a.txt');
      for (const [i, file] of [elsewhere, path.join(root, '..', 'outside', 'a.txt')].entries()) {
        const id = `pl${i}ntd`;
        const seq = 100 + i;
        await fs.writeFile(
          path.join(dir, `snap-${String(seq).padStart(12, '0')}-${id}.json`),
          JSON.stringify({ ...real, id, seq, file, after_hash: sha256Hex(Buffer.from(OUTSIDE_DATA)), after_size: OUTSIDE_DATA.length }),
        );
      }
      const reopened = await open();
      const r = await reopened.rollback(10, true);
      assert.equal(await fs.readFile(elsewhere, 'utf8'), OUTSIDE_DATA, 'the outside file is untouched');
      assert.equal(await fs.readFile(a, 'utf8'), 'x0\n', 'the real edit is still rolled back');
      assert.ok(r.rolled_back <= 1, `rolled back ${r.rolled_back}`);
    });
  });

  describe('the snapshot directory', () => {
    it('a FIFO in it (counter or snapshot name) does not hang startup; it is skipped with a warning', async () => {
      await fs.mkdir(dir, { recursive: true });
      mkfifo(path.join(dir, '.seq'));
      mkfifo(path.join(dir, 'snap-000000000007-abcdef.json'));
      const store = await within(3000, open(), 'opening a history directory holding FIFOs');
      assert.ok(warnings.some((w) => /\.seq.*FIFO/.test(w)), warnings.join('\n'));
      assert.ok(warnings.some((w) => /snap-000000000007-abcdef\.json.*FIFO/.test(w)), warnings.join('\n'));
      const a = path.join(root, 'a.txt');
      await fs.writeFile(a, 'x');
      await edit(store, files, a, 'y');
      const st = await within(3000, store.status(), 'status');
      assert.equal(st.queue.used, 1);
      assert.ok(st.snapshots[0]!.seq > 7, 'the seq still steps over the FIFO’s name');
    });

    it('snapshots with a 13-digit sequence number are still seen after a restart', async () => {
      await fs.mkdir(dir, { recursive: true });
      await fs.writeFile(path.join(dir, '.seq'), '999999999999\n');
      const first = await open();
      const a = path.join(root, 'a.txt');
      await fs.writeFile(a, 'v0');
      await edit(first, files, a, 'v1');
      await edit(first, files, a, 'v2');
      const names = (await fs.readdir(dir)).filter((n) => n.startsWith('snap-'));
      assert.ok(names.some((n) => /^snap-\d{13}-/.test(n)), names.join(', '));
      const restarted = await open();
      const st = await restarted.status();
      assert.deepEqual(st.snapshots.map((s) => s.seq), [1000000000001, 1000000000000]);
      assert.equal((await restarted.rollback(2, false)).rolled_back, 2);
      assert.equal(await fs.readFile(a, 'utf8'), 'v0');
    });
  });
});
