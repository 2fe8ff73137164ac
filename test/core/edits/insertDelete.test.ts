import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import { rejectsCode, workspace, type Workspace } from './helpers';
import { ToolError } from '../../../src/core/errors';

describe('core/edits insert', () => {
  let ws: Workspace;
  beforeEach(() => (ws = workspace()));
  afterEach(() => ws.cleanup());

  it(':0 inserts at the top, :total appends, :N after line N', async () => {
    ws.write('a.txt', 'b\nd\n');
    await ws.svc.insert({ file: 'a.txt:0', content: 'a' });
    await ws.svc.insert({ file: 'a.txt:2', content: 'c' });
    const r = await ws.svc.insert({ file: 'a.txt:4', content: 'e\nf\n' });
    assert.equal(ws.read('a.txt'), 'a\nb\nc\nd\ne\nf\n');
    assert.deepEqual([r.after, r.added, r.total], [4, 2, 6]);
    assert.equal(r.affected, 'lines 5-6 (file now has 6 lines)');
  });

  it('appending to a file without a final newline keeps it without one', async () => {
    ws.write('a.txt', 'a\nb');
    await ws.svc.insert({ file: 'a.txt:2', content: 'c\n' });
    assert.equal(ws.read('a.txt'), 'a\nb\nc');
  });

  it('inserting into an empty file works; CRLF files get CRLF', async () => {
    ws.write('e.txt', '');
    await ws.svc.insert({ file: 'e.txt:0', content: 'x' });
    assert.equal(ws.read('e.txt'), 'x\n');
    ws.write('w.txt', 'a\r\nb\r\n');
    await ws.svc.insert({ file: 'w.txt:1', content: 'm\nn' });
    assert.equal(ws.read('w.txt'), 'a\r\nm\r\nn\r\nb\r\n');
  });

  it('flaw: inserting "" changes nothing but still rewrites the file and pushes a snapshot', async () => {
    ws.write('a.txt', 'a\n');
    const mtime = fs.statSync(ws.p('a.txt')).mtimeMs;
    const r = await ws.svc.insert({ file: 'a.txt:1', content: '' });
    assert.equal(r.event_id, undefined);
    assert.equal(r.added, 0);
    assert.equal(ws.history.records.length, 0);
    assert.equal(fs.statSync(ws.p('a.txt')).mtimeMs, mtime);
  });

  it('errors: no line, a range, :ALL, out of range, missing content', async () => {
    ws.write('a.txt', 'a\n');
    await rejectsCode(ws.svc.insert({ file: 'a.txt', content: 'x' }), 'invalid_argument', /must include a line number/);
    await rejectsCode(ws.svc.insert({ file: 'a.txt:1-2', content: 'x' }), 'invalid_argument', /single line/);
    await rejectsCode(ws.svc.insert({ file: 'a.txt:ALL', content: 'x' }), 'invalid_argument', /single line/);
    await rejectsCode(ws.svc.insert({ file: 'a.txt:2', content: 'x' }), 'invalid_argument', /out of range \(0\.\.1\)/);
    await rejectsCode(ws.svc.insert({ file: 'a.txt:0' } as never), 'invalid_argument', /content is required/);
  });

  it('concurrent edits of one file in one process are serialised (no lost update)', async () => {
    ws.write('a.txt', 'end\n');
    await Promise.all(Array.from({ length: 10 }, (_, i) => ws.svc.insert({ file: 'a.txt:0', content: `l${i}` })));
    const lines = ws.read('a.txt').trim().split('\n');
    assert.equal(lines.length, 11);
    for (let i = 0; i < 10; i++) assert.ok(lines.includes(`l${i}`));
  });

  it('a file changed on disk between read and write is a conflict, not an overwrite', async () => {
    ws.write('a.txt', 'a\n');
    const orig = ws.files.read.bind(ws.files);
    ws.files.read = async (p: string) => {
      const c = await orig(p);
      fs.writeFileSync(p, 'someone else\n');
      fs.utimesSync(p, new Date(), new Date(Date.now() + 10_000));
      return c;
    };
    await rejectsCode(ws.svc.insert({ file: 'a.txt:0', content: 'x' }), 'conflict', /changed by someone else/);
    assert.equal(ws.read('a.txt'), 'someone else\n');
  });
});

