import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import { rejectsCode, workspace, type Workspace } from './helpers';
import { EditService } from '../../../src/core/edits/service';
import { ViewedCodeRegistry } from '../../../src/core/edits/viewedCode';
import { Sandbox } from '../../../src/core/files/sandbox';
import { NodeFileStore } from '../../../src/core/files/nodeFileStore';

describe('core/edits replace', () => {
  let ws: Workspace;
  beforeEach(() => (ws = workspace()));
  afterEach(() => ws.cleanup());

  it('replaces an inclusive range and reports diff, balance, affected, counts, event_id', async () => {
    ws.write('a.ts', 'function f() {\n  return 1;\n}\n');
    const r = await ws.svc.replace({ file: 'a.ts:2', content: '  const x = 2;\n  return x;' });
    assert.equal(ws.read('a.ts'), 'function f() {\n  const x = 2;\n  return x;\n}\n');
    assert.equal(r.status, 'ok');
    assert.equal(r.file, 'a.ts');
    assert.deepEqual([r.removed, r.added, r.total], [1, 2, 4]);
    assert.equal(r.affected, 'lines 2-3 (file now has 4 lines)');
    assert.equal(r.balance, 'balance: OK');
    assert.match(r.diff, /return x;/);
    assert.ok(r.event_id);
    assert.equal(ws.history.records.length, 1);
  });

  it('above maxWholeBalanceBytes the balance line compares the replaced lines with the new ones', async () => {
    const w = workspace({ limits: { maxWholeBalanceBytes: 60 } });
    try {
      w.write('big.ts', 'function f() {\n  return g(1);\n}\n' + '// filler line\n'.repeat(10));
      const same = await w.svc.replace({ file: 'big.ts:2', content: '  return g(2);' });
      assert.match(same.balance, /^balance: unchanged by this edit/);
      const changed = await w.svc.replace({ file: 'big.ts:2', content: '  return g(2;' });
      assert.match(changed.balance, /^balance: this edit changes bracket balance \(replaced lines: OK; new lines: unbalanced/);
      const small = await ws.svc.write({ file: 's.ts', content: 'f(\n' });
      void small;
      assert.match((await ws.svc.insert({ file: 's.ts:1', content: 'x' })).balance, /^balance: unbalanced/);
    } finally {
      w.cleanup();
    }
  });

  it('lang zh gives upstream\'s affected text', async () => {
    const zh = workspace({ lang: 'zh' });
    try {
      zh.write('a.txt', 'a\nb\n');
      const r = await zh.svc.replace({ file: 'a.txt:1-2', content: 'x' });
      assert.equal(r.affected, '行 1-1（当前共 1 行）');
    } finally {
      zh.cleanup();
    }
  });

  it('brief omits diff and balance; format diff is an LCS diff', async () => {
    ws.write('a.txt', 'a\nb\nc\nd\n');
    const b = await ws.svc.replace({ file: 'a.txt:2', content: 'B', brief: true });
    assert.deepEqual([b.diff, b.balance, b.brief], ['', '', true]);
    const d = await ws.svc.insert({ file: 'a.txt:1', content: 'new', format: 'diff' });
    assert.equal(d.diff.split('\n').filter((l) => l.startsWith('+') || l.startsWith('-')).length, 1);
  });

  it('content missing deletes the range; preview writes nothing and records nothing', async () => {
    ws.write('a.txt', 'a\nb\nc\n');
    const mtime = fs.statSync(ws.p('a.txt')).mtimeMs;
    const p = await ws.svc.replace({ file: 'a.txt:2', content: 'B', preview: true });
    assert.equal(p.preview, true);
    assert.match(p.diff, /B/);
    assert.equal(ws.read('a.txt'), 'a\nb\nc\n');
    assert.equal(fs.statSync(ws.p('a.txt')).mtimeMs, mtime);
    assert.equal(ws.history.records.length, 0);
    const r = await ws.svc.replace({ file: 'a.txt:2' });
    assert.equal(ws.read('a.txt'), 'a\nc\n');
    assert.deepEqual([r.removed, r.added], [1, 0]);
  });

  it('flaw: old must include the line terminator, even when the last line has none', async () => {
    ws.write('a.txt', 'a\nb\nc');
    await ws.svc.replace({ file: 'a.txt:3', old: 'c', content: 'C' });
    await ws.svc.replace({ file: 'a.txt:2', old: 'b', content: 'B' });
    await ws.svc.replace({ file: 'a.txt:1-2', old: 'a\r\nB\r\n', content: 'A\nB' });
    assert.equal(ws.read('a.txt'), 'A\nB\nC');
    const err = await rejectsCode(ws.svc.replace({ file: 'a.txt:2', old: 'b', content: 'x' }), 'conflict', /old content does not match lines 2-2/);
    assert.match(err.message, /-2\tb\n\+2\tB/);
    assert.equal(ws.read('a.txt'), 'A\nB\nC');
  });

  it('old with literal \\n sequences (upstream heuristic) still matches', async () => {
    ws.write('a.txt', 'a\nb\n');
    await ws.svc.replace({ file: 'a.txt:1-2', old: 'a\\nb', content: 'z' });
    assert.equal(ws.read('a.txt'), 'z\n');
  });

  it('flaw: an empty file cannot be edited with be-replace', async () => {
    ws.write('e.txt', '');
    const r = await ws.svc.replace({ file: 'e.txt:ALL', content: 'hello\nworld' });
    assert.equal(ws.read('e.txt'), 'hello\nworld\n');
    assert.equal(r.total, 2);
    ws.write('e2.txt', '');
    await ws.svc.replace({ file: 'e2.txt:1', content: 'x' });
    assert.equal(ws.read('e2.txt'), 'x\n');
  });

  it('range errors name the valid range; a missing range is an error', async () => {
    ws.write('a.txt', 'a\nb\n');
    await rejectsCode(ws.svc.replace({ file: 'a.txt:3', content: 'x' }), 'invalid_argument', /start line 3 is out of range \(1\.\.2\)/);
    await rejectsCode(ws.svc.replace({ file: 'a.txt:1-5', content: 'x' }), 'invalid_argument', /end line 5 is out of range \(1\.\.2\)/);
    await rejectsCode(ws.svc.replace({ file: 'a.txt:0', content: 'x' }), 'invalid_argument');
    await rejectsCode(ws.svc.replace({ file: 'a.txt', content: 'x' }), 'invalid_argument', /must include a line range/);
  });

  it('replacing with identical text does not write or record', async () => {
    ws.write('a.txt', 'a\nb\n');
    const mtime = fs.statSync(ws.p('a.txt')).mtimeMs;
    const r = await ws.svc.replace({ file: 'a.txt:2', content: 'b' });
    assert.match(r.warnings![0], /not written/);
    assert.equal(fs.statSync(ws.p('a.txt')).mtimeMs, mtime);
    assert.equal(ws.history.records.length, 0);
  });

  it('flaw: edits reset permission bits and replace symlinks (through the service)', async () => {
    ws.write('run.sh', '#!/bin/sh\necho a\n', 0o755);
    fs.symlinkSync(ws.p('run.sh'), ws.p('alias.sh'));
    await ws.svc.replace({ file: 'alias.sh:2', content: 'echo b' });
    assert.equal(fs.statSync(ws.p('run.sh')).mode & 0o7777, 0o755);
    assert.equal(fs.lstatSync(ws.p('alias.sh')).isSymbolicLink(), true);
    assert.equal(ws.read('run.sh'), '#!/bin/sh\necho b\n');
  });

  it('flaw: Latin-1/GBK files are edited blindly by replace/insert/delete', async () => {
    ws.write('l.txt', Buffer.from('caf\xe9\nx\n', 'latin1'));
    const before = ws.bytes('l.txt');
    await rejectsCode(ws.svc.replace({ file: 'l.txt:2', content: 'y' }), 'encoding');
    await rejectsCode(ws.svc.insert({ file: 'l.txt:0', content: 'y' }), 'encoding');
    await rejectsCode(ws.svc.delete({ file: 'l.txt:2' }), 'encoding');
    assert.ok(ws.bytes('l.txt').equals(before));
  });

  it('flaw: a UTF-8 BOM is treated as part of line 1, so replacing line 1 drops it', async () => {
    ws.write('b.txt', '\uFEFFone\r\ntwo\r\n');
    await ws.svc.replace({ file: 'b.txt:1', content: 'ONE' });
    assert.equal(ws.read('b.txt'), '\uFEFFONE\r\ntwo\r\n');
  });

  it('flaw: any edit normalises mixed line endings and adds a missing final newline (service)', async () => {
    ws.write('m.txt', 'a\r\nb\nc\r\nd');
    await ws.svc.replace({ file: 'm.txt:2', content: 'B' });
    await ws.svc.insert({ file: 'm.txt:4', content: 'e' });
    assert.equal(ws.read('m.txt'), 'a\r\nB\nc\r\nd\r\ne');
  });

  it('flaw: trailing empty lines in new content are dropped (service)', async () => {
    ws.write('a.txt', 'a\nz\n');
    const r = await ws.svc.insert({ file: 'a.txt:1', content: 'x\n\n\n' });
    assert.equal(ws.read('a.txt'), 'a\nx\n\n\nz\n');
    assert.equal(r.added, 3);
  });

  it('warnings are about the new content, not the whole file', async () => {
    ws.write('a.py', 'def f():\n    return 1   \n');
    const clean = await ws.svc.replace({ file: 'a.py:1', content: 'def g():' });
    assert.equal(clean.warnings, undefined);
    const tabbed = await ws.svc.replace({ file: 'a.py:2', content: '\treturn 2 ' });
    assert.ok(tabbed.warnings!.some((w) => /tab characters/.test(w)));
    assert.ok(tabbed.warnings!.some((w) => /trailing whitespace/.test(w)));
  });
});

describe('core/edits viewed_code_id', () => {
  let ws: Workspace;
  beforeEach(() => (ws = workspace()));
  afterEach(() => ws.cleanup());

  it('a fresh id lets the edit through', async () => {
    ws.write('a.txt', 'a\nb\nc\n');
    const { viewed_code_id } = await ws.svc.read({ file: 'a.txt' });
    await ws.svc.replace({ file: 'a.txt:2', content: 'B', viewed_code_id });
    assert.equal(ws.read('a.txt'), 'a\nB\nc\n');
  });

  it('flaw: viewed_code_id is advisory only — a changed range fails with what changed', async () => {
    ws.write('a.txt', 'a\nb\nc\n');
    const { viewed_code_id } = await ws.svc.read({ file: 'a.txt:1-3' });
    fs.writeFileSync(ws.p('a.txt'), 'a\nSOMEONE ELSE\nc\n');
    const err = await rejectsCode(ws.svc.replace({ file: 'a.txt:2', content: 'B', viewed_code_id }), 'conflict', /changed since it was read/);
    assert.match(err.message, /-2\tb\n\+2\tSOMEONE ELSE/);
    assert.match(err.message, /Re-read a\.txt/);
    assert.equal(ws.read('a.txt'), 'a\nSOMEONE ELSE\nc\n');
  });

  it('flaw: viewed_code_id is blind to shifted content — lines inserted above fail and say where the text went', async () => {
    ws.write('a.txt', 'a\nb\nc\n');
    const { viewed_code_id } = await ws.svc.read({ file: 'a.txt:2-3' });
    fs.writeFileSync(ws.p('a.txt'), 'new\na\nb\nc\n');
    const err = await rejectsCode(ws.svc.replace({ file: 'a.txt:2', content: 'B', viewed_code_id }), 'conflict');
    assert.match(err.message, /now at lines 3-4/);
    // a change above the range that leaves the range's own lines identical is caught too
    ws.write('r.txt', 'a\nb\nc\n');
    const id2 = (await ws.svc.read({ file: 'r.txt:2-3' })).viewed_code_id;
    fs.writeFileSync(ws.p('r.txt'), 'A\nb\nc\n');
    await rejectsCode(ws.svc.replace({ file: 'r.txt:2', content: 'y', viewed_code_id: id2 }), 'conflict', /lines above them changed/);
  });

  it('flaw: no check that the id belongs to the file being edited', async () => {
    ws.write('a.txt', 'a\n');
    ws.write('b.txt', 'b\n');
    const { viewed_code_id } = await ws.svc.read({ file: 'a.txt' });
    await rejectsCode(ws.svc.replace({ file: 'b.txt:1', content: 'x', viewed_code_id }), 'conflict', /belongs to a\.txt, not b\.txt/);
  });

  it('edits below the viewed range do not invalidate it; a range outside the viewed lines is refused', async () => {
    ws.write('a.txt', 'a\nb\nc\nd\n');
    const { viewed_code_id } = await ws.svc.read({ file: 'a.txt:1-2' });
    fs.appendFileSync(ws.p('a.txt'), 'e\n');
    await ws.svc.replace({ file: 'a.txt:2', content: 'B', viewed_code_id });
    assert.equal(ws.read('a.txt'), 'a\nB\nc\nd\ne\n');
    const id = (await ws.svc.read({ file: 'a.txt:1-2' })).viewed_code_id;
    await rejectsCode(ws.svc.replace({ file: 'a.txt:3', content: 'C', viewed_code_id: id }), 'conflict', /outside the lines 1-2/);
  });

  it('unknown and expired ids fail with advice to re-read', async () => {
    let now = 1_000_000;
    const clock = { now: () => now };
    const w = workspace({ clock });
    try {
      w.write('a.txt', 'a\n');
      await rejectsCode(w.svc.replace({ file: 'a.txt:1', content: 'x', viewed_code_id: 'nope' }), 'conflict', /unknown or expired.*Re-read/);
      const { viewed_code_id } = await w.svc.read({ file: 'a.txt' });
      now += 25 * 3600 * 1000;
      await rejectsCode(w.svc.replace({ file: 'a.txt:1', content: 'x', viewed_code_id }), 'conflict', /unknown or expired/);
    } finally {
      w.cleanup();
    }
  });

  it('the registry is a bounded cache shared between services; an evicted id still verifies from itself', async () => {
    const reg = new ViewedCodeRegistry({ maxRecords: 2 });
    const sandbox = new Sandbox([ws.root]);
    const a = new EditService({ files: new NodeFileStore(), sandbox, viewed: reg });
    const b = new EditService({ files: new NodeFileStore(), sandbox, viewed: reg });
    ws.write('a.txt', 'a\n');
    ws.write('b.txt', 'b\n');
    ws.write('c.txt', 'c\n');
    const first = (await a.read({ file: 'a.txt' })).viewed_code_id;
    await a.read({ file: 'b.txt' });
    await a.read({ file: 'c.txt' });
    assert.equal(reg.size, 2);
    await b.replace({ file: 'a.txt:1', content: 'x', viewed_code_id: first });
    assert.equal(ws.read('a.txt'), 'x\n');
    await rejectsCode(b.replace({ file: 'a.txt:1', content: 'y', viewed_code_id: first }), 'conflict', /changed in lines 1-1 since they were read/);
  });

  it('spec §14: viewed_code_id survives a restart — a new EditService accepts a fresh id and still rejects stale ones', async () => {
    const sandbox = new Sandbox([ws.root]);
    const fresh = () => new EditService({ files: new NodeFileStore(), sandbox }); // own registry: nothing shared
    ws.write('a.txt', 'one\ntwo\nthree\nfour\n');
    const id = (await fresh().read({ file: 'a.txt:2-3' })).viewed_code_id;
    assert.match(id, /^v2\.[0-9]+$/);
    await fresh().replace({ file: 'a.txt:2', content: 'TWO', viewed_code_id: id });
    assert.equal(ws.read('a.txt'), 'one\nTWO\nthree\nfour\n');

    // changed range: refused by another new service, saying what is there now
    const stale = (await fresh().read({ file: 'a.txt:2-3' })).viewed_code_id;
    fs.writeFileSync(ws.p('a.txt'), 'one\nSOMEONE ELSE\nthree\nfour\n');
    const changed = await rejectsCode(fresh().replace({ file: 'a.txt:2', content: 'B', viewed_code_id: stale }), 'conflict', /changed since it was read/);
    assert.match(changed.message, /Lines 2-3 changed/);
    // the lines as read are not known to a new service: the lines now, none marked as changed
    assert.match(changed.message, /Lines 2-3 now \(the lines as read are not kept past a restart, so no diff\):\n2\tSOMEONE ELSE\n3\tthree\n/);
    assert.doesNotMatch(changed.message, /^\+/m);
    assert.equal(ws.read('a.txt'), 'one\nSOMEONE ELSE\nthree\nfour\n');

    // shifted: lines inserted above; the message says where the text went
    const before = (await fresh().read({ file: 'a.txt:3-4' })).viewed_code_id;
    fs.writeFileSync(ws.p('a.txt'), 'new\none\nSOMEONE ELSE\nthree\nfour\n');
    const shifted = await rejectsCode(fresh().replace({ file: 'a.txt:3', content: 'x', viewed_code_id: before }), 'conflict');
    assert.match(shifted.message, /now at lines 4-5/);

    // lines above changed, range identical
    const above = (await fresh().read({ file: 'a.txt:4-5' })).viewed_code_id;
    fs.writeFileSync(ws.p('a.txt'), 'NEW\none\nSOMEONE ELSE\nthree\nfour\n');
    await rejectsCode(fresh().replace({ file: 'a.txt:4', content: 'x', viewed_code_id: above }), 'conflict', /lines above them changed/);

    // other file, and a tampered id
    ws.write('b.txt', 'b\n');
    const idB = (await fresh().read({ file: 'b.txt:1' })).viewed_code_id;
    assert.match(idB, /^w[0-9]+$/);
    await rejectsCode(fresh().replace({ file: 'a.txt:1', content: 'x', viewed_code_id: idB }), 'conflict', /or the id is another file's/);
    ws.write('b.txt', 'b\nc\n');
    const idB2 = (await fresh().read({ file: 'b.txt:2' })).viewed_code_id;
    assert.match(idB2, /^v2\.[0-9]+$/);
    await rejectsCode(fresh().replace({ file: 'a.txt:2', content: 'x', viewed_code_id: idB2 }), 'conflict', /belongs to another file, not a\.txt/);
    await rejectsCode(fresh().replace({ file: 'a.txt:1', content: 'x', viewed_code_id: 'v1.' + idB.slice(3) }), 'conflict', /unknown or expired/);
    await rejectsCode(fresh().replace({ file: 'a.txt:1', content: 'x', viewed_code_id: idB.slice(0, -2) }), 'conflict', /unknown or expired/);
  });

  it('a stale-id refusal marks only the lines that changed, in this process and after a restart when the text read is found', async () => {
    const six = ['l1', 'l2', 'l3', 'l4', 'l5', 'l6', 'l7', 'l8'];
    ws.write('s.txt', six.join('\n') + '\n');
    const id = (await ws.svc.read({ file: 's.txt:2-7' })).viewed_code_id;
    fs.writeFileSync(ws.p('s.txt'), six.map((l) => (l === 'l5' ? 'FIVE' : l)).join('\n') + '\n');
    const err = await rejectsCode(ws.svc.replace({ file: 's.txt:3', content: 'x', viewed_code_id: id }), 'conflict');
    const marked = (m: string) => m.split('\n').filter((l) => /^[+-]\d/.test(l));
    assert.deepEqual(marked(err.message), ['-5\tl5', '+5\tFIVE']);

    // a new service knows only the range's hash; the text read, found two lines down, gives the diff back
    const sandbox = new Sandbox([ws.root]);
    const fresh = () => new EditService({ files: new NodeFileStore(), sandbox });
    ws.write('s.txt', six.join('\n') + '\n');
    const id2 = (await fresh().read({ file: 's.txt:2-7' })).viewed_code_id;
    fs.writeFileSync(ws.p('s.txt'), ['new', 'new', ...six].join('\n') + '\n');
    const moved = await rejectsCode(fresh().replace({ file: 's.txt:3', content: 'x', viewed_code_id: id2 }), 'conflict');
    assert.match(moved.message, /now at lines 4-9/);
    assert.deepEqual(marked(moved.message), ['+2\tnew', '+3\tl1', '-6\tl6', '-7\tl7']);
  });

  it('a read from line 1 gets a w id (~7 tokens) that survives a restart: edits below it pass, any change in it or another file refuses', async () => {
    const { getEncoding } = await import('js-tiktoken');
    const enc = getEncoding('o200k_base');
    const sandbox = new Sandbox([ws.root]);
    const fresh = () => new EditService({ files: new NodeFileStore(), sandbox });
    ws.write('a.txt', 'one\ntwo\nthree\nfour\n');
    const whole = (await fresh().read({ file: 'a.txt' })).viewed_code_id;
    assert.match(whole, /^w[0-9]+$/);
    assert.ok(enc.encode(`id=${whole}`).length <= 8, `${whole}: ${enc.encode(whole).length} tokens`);
    const head = (await fresh().read({ file: 'a.txt:1-2' })).viewed_code_id;
    assert.match(head, /^w[0-9]+$/);
    // a line appended below the lines read: the first-page id still holds; the whole-file id does not
    fs.writeFileSync(ws.p('a.txt'), 'one\ntwo\nthree\nfour\nfive\n');
    await fresh().replace({ file: 'a.txt:2', content: 'TWO', viewed_code_id: head });
    assert.equal(ws.read('a.txt'), 'one\nTWO\nthree\nfour\nfive\n');
    await rejectsCode(fresh().replace({ file: 'a.txt:1', content: 'x', viewed_code_id: whole }), 'conflict', /changed in lines 1-4 since they were read/);
    // a range past what was read is refused before any hash
    const again = (await fresh().read({ file: 'a.txt:1-2' })).viewed_code_id;
    await rejectsCode(fresh().replace({ file: 'a.txt:3', content: 'x', viewed_code_id: again }), 'conflict', /outside the lines 1-2/);
    // the same text under another name is another file
    ws.write('copy.txt', 'one\nTWO\nthree\nfour\nfive\n');
    await rejectsCode(fresh().replace({ file: 'copy.txt:1', content: 'x', viewed_code_id: again }), 'conflict', /another file's/);
    // in this process the record is cached: the message shows the lines
    const svc = fresh();
    const cached = (await svc.read({ file: 'a.txt' })).viewed_code_id;
    fs.writeFileSync(ws.p('a.txt'), 'one\nSOMEONE\nthree\nfour\nfive\n');
    const err = await rejectsCode(svc.replace({ file: 'a.txt:2', content: 'x', viewed_code_id: cached }), 'conflict', /changed since it was read/);
    assert.match(err.message, /\+2\tSOMEONE/);
    // a tampered w id is unknown
    await rejectsCode(fresh().replace({ file: 'a.txt:1', content: 'x', viewed_code_id: again.slice(0, -1) }), 'conflict', /unknown or expired/);
    assert.equal(ws.read('a.txt'), 'one\nSOMEONE\nthree\nfour\nfive\n');
  });

  it('a viewed_code_id costs at most 20 tokens, also for a long range deep in a large file', async () => {
    const { getEncoding } = await import('js-tiktoken');
    const enc = getEncoding('o200k_base');
    const big = Array.from({ length: 20000 }, (_, i) => `line ${i} ${'x'.repeat(60)}`).join('\n') + '\n';
    ws.write('big.txt', big);
    for (const range of ['big.txt:12-40', 'big.txt:10000-10400', 'big.txt:16000-19000']) {
      const { viewed_code_id } = await ws.svc.read({ file: range });
      assert.ok(enc.encode(viewed_code_id).length <= 20, `${range}: ${viewed_code_id} is ${enc.encode(viewed_code_id).length} tokens`);
    }
  });

  it('an empty file read gives an id that a replace accepts', async () => {
    ws.write('e.txt', '');
    const { viewed_code_id } = await ws.svc.read({ file: 'e.txt' });
    await ws.svc.replace({ file: 'e.txt:ALL', content: 'x', viewed_code_id });
    assert.equal(ws.read('e.txt'), 'x\n');
  });
});
