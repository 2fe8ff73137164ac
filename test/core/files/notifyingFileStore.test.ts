/** NotifyingFileStore over the real disk store: every way a file changes is announced once, nothing else is. */
import assert from 'node:assert/strict';
import { promises as fs, realpathSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import fc from 'fast-check';
import { EncodingFileStore } from '../../../src/core/files/encodingFileStore';
import type { FileStore } from '../../../src/core/files/fileStore';
import { NodeFileStore } from '../../../src/core/files/nodeFileStore';
import { NotifyingFileStore, type FileChange } from '../../../src/core/files/notifyingFileStore';

describe('core/files NotifyingFileStore', () => {
  let dir: string;
  let store: NotifyingFileStore;
  let seen: FileChange[];
  beforeEach(async () => {
    dir = realpathSync(await fs.mkdtemp(path.join(os.tmpdir(), 'notify-')));
    store = new NotifyingFileStore(new EncodingFileStore(new NodeFileStore()));
    seen = [];
    store.onDidChange((e) => seen.push(e));
  });
  afterEach(() => fs.rm(dir, { recursive: true, force: true }));

  it('announces write, writeParts, a staged commit and its revert, and remove; reads and a discard are silent', async () => {
    const a = path.join(dir, 'a.txt');
    await store.write(a, Buffer.from('one\n'), { expectedContent: null });
    await store.writeParts!(a, [Buffer.from('one\n'), Buffer.from('two\n')], { expectedContent: Buffer.from('one\n') });
    await store.read(a);
    await store.stat(a);
    const b = path.join(dir, 'b.txt');
    const staged = await store.lock!(b, () => store.stage!(b, [Buffer.from('new\n')], { expectedContent: null }));
    await staged.commit();
    await staged.revert(); // the batch created b: revert removes it
    const dropped = await store.lock!(a, () => store.stage!(a, [Buffer.from('x\n')], { expectedContent: Buffer.from('one\ntwo\n') }));
    await dropped.discard();
    await store.remove(a);
    assert.deepEqual(seen, [
      { path: a, removed: false },
      { path: a, removed: false },
      { path: b, removed: false },
      { path: b, removed: true },
      { path: a, removed: true },
    ]);
    await assert.rejects(fs.stat(b), /ENOENT/);
  });

  it('a refused write is announced too (the listener re-reads; a failure after the rename may have changed the file)', async () => {
    const a = path.join(dir, 'a.txt');
    await fs.writeFile(a, 'mine\n');
    await assert.rejects(store.write(a, Buffer.from('theirs\n'), { expectedContent: Buffer.from('other\n') }), /changed by someone else/);
    assert.deepEqual(seen, [{ path: a, removed: false }]);
    assert.equal(await fs.readFile(a, 'utf8'), 'mine\n');
  });

  it('a listener that throws breaks neither the write nor the other listeners', async () => {
    const errors: unknown[] = [];
    const s = new NotifyingFileStore(new NodeFileStore(), (e) => errors.push(e));
    const heard: string[] = [];
    s.onDidChange(() => {
      throw new Error('listener failed');
    });
    s.onDidChange((e) => heard.push(e.path));
    const a = path.join(dir, 'a.txt');
    await s.write(a, Buffer.from('x'));
    assert.deepEqual(heard, [a]);
    assert.equal(errors.length, 1);
    assert.equal(await fs.readFile(a, 'utf8'), 'x');
  });

  it('keeps the inner store optional abilities optional (be-apply tests for stage)', () => {
    const bare: FileStore = {
      read: () => Promise.reject(new Error('unused')),
      stat: async () => undefined,
      write: () => Promise.reject(new Error('unused')),
      remove: async () => undefined,
    };
    const s = new NotifyingFileStore(bare);
    assert.equal(s.stage, undefined);
    assert.equal(s.writeParts, undefined);
    assert.equal(s.lock, undefined);
  });

  it('property: any sequence of writes and removes is announced in order, one event each', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.record({ file: fc.constantFrom('p.txt', 'q.txt', 'sub/r.txt'), remove: fc.boolean() }), { maxLength: 12 }), async (ops) => {
        seen.length = 0;
        const expected: FileChange[] = [];
        for (const op of ops) {
          const p = path.join(dir, op.file);
          const exists = await fs.stat(p).then(() => true, () => false);
          if (op.remove && exists) await store.remove(p);
          else if (op.remove) continue;
          else await store.write(p, Buffer.from(op.file), { mkdirs: true });
          expected.push({ path: p, removed: op.remove });
        }
        assert.deepEqual(seen, expected);
      }),
      { numRuns: 25 },
    );
  });
});