describe('core/edits delete', () => {
  let ws: Workspace;
  beforeEach(() => (ws = workspace()));
  afterEach(() => ws.cleanup());

  it('deletes a range, returns removed, saves the text as a chip named in warnings and chip_id', async () => {
    ws.write('a.txt', 'a\nb\nc\nd\n');
    const r = await ws.svc.delete({ file: 'a.txt:2-3' });
    assert.equal(ws.read('a.txt'), 'a\nd\n');
    assert.deepEqual([r.removed, r.total], [2, 2]);
    assert.ok(r.chip_id);
    assert.ok(r.warnings!.includes(`deleted content saved as chip://${r.chip_id}`));
    const chip = ws.chips.chips[0];
    assert.equal(chip.args._content, 'b\nc\n');
    assert.deepEqual(chip.range, { start: 2, end: 3 });
    assert.equal(chip.file, ws.p('a.txt'));
    assert.equal(r.affected, 'lines 2-3 deleted (file now has 2 lines)');
  });

  it('flaw: be-delete returns no removed count; :ALL empties the file', async () => {
    ws.write('a.txt', 'a\nb\n');
    const r = await ws.svc.delete({ file: 'a.txt:ALL' });
    assert.equal(r.removed, 2);
    assert.equal(ws.read('a.txt'), '');
    const again = await ws.svc.delete({ file: 'a.txt:ALL' });
    assert.equal(again.removed, 0);
    assert.equal(ws.history.records.length, 1);
  });

  it('flaw: be-delete refuses any range whose raw brace counts differ — it warns instead (strings/comments aware)', async () => {
    ws.write('a.ts', 'function f() {\n  const s = "}";\n  return 1;\n}\n');
    const ok = await ws.svc.delete({ file: 'a.ts:2' });
    assert.ok(!ok.warnings!.some((w) => /not balanced/.test(w)), JSON.stringify(ok.warnings));
    const r = await ws.svc.delete({ file: 'a.ts:1' });
    assert.equal(ws.read('a.ts'), '  return 1;\n}\n');
    assert.ok(r.warnings!.some((w) => /not balanced on their own/.test(w)));
  });

  it('preview deletes nothing and saves no chip', async () => {
    ws.write('a.txt', 'a\nb\n');
    const r = await ws.svc.delete({ file: 'a.txt:1', preview: true });
    assert.equal(r.preview, true);
    assert.equal(ws.read('a.txt'), 'a\nb\n');
    assert.equal(ws.chips.chips.length, 0);
  });

  it('flaw: the be-delete chip is saved before the write, so a failed write leaves a chip for a deletion that did not happen', async () => {
    ws.write('a.txt', 'a\nb\n');
    ws.files.failWrites = true;
    await rejectsCode(ws.svc.delete({ file: 'a.txt:1' }), 'io', /disk full/);
    assert.equal(ws.chips.chips.length, 0);
    assert.equal(ws.read('a.txt'), 'a\nb\n');
    assert.equal(ws.history.records.length, 0);
  });

  it('the chip is saved while the new file is staged: a chip that cannot be saved leaves the file as it was and no temp', async () => {
    ws.write('a.txt', 'a\nb\n');
    let staging = false;
    const stage = ws.files.stage.bind(ws.files);
    ws.files.stage = async (...args) => {
      staging = true;
      return stage(...args);
    };
    ws.chips.saveContent = async () => {
      await new Promise((r) => setTimeout(r, 20));
      assert.ok(staging, 'the chip is saved alongside the staging, not before it');
      throw new ToolError('io', 'chip disk full (simulated)');
    };
    await rejectsCode(ws.svc.delete({ file: 'a.txt:1' }), 'io', /chip disk full/);
    assert.equal(ws.read('a.txt'), 'a\nb\n');
    assert.deepEqual(fs.readdirSync(ws.root), ['a.txt']);
    assert.equal(ws.history.records.length, 0);
  });

  it('a be-delete whose read-back finds other bytes is a loud error, but keeps its chip and its snapshot: the file did change', async () => {
    ws.write('a.txt', 'a\nb\n');
    const stage = ws.files.stage.bind(ws.files);
    ws.files.stage = async (...args) => {
      const staged = await stage(...args);
      // what a corrupting disk looks like from here: the staged file holds other bytes than the ones given
      fs.writeFileSync(staged.tempPath!, 'corrupt\n');
      return staged;
    };
    await rejectsCode(ws.svc.delete({ file: 'a.txt:1' }), 'io', /reading it back gave different bytes/);
    assert.equal(ws.read('a.txt'), 'corrupt\n');
    assert.equal(ws.chips.chips.length, 1);
    assert.equal(ws.chips.chips[0]!.args._content, 'a\n');
    assert.equal(ws.history.records.length, 1);
  });

  it('range errors', async () => {
    ws.write('a.txt', 'a\n');
    await rejectsCode(ws.svc.delete({ file: 'a.txt' }), 'invalid_argument', /must include a line range/);
    await rejectsCode(ws.svc.delete({ file: 'a.txt:2' }), 'invalid_argument', /out of range \(1\.\.1\)/);
    ws.write('e.txt', '');
    await rejectsCode(ws.svc.delete({ file: 'e.txt:1' }), 'invalid_argument', /empty/);
  });

  it('every landed edit records an inverse splice that restores the previous bytes', async () => {
    ws.write('a.txt', '\uFEFFa\r\nb\nc');
    const steps: Buffer[] = [ws.bytes('a.txt')];
    await ws.svc.replace({ file: 'a.txt:2', content: 'B\nB2' });
    steps.push(ws.bytes('a.txt'));
    await ws.svc.insert({ file: 'a.txt:4', content: 'd' });
    steps.push(ws.bytes('a.txt'));
    await ws.svc.delete({ file: 'a.txt:1-2' });
    steps.push(ws.bytes('a.txt'));
    await ws.svc.write({ file: 'a.txt', content: 'whole\n' });
    for (let i = steps.length - 1; i >= 0; i--) {
      await ws.svc.trx({ action: 'rollback', step: 1 });
      assert.ok(ws.bytes('a.txt').equals(steps[i]), `step ${i}`);
    }
  });
});
