import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { rejectsCode, workspace, type Workspace } from './helpers';

describe('core/edits read', () => {
  let ws: Workspace;
  beforeEach(() => (ws = workspace()));
  afterEach(() => ws.cleanup());

  it('numbers lines, reports the file root-relative, and hands out a viewed_code_id', async () => {
    ws.write('src/a.ts', 'one\ntwo\n\nfour\n');
    const r = await ws.svc.read({ file: 'src/a.ts' });
    assert.equal(r.file, 'src/a.ts');
    assert.equal(r.content, '1\tone\n2\ttwo\n3\t<blank>\n4\tfour');
    assert.deepEqual([r.start, r.end, r.total], [1, 4, 4]);
    assert.match(r.viewed_code_id, /^w[0-9]+$/, 'a read from line 1 gets the short id');
    assert.deepEqual([r.eol, r.bom, r.final_newline], ['lf', false, true]);
  });

  it('flaw: be-read always returns two false-positive warnings (tabs, no final newline in the numbered output)', async () => {
    ws.write('tabs.go', 'func main() {\n\tx := 1\n\ty := 2\n}\n');
    const r = await ws.svc.read({ file: 'tabs.go' });
    assert.equal(r.warnings, undefined);
    const b = await ws.svc.read({ file: 'tabs.go', brief: true });
    assert.equal(b.warnings, undefined);
    assert.equal(b.content, undefined);
    assert.equal(b.brief, true);
  });

  it('flaw: be-read :ALL fails with start out of range', async () => {
    ws.write('a.txt', 'x\ny\n');
    const r = await ws.svc.read({ file: 'a.txt:ALL' });
    assert.deepEqual([r.start, r.end, r.content], [1, 2, '1\tx\n2\ty']);
  });

  it(':N gives one line, :S-E clamps an end past EOF (and says so), a start past EOF is an error', async () => {
    ws.write('a.txt', 'a\nb\nc\n');
    assert.equal((await ws.svc.read({ file: 'a.txt:2' })).content, '2\tb');
    const r = await ws.svc.read({ file: 'a.txt:2-100' });
    assert.deepEqual([r.start, r.end, r.content], [2, 3, '2\tb\n3\tc']);
    assert.match(r.warnings![0], /past the end/);
    await rejectsCode(ws.svc.read({ file: 'a.txt:4-5' }), 'invalid_argument', /out of range \(1\.\.3\)/);
  });

  it('an empty file reads as 0 lines with an id', async () => {
    ws.write('e.txt', '');
    const r = await ws.svc.read({ file: 'e.txt' });
    assert.deepEqual([r.start, r.end, r.total, r.content], [0, 0, 0, '']);
    assert.ok(r.viewed_code_id);
  });

  it('flaw: a UTF-8 BOM is treated as part of line 1 (read)', async () => {
    ws.write('bom.txt', '\uFEFFhello\r\nworld\r\n');
    const r = await ws.svc.read({ file: 'bom.txt' });
    assert.equal(r.content, '1\thello\n2\tworld');
    assert.deepEqual([r.bom, r.eol], [true, 'crlf']);
  });

  it('flaw: binary detection false positive when a multi-byte character straddles byte 512 (read and edit)', async () => {
    ws.write('u.txt', Buffer.concat([Buffer.from('a'.repeat(511)), Buffer.from('世界\nnext\n')]));
    const r = await ws.svc.read({ file: 'u.txt' });
    assert.equal(r.total, 2);
    await ws.svc.replace({ file: 'u.txt:2', content: 'NEXT' });
    assert.ok(ws.read('u.txt').endsWith('世界\nNEXT\n'));
  });

  it('mixed line endings are reported as a fact about the file', async () => {
    ws.write('m.txt', 'a\r\nb\nc\n');
    const r = await ws.svc.read({ file: 'm.txt' });
    assert.equal(r.eol, 'mixed');
    assert.match(r.warnings![0], /mixed line endings \(1 CRLF, 2 LF\)/);
  });

  it('flaw: no file-size cap — a 50 MB file read without a range is refused clearly; a range still works', async () => {
    const line = 'x'.repeat(99) + '\n';
    const f = ws.p('big.txt');
    fs.writeFileSync(f, Buffer.alloc(50 * 1024 * 1024, line));
    const err = await rejectsCode(ws.svc.read({ file: 'big.txt' }), 'too_large', /read a range, e\.g\. big\.txt:1-\d+/);
    assert.match(err.message, /524288 lines/);
    const r = await ws.svc.read({ file: 'big.txt:1000-1002' });
    assert.equal(r.content!.split('\n').length, 3);
    const b = await ws.svc.read({ file: 'big.txt', brief: true });
    assert.equal(b.total, 524288);
  });

  it('a single line over the read limit is refused without suggesting an impossible range', async () => {
    const w = workspace({ limits: { maxReadBytes: 100 } });
    try {
      w.write('min.js', 'a\n' + 'x'.repeat(500) + '\nb\n');
      await rejectsCode(w.svc.read({ file: 'min.js:2' }), 'too_large', /line 2 of min\.js alone is 501 bytes/);
      const r = await w.svc.read({ file: 'min.js:3' });
      assert.equal(r.content, '3\tb');
    } finally {
      w.cleanup();
    }
  });

  it('files over maxFileBytes are refused by every operation', async () => {
    const small = workspace({ limits: { maxFileBytes: 100 } });
    try {
      small.write('a.txt', 'y'.repeat(200));
      await rejectsCode(small.svc.read({ file: 'a.txt:1' }), 'too_large', /over the 100-byte limit/);
      await rejectsCode(small.svc.insert({ file: 'a.txt:0', content: 'x' }), 'too_large');
    } finally {
      small.cleanup();
    }
  });

  it('binary and non-UTF-8 files are refused', async () => {
    ws.write('bin.dat', Buffer.from([1, 2, 0, 3]));
    ws.write('latin.txt', Buffer.from('caf\xe9\n', 'latin1'));
    await rejectsCode(ws.svc.read({ file: 'bin.dat' }), 'binary_file');
    await rejectsCode(ws.svc.read({ file: 'latin.txt' }), 'encoding', /offset 3 \(line 1\)/);
  });

  it('paths outside the roots and missing files', async () => {
    fs.writeFileSync(path.join(ws.outside, 's.txt'), 'secret');
    fs.symlinkSync(path.join(ws.outside, 's.txt'), ws.p('link.txt'));
    await rejectsCode(ws.svc.read({ file: '../outside/s.txt' }), 'outside_roots');
    await rejectsCode(ws.svc.read({ file: 'link.txt' }), 'outside_roots');
    await rejectsCode(ws.svc.read({ file: 'nope.txt' }), 'not_found', /nope\.txt/);
  });

  it('target line and marker', async () => {
    ws.write('a.txt', 'alpha\nbeta // TODO here\ngamma\n');
    const t = await ws.svc.read({ file: 'a.txt', target: { kind: 'line', value: '3' } });
    assert.deepEqual([t.start, t.end], [3, 3]);
    const m = await ws.svc.read({ file: 'a.txt', target: { kind: 'marker', value: '  TODO here ' } });
    assert.deepEqual([m.start, m.end], [2, 2]);
    await rejectsCode(ws.svc.read({ file: 'a.txt', target: { kind: 'marker', value: 'nope' } }), 'invalid_argument', /marker not found/);
    await rejectsCode(ws.svc.read({ file: 'a.txt', target: { kind: 'line', value: '9' } }), 'invalid_argument', /out of range/);
  });

  it('flaw: target function is brace-based, so a Python def fails', async () => {
    ws.write('m.py', 'import os\n\ndef helper(x):\n    y = x + 1\n    return y\n\nclass A:\n    def run(self):\n        return 1\n');
    const t = await ws.svc.read({ file: 'm.py', target: { kind: 'function', value: 'helper' } });
    assert.deepEqual([t.start, t.end], [3, 5]);
    const inner = await ws.svc.read({ file: 'm.py', target: { kind: 'function', value: '9' } });
    assert.deepEqual([inner.start, inner.end], [8, 9]);
  });

  it('target tag', async () => {
    ws.write('p.html', '<html>\n<body>\n<div class="a">\n  <p>hi</p>\n</div>\n</body>\n</html>\n');
    const t = await ws.svc.read({ file: 'p.html', target: { kind: 'tag', value: 'div' } });
    assert.deepEqual([t.start, t.end], [3, 5]);
  });

  it('target tag matches the whole tag name: div is not <divider>', async () => {
    ws.write('q.html', '<html>\n<divider>\n</divider>\n<div class="a">\n  <p>hi</p>\n</div>\n</html>\n');
    const t = await ws.svc.read({ file: 'q.html', target: { kind: 'tag', value: 'div' } });
    assert.deepEqual([t.start, t.end], [4, 6]);
  });
});
