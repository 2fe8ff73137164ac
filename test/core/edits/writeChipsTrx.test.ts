import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { rejectsCode, workspace, type Workspace } from './helpers';
import type { ChipListResult, InsertChipResult } from '../../../src/core/edits/types';

describe('core/edits write', () => {
  let ws: Workspace;
  beforeEach(() => (ws = workspace()));
  afterEach(() => ws.cleanup());

  it('flaw: be-write does not create missing parent directories', async () => {
    const r = await ws.svc.write({ file: 'deep/er/new.txt', content: 'a\nb' });
    assert.equal(ws.read('deep/er/new.txt'), 'a\nb');
    const { sha256, ...rest } = r.results![0];
    assert.deepEqual(rest, { file: 'deep/er/new.txt', lines: 2, bytes: 3, created: true });
    assert.match(sha256!, /^[0-9a-f]{16}$/, 'the read-back hash of the new file');
    assert.ok(r.event_id);
    assert.equal(ws.history.records[0].created, true);
  });

  it('flaw: be-write brief omits nothing', async () => {
    const r = await ws.svc.write({ file: 'a.txt', content: 'x', brief: true });
    assert.equal(r.results, undefined);
    assert.equal(r.brief, true);
    assert.equal(r.files, 1);
  });

  it('keeps mode, CRLF and BOM of an existing file; writes through symlinks', async () => {
    ws.write('w.bat', '\uFEFFold\r\n', 0o750);
    fs.symlinkSync(ws.p('w.bat'), ws.p('l.bat'));
    await ws.svc.write({ file: 'l.bat', content: 'one\ntwo\n' });
    assert.equal(ws.read('w.bat'), '\uFEFFone\r\ntwo\r\n');
    assert.equal(fs.statSync(ws.p('w.bat')).mode & 0o7777, 0o750);
    assert.equal(fs.lstatSync(ws.p('l.bat')).isSymbolicLink(), true);
  });

  it('writing the content a file already has does not rewrite it or record a snapshot', async () => {
    ws.write('same.txt', 'x\n');
    const mtime = fs.statSync(ws.p('same.txt')).mtimeMs;
    const r = await ws.svc.write({ file: 'same.txt', content: 'x\n' });
    assert.equal(r.event_id, undefined);
    assert.match(r.results![0].warnings![0], /not written/);
    assert.equal(fs.statSync(ws.p('same.txt')).mtimeMs, mtime);
  });

  it('preview writes nothing; outside the roots is refused', async () => {
    const r = await ws.svc.write({ file: 'p.txt', content: 'x', preview: true });
    assert.equal(r.preview, true);
    assert.equal(fs.existsSync(ws.p('p.txt')), false);
    await rejectsCode(ws.svc.write({ file: path.join(ws.outside, 'x.txt'), content: 'x' }), 'outside_roots');
    await rejectsCode(ws.svc.write({ file: '../outside/new/x.txt', content: 'x' }), 'outside_roots');
    assert.equal(fs.existsSync(path.join(ws.outside, 'new')), false);
  });
});

describe('core/edits func/tag/balance', () => {
  let ws: Workspace;
  beforeEach(() => (ws = workspace()));
  afterEach(() => ws.cleanup());

  it('flaw: be-func-range only finds top-level blocks — a method line gives the method', async () => {
    ws.write('c.ts', 'class A {\n  m() {\n    return 1;\n  }\n}\n');
    const r = await ws.svc.funcRange({ file: 'c.ts', line: 3 });
    assert.deepEqual([r.start, r.end], [2, 4]);
    await rejectsCode(ws.svc.funcRange({ file: 'c.ts', line: 9 }), 'invalid_argument', /out of range/);
  });

  it('tag range and balance go through the sandbox and the text checks', async () => {
    ws.write('p.html', '<div>\n  <span>x</span>\n</div>\n');
    const t = await ws.svc.tagRange({ file: 'p.html', line: 2 });
    assert.equal(t.tag, 'span');
    const b = await ws.svc.balance({ file: 'p.html' });
    assert.ok(b);
    ws.write('bin.js', Buffer.from([0, 1, 2]));
    await rejectsCode(ws.svc.balance({ file: 'bin.js' }), 'binary_file');
    await rejectsCode(ws.svc.funcRange({ file: '../outside/x.ts', line: 1 }), 'outside_roots');
  });
});

