/**
 * be-apply in core: several edits over several real files, validated before any write, atomic under a failure
 * injected at every step of the commit, one be-trx rollback step, and a read-back hash equal to the disk's.
 */
import { strict as assert } from 'node:assert';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import fc from 'fast-check';
import { ApplyJournal } from '../../../src/core/edits/apply/node/journal';
import { BatchEditor } from '../../../src/core/edits/apply/service';
import type { FaultHook } from '../../../src/core/edits/apply/commit';
import { ViewedCodeRegistry } from '../../../src/core/edits/viewedCode';
import { NodeFileStore } from '../../../src/core/files/nodeFileStore';
import { Sandbox } from '../../../src/core/files/sandbox';
import { HistoryStore } from '../../../src/core/history/node/store';
import { EditService } from '../../../src/core/edits/service';

interface Env {
  root: string;
  base: string;
  files: NodeFileStore;
  sandbox: Sandbox;
  journal: ApplyJournal;
  history: HistoryStore;
  edits: EditService;
  editor(fault?: FaultHook): BatchEditor;
  dispose(): Promise<void>;
}

async function env(): Promise<Env> {
  const base = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'bet-apply-')));
  const root = path.join(base, 'ws');
  await fs.mkdir(root);
  const files = new NodeFileStore({ lockDir: path.join(base, 'locks') });
  const sandbox = new Sandbox([root]);
  const journal = new ApplyJournal(path.join(base, 'journal'));
  const history = await HistoryStore.open({ dir: path.join(base, 'history'), files, sandbox });
  const viewed = new ViewedCodeRegistry();
  const edits = new EditService({ files, sandbox, history, viewed });
  return {
    root,
    base,
    files,
    sandbox,
    journal,
    history,
    edits,
    editor: (fault) => new BatchEditor({ files, sandbox, journal, viewed, history, maxFileBytes: 1 << 26, maxAnalyzeBytes: 1 << 21, fault }),
    dispose: () => fs.rm(base, { recursive: true, force: true }),
  };
}

const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

async function snapshot(root: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const name of (await fs.readdir(root)).sort()) out[name] = (await fs.readFile(path.join(root, name))).toString('latin1');
  return out;
}