describe('core/edits insertChip', () => {
  let ws: Workspace;
  beforeEach(() => (ws = workspace()));
  afterEach(() => ws.cleanup());

  it('list mode gives ids and item metadata', async () => {
    const empty = (await ws.svc.insertChip({})) as ChipListResult;
    assert.deepEqual(empty.chips, []);
    assert.equal(empty.message, 'no chips recorded');
    ws.write('a.txt', 'a\nb\n');
    await ws.svc.delete({ file: 'a.txt:1' });
    const list = (await ws.svc.insertChip({})) as ChipListResult;
    assert.equal(list.chips.length, 1);
    assert.equal(list.items[0].file, 'a.txt');
    assert.deepEqual(list.items[0].range, { start: 1, end: 1 });
  });

  it('flaw: replaying a chip:// inserts a JSON dump — it inserts the original text', async () => {
    ws.write('a.go', 'package a\n\nfunc demo() {\n}\n');
    const del = await ws.svc.delete({ file: 'a.go:3-4' });
    const r = (await ws.svc.insertChip({ from: `chip://${del.chip_id}`, to: `file://${ws.p('a.go')}:2` })) as InsertChipResult;
    assert.equal(ws.read('a.go'), 'package a\n\nfunc demo() {\n}\n');
    assert.equal(r.source, `chip://${del.chip_id}`);
    assert.ok(r.event_id);
  });

  it('to accepts file:///abs:line, file://rel:line and path:line; preview writes nothing', async () => {
    ws.write('a.txt', 'a\n');
    const del = await ws.svc.delete({ file: 'a.txt:1' });
    const from = `chip://${del.chip_id}`;
    await ws.svc.insertChip({ from, to: `${pathToFileURL(ws.p('a.txt')).href}:0` });
    await ws.svc.insertChip({ from, to: 'file://a.txt:1' });
    await ws.svc.insertChip({ from, to: 'a.txt:2' });
    assert.equal(ws.read('a.txt'), 'a\na\na\n');
    const p = (await ws.svc.insertChip({ from, to: 'a.txt:0', preview: true })) as InsertChipResult;
    assert.equal(p.preview, true);
    assert.equal(ws.read('a.txt'), 'a\na\na\n');
  });

  it('flaw: be-insert-chip from file:// reads any file on disk and has no binary check', async () => {
    ws.write('t.txt', 'x\n');
    fs.writeFileSync(path.join(ws.outside, 'secret.txt'), 'secret\n');
    await rejectsCode(ws.svc.insertChip({ from: `file://${path.join(ws.outside, 'secret.txt')}`, to: 't.txt:0' }), 'outside_roots');
    ws.write('bin.dat', Buffer.from([0x50, 0, 0x4b]));
    await rejectsCode(ws.svc.insertChip({ from: 'file://bin.dat', to: 't.txt:0' }), 'binary_file');
    ws.write('src.txt', '\uFEFFline1\r\nline2\r\n');
    await ws.svc.insertChip({ from: `file://${ws.p('src.txt')}`, to: 't.txt:1' });
    assert.equal(ws.read('t.txt'), 'x\nline1\nline2\n');
  });

  it('errors: unknown chip, missing from/to, to without a line', async () => {
    ws.write('a.txt', 'a\n');
    await rejectsCode(ws.svc.insertChip({ from: 'chip://abcdef', to: 'a.txt:0' }), 'not_found', /chip abcdef not found/);
    await rejectsCode(ws.svc.insertChip({ to: 'a.txt:0' }), 'invalid_argument', /from is missing/);
    await rejectsCode(ws.svc.insertChip({ from: 'chip://x' }), 'invalid_argument', /to is missing/);
    await rejectsCode(ws.svc.insertChip({ from: 'chip://x', to: 'a.txt' }), 'invalid_argument', /:line/);
  });

  it('a failed call chip: raw gives its content argument; json gives the arguments in the file\'s comment syntax', async () => {
    ws.write('a.py', 'x = 1\n');
    const saved = await ws.chips.saveFailedCall('be-replace', { file: 'a.py:9', content: 'y = 2\n' }, 'out of range');
    await ws.svc.insertChip({ from: `chip://${saved!.chip.id}`, to: 'a.py:1' });
    assert.equal(ws.read('a.py'), 'x = 1\ny = 2\n');
    await ws.svc.insertChip({ from: `chip://${saved!.chip.id}`, to: 'a.py:0', format: 'json' });
    assert.match(ws.read('a.py'), /^# /);
  });
});

describe('core/edits trx', () => {
  let ws: Workspace;
  beforeEach(() => (ws = workspace()));
  afterEach(() => ws.cleanup());

  it('delegates commit, rollback and status to the history', async () => {
    ws.write('a.txt', 'a\n');
    await ws.svc.insert({ file: 'a.txt:1', content: 'b' });
    await ws.svc.insert({ file: 'a.txt:2', content: 'c' });
    assert.equal(((await ws.svc.trx({ action: 'status' })) as { queue: { used: number } }).queue.used, 2);
    const rb = await ws.svc.trx({ action: 'rollback', step: 1 });
    assert.equal(rb.rolled_back, 1);
    assert.equal(ws.read('a.txt'), 'a\nb\n');
    assert.deepEqual(await ws.svc.trx({ action: 'commit' }), { status: 'ok', committed: 1 });
    await rejectsCode(ws.svc.trx({ action: 'nope' as never }), 'invalid_argument', /unknown trx action/);
  });
});