describe('core/edits/apply (be-apply)', () => {
  let e: Env;
  beforeEach(async () => {
    e = await env();
  });
  afterEach(() => e.dispose());

  it('applies edits across files with ranges of the file before the call, and one rollback step undoes them all', async () => {
    await fs.writeFile(path.join(e.root, 'a.txt'), 'a1\na2\na3\na4\na5\n');
    await fs.writeFile(path.join(e.root, 'b.txt'), 'b1\r\nb2\r\n');
    const before = await snapshot(e.root);
    const r = await e.editor().apply({
      edits: [
        { file: 'a.txt:2', content: 'A2\nA2b\n' }, // grows the file: the next edit's line 4 is still the old line 4
        { file: 'a.txt:4', op: 'delete' },
        { file: 'a.txt:0', op: 'insert', content: 'top\n' },
        { file: 'b.txt:2', content: 'B2\n' },
        { file: 'c.txt', content: 'new\n' },
      ],
    });
    assert.equal(r.files, 3);
    assert.equal(await fs.readFile(path.join(e.root, 'a.txt'), 'utf8'), 'top\na1\nA2\nA2b\na3\na5\n');
    assert.equal(await fs.readFile(path.join(e.root, 'b.txt'), 'utf8'), 'b1\r\nB2\r\n', 'CRLF kept');
    assert.equal(await fs.readFile(path.join(e.root, 'c.txt'), 'utf8'), 'new\n');
    for (const fr of r.results) {
      const disk = await fs.readFile(path.join(e.root, fr.file));
      assert.equal(fr.sha256, sha(disk).slice(0, 16), `read-back hash of ${fr.file} is the disk's`);
    }
    const rb = await e.history.rollback(1, false);
    assert.equal(rb.status, 'ok');
    assert.equal(rb.rolled_back, 3);
    assert.deepEqual(await snapshot(e.root), before, 'step 1 undid the whole batch (and removed the created file)');
  });

  it('validates every edit before writing any: a bad last edit leaves every file as it was', async () => {
    await fs.writeFile(path.join(e.root, 'a.txt'), 'a1\na2\n');
    await fs.writeFile(path.join(e.root, 'b.txt'), 'b1\n');
    const before = await snapshot(e.root);
    const bad = [
      { file: 'b.txt:9', content: 'x\n' }, // out of range
      { file: 'b.txt:1', content: 'x\n', old: 'not b1' }, // old mismatch
      { file: 'b.txt:1', content: 'x\n', viewed_code_id: 'v1.bogus' }, // unknown id
      { file: '../outside.txt', content: 'x\n' }, // outside the sandbox
      { file: 'missing.txt:1', content: 'x\n' }, // no such file
      { file: 'a.txt:1', content: 'bad \ud800 surrogate' }, // not encodable
    ];
    for (const last of bad) {
      await assert.rejects(e.editor().apply({ edits: [{ file: "a.txt:1", content: "A1\n" }, last] }), /./, JSON.stringify(last));
      assert.deepEqual(await snapshot(e.root), before, `nothing written for ${JSON.stringify(last)}`);
    }
    assert.equal((await e.history.status()).snapshots.length, 0);
  });

  it('files staged while later ones are still planned: the first bad edit in call order is reported, and no temp or journal stays', async () => {
    const names = Array.from({ length: 24 }, (_, i) => `f${i}.txt`);
    for (const n of names) await fs.writeFile(path.join(e.root, n), `${n} 1\n${n} 2\n`);
    const before = await snapshot(e.root);
    const edits = names.map((n) => ({ file: `${n}:1`, content: `${n} one\n` }));
    edits[15] = { file: 'f15.txt:9', content: 'x\n' }; // out of range
    edits[22] = { file: 'f22.txt:1', content: 'x\n', old: 'not it' } as (typeof edits)[number]; // old mismatch
    await assert.rejects(e.editor().apply({ edits }), /edit 16/);
    assert.deepEqual(await snapshot(e.root), before);
    assert.deepEqual(await fs.readdir(e.journal.dir).catch(() => []), []);
    // and every good file of the same batch lands once the bad edits are gone
    const good = names.map((n) => ({ file: `${n}:1`, content: `${n} one\n` }));
    const r = await e.editor().apply({ edits: good });
    assert.equal(r.files, names.length);
    assert.equal(await fs.readFile(path.join(e.root, 'f23.txt'), 'utf8'), 'f23.txt one\nf23.txt 2\n');
    assert.deepEqual(await fs.readdir(e.journal.dir).catch(() => []), []);
  });

  it('a batch whose files together would make a git directory is refused whole, whichever file names the entries', async () => {
    const plain = Array.from({ length: 20 }, (_, i) => ({ file: `p${i}.txt`, content: `${i}\n` }));
    // folded names count as git's (a folding file system opens `head` as HEAD); `config` itself names no entry
    for (const shape of [['evil/HEAD', 'evil/refs/x'], ['evil/config', 'evil/head', 'evil/Objects/pack'], ['a/b/HEAD', 'a/b/commondir']]) {
      const edits = [...plain.slice(0, 10), ...shape.map((file) => ({ file, content: 'x\n' })), ...plain.slice(10)];
      await assert.rejects(e.editor().apply({ edits }), (err: { code?: string; details?: { reason?: string } }) => err.code === 'outside_roots' && err.details?.reason === 'git_dir_shape', shape.join(' + '));
      assert.deepEqual(await fs.readdir(e.root), [], `nothing written for ${shape.join(' + ')}`);
    }
    // a folder that is a git directory on disk already: refused for the files after the first in it too
    await fs.mkdir(path.join(e.root, 'bare', 'objects'), { recursive: true });
    await fs.writeFile(path.join(e.root, 'bare', 'HEAD'), 'ref: refs/heads/main\n');
    for (const late of [0, 5, 20]) {
      const edits = [...plain.slice(0, late), { file: 'bare/config', content: 'x\n' }, ...plain.slice(late)];
      await assert.rejects(e.editor().apply({ edits }), (err: { details?: { reason?: string } }) => err.details?.reason === 'git_dir_shape', `bare/config at ${late}`);
    }
    await fs.rm(path.join(e.root, 'bare'), { recursive: true });
    // the same names apart, in folders of their own, are plain files
    const r = await e.editor().apply({ edits: [...plain, { file: 'one/HEAD', content: 'x\n' }, { file: 'two/refs/x', content: 'x\n' }] });
    assert.equal(r.files, 22);
  });

  it('refuses overlapping edits of one file and a write mixed with line edits', async () => {
    await fs.writeFile(path.join(e.root, 'a.txt'), 'a1\na2\na3\n');
    await assert.rejects(e.editor().apply({ edits: [{ file: 'a.txt:1-2', content: 'x\n' }, { file: 'a.txt:2', op: 'delete' }] }), /overlap/);
    await assert.rejects(e.editor().apply({ edits: [{ file: 'a.txt:2-3', op: 'delete' }, { file: 'a.txt:2', op: 'insert', content: 'x\n' }] }), /overlap/);
    await assert.rejects(e.editor().apply({ edits: [{ file: 'a.txt', content: 'x\n' }, { file: 'a.txt:1', op: 'delete' }] }), /only edit/);
    assert.equal(await fs.readFile(path.join(e.root, 'a.txt'), 'utf8'), 'a1\na2\na3\n');
  });

  it('every single edit result carries the read-back hash of the disk bytes (be-replace, be-insert, be-delete, be-write)', async () => {
    const f = path.join(e.root, 'r.txt');
    await fs.writeFile(f, 'r1\nr2\n');
    const disk = async () => sha(await fs.readFile(f)).slice(0, 16);
    assert.equal((await e.edits.replace({ file: 'r.txt:1', content: 'R1\n' })).sha256, await disk());
    assert.equal((await e.edits.insert({ file: 'r.txt:0', content: 'top\n' })).sha256, await disk());
    assert.equal((await e.edits.delete({ file: 'r.txt:1' })).sha256, await disk());
    assert.equal((await e.edits.write({ file: 'r.txt', content: 'w\n' })).results![0].sha256, await disk());
  });

  it('a file changed under the batch by a writer that takes no lock: refused whole, and the refusal says who changed it', async () => {
    await fs.writeFile(path.join(e.root, 'a.txt'), 'a\n');
    await fs.writeFile(path.join(e.root, 'b.txt'), 'b\n');
    const fault: FaultHook = async (s, i) => {
      if (s === 'stage' && i === 1) await fs.writeFile(path.join(e.root, 'b.txt'), 'changed by an editor\n');
    };
    const err = await e.editor(fault).apply({ edits: [{ file: 'a.txt:1', content: 'A' }, { file: 'b.txt:1', content: 'B' }] }).then(
      () => undefined,
      (x: Error) => x,
    );
    assert.ok(err && /no edit recorded through these tools explains the change/i.test(err.message), String(err?.message));
    assert.equal(await fs.readFile(path.join(e.root, 'a.txt'), 'utf8'), 'a\n', 'nothing of the batch was written');
    assert.equal(await fs.readFile(path.join(e.root, 'b.txt'), 'utf8'), 'changed by an editor\n');
  });

  it('preview shows every diff and writes nothing', async () => {
    await fs.writeFile(path.join(e.root, 'a.txt'), 'a1\na2\n');
    await fs.writeFile(path.join(e.root, 'b.txt'), 'b1\n');
    const r = await e.editor().apply({ preview: true, edits: [{ file: 'a.txt:1', content: 'A1\n' }, { file: 'b.txt:1', content: 'B1\n' }] });
    assert.equal(r.preview, true);
    assert.match(r.results[0].diff!, /A1/);
    assert.match(r.results[1].diff!, /B1/);
    assert.equal(await fs.readFile(path.join(e.root, 'a.txt'), 'utf8'), 'a1\na2\n');
  });

  it('a viewed_code_id from be-read guards an edit of the batch', async () => {
    await fs.writeFile(path.join(e.root, 'a.txt'), 'a1\na2\n');
    const read = await e.edits.read({ file: 'a.txt:1-2' });
    await fs.writeFile(path.join(e.root, 'a.txt'), 'changed\na2\n');
    await assert.rejects(e.editor().apply({ edits: [{ file: 'a.txt:2', content: 'x\n', viewed_code_id: read.viewed_code_id }] }), /changed since it was read/);
  });

  it('is atomic under a failure injected at every step (property): all old, or all new after recovery', async () => {
    const steps = ['stage', 'journal', 'commit', 'finish'] as const;
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(fc.integer({ min: 0, max: 2 }), fc.integer({ min: 1, max: 4 }), fc.string({ maxLength: 6 })), { minLength: 1, maxLength: 6 }),
        fc.constantFrom(...steps),
        fc.integer({ min: 0, max: 2 }),
        async (raw, step, at) => {
          const names = ['f0.txt', 'f1.txt', 'f2.txt'];
          for (const [i, n] of names.entries()) await fs.writeFile(path.join(e.root, n), `${i}-1\n${i}-2\n${i}-3\n${i}-4\n`);
          const before = await snapshot(e.root);
          // one edit per (file, line): distinct lines never overlap
          const seen = new Set<string>();
          const edits = raw
            .filter(([f, l]) => !seen.has(`${f}:${l}`) && seen.add(`${f}:${l}`))
            .map(([f, l, text]) => ({ file: `${names[f]}:${l}`, content: `${text.replace(/[\r\n]/g, '')}!\n` }));
          const ok = await e.editor().apply({ edits, preview: true });
          let fired = false;
          const fault: FaultHook = (s, i) => {
            if (s === step && (i === at || s === 'journal' || s === 'finish') && !fired) {
              fired = true;
              throw new Error(`injected at ${s} ${i}`);
            }
          };
          const r = await e.editor(fault).apply({ edits }).then(() => 'done', (err: Error) => err.message);
          // the next start: a journal left behind (its writer "dead") is completed or undone
          await e.journal.recover({ files: e.files, sandbox: e.sandbox, isAlive: async () => false });
          const now = await snapshot(e.root);
          const files = new Set(ok.results.map((x) => x.file));
          const allOld = Object.keys(before).every((n) => now[n] === before[n]);
          const allNew = [...files].every((n) => now[n] !== before[n]);
          assert.ok(allOld || allNew, `mixed state after ${r}: ${JSON.stringify(now)}`);
          if (fired && step !== 'finish') assert.ok(allOld, `a failure before the batch finished leaves all old (${r})`);
          assert.deepEqual(Object.keys(now).filter((n) => n.endsWith('.tmp')), [], 'no temp left');
          assert.deepEqual(await fs.readdir(e.journal.dir).catch(() => []), [], 'no journal left');
          await e.history.commit();
        },
      ),
      { numRuns: 60 },
    );
  });

  it('the next start undoes a batch whose writer died after some renames (journal recovery)', async () => {
    await fs.writeFile(path.join(e.root, 'a.txt'), 'a\n');
    await fs.writeFile(path.join(e.root, 'b.txt'), 'b\n');
    const before = await snapshot(e.root);
    // the steps of commitBatch by hand, stopping after the first rename as a killed process would
    const intent = await e.journal.intend([path.join(e.root, 'a.txt'), path.join(e.root, 'b.txt')]);
    const staged = [
      await e.files.stage(path.join(e.root, 'a.txt'), [Buffer.from('A\n')], { expectedContent: Buffer.from('a\n'), stageAs: intent.temps[0] }),
      await e.files.stage(path.join(e.root, 'b.txt'), [Buffer.from('B\n')], { expectedContent: Buffer.from('b\n'), stageAs: intent.temps[1] }),
    ];
    await intent.begin(staged);
    await staged[0].commit();
    // the process "dies" here: b's temp is still on disk, so the next start can finish the batch
    const r = await e.journal.recover({ files: e.files, sandbox: e.sandbox, isAlive: async () => false });
    assert.equal(r.completed, 1);
    assert.equal(await fs.readFile(path.join(e.root, 'b.txt'), 'utf8'), 'B\n');
    // and when b's temp is gone (swept), the same crash is undone instead
    await fs.writeFile(path.join(e.root, 'a.txt'), 'a\n');
    await fs.writeFile(path.join(e.root, 'b.txt'), 'b\n');
    const intent2 = await e.journal.intend([path.join(e.root, 'a.txt'), path.join(e.root, 'b.txt')]);
    const again = [
      await e.files.stage(path.join(e.root, 'a.txt'), [Buffer.from('A\n')], { expectedContent: Buffer.from('a\n'), stageAs: intent2.temps[0] }),
      await e.files.stage(path.join(e.root, 'b.txt'), [Buffer.from('B\n')], { expectedContent: Buffer.from('b\n'), stageAs: intent2.temps[1] }),
    ];
    await intent2.begin(again);
    await again[0].commit();
    await again[1].discard();
    const r2 = await e.journal.recover({ files: e.files, sandbox: e.sandbox, isAlive: async () => false });
    assert.equal(r2.undone, 1);
    await staged[1].discard(); // the first "dead" batch's descriptor, closed as the kernel closes a killed process's
    assert.deepEqual(await snapshot(e.root), before);
  });

  it('the journal is private: 0600 files in a 0700 folder, outside the workspace', async () => {
    await fs.writeFile(path.join(e.root, 'a.txt'), 'a\n');
    let mode: { dir: number; file: number } | undefined;
    const fault: FaultHook = async (s) => {
      if (s !== 'commit' || mode) return;
      const [name] = await fs.readdir(e.journal.dir);
      mode = { dir: (await fs.stat(e.journal.dir)).mode & 0o777, file: (await fs.stat(path.join(e.journal.dir, name))).mode & 0o777 };
    };
    await e.editor(fault).apply({ edits: [{ file: 'a.txt:1', content: 'A\n' }] });
    assert.deepEqual(mode, { dir: 0o700, file: 0o600 });
    assert.ok(!e.journal.dir.startsWith(e.root + path.sep));
  });
});
