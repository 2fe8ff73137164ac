/**
 * VscodeFileStore (src/vscode/vscodeFileStore.ts) through the vscode double, over a real disk store in a temp
 * folder: which files go through the editor, the user's unsaved text kept, one minimal edit, EOLs, saving per
 * setting, conflicts and refusals that change nothing, staged writes of be-apply, the encoding VS Code would use.
 */
import { double, testLog } from './double/install';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { NodeFileStore } from '../../src/core/files/nodeFileStore';
import { isToolError } from '../../src/core/errors';
import { minimalEdit, VscodeFileStore, vscodeEncodingFor, type SaveAfterEdit } from '../../src/vscode/vscodeFileStore';

const sha = (s: string | Buffer) => createHash('sha256').update(s).digest('hex');
const bytes = (s: string) => Buffer.from(s, 'utf8');

describe('vscode/vscodeFileStore (through the vscode double)', () => {
  let dir: string;
  let save: SaveAfterEdit;
  let store: VscodeFileStore;
  const file = (name: string) => path.join(dir, name);

  beforeEach(async () => {
    double.reset();
    dir = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'bet-vsfs-')));
    save = 'whenNotDirty';
    store = new VscodeFileStore(new NodeFileStore({ syncDirectory: false }), { saveAfterEdit: () => save, log: testLog() });
  });
  afterEach(() => fs.rm(dir, { recursive: true, force: true }));

  it('a file not open in an editor is read and written on disk', async () => {
    await fs.writeFile(file('a.txt'), 'one\n');
    assert.equal((await store.read(file('a.txt'))).bytes.toString(), 'one\n');
    await store.write(file('a.txt'), bytes('two\n'));
    assert.equal(await fs.readFile(file('a.txt'), 'utf8'), 'two\n');
    assert.equal(store.openDocument(file('a.txt')), undefined);
  });

  it('a document open in a tab is edited through one minimal WorkspaceEdit, saved (whenNotDirty), with the sha256 of the result', async () => {
    await fs.writeFile(file('a.ts'), 'a\nb\nc\n');
    const doc = await double.open(file('a.ts'));
    const st = await store.write(file('a.ts'), bytes('a\nB\nc\n'));
    assert.equal(doc.getText(), 'a\nB\nc\n');
    assert.equal(doc.saves, 1);
    assert.equal(await fs.readFile(file('a.ts'), 'utf8'), 'a\nB\nc\n');
    assert.equal(st.sha256, sha('a\nB\nc\n'));
    assert.equal(st.size, 6);
  });

  it('a closed document, or one open only in the background (no tab, no editor), goes to disk', async () => {
    await fs.writeFile(file('a.ts'), 'x\n');
    const doc = await double.open(file('a.ts'), { tab: false });
    await store.write(file('a.ts'), bytes('y\n'));
    assert.equal(doc.getText(), 'x\n', 'the background document was not edited');
    assert.equal(await fs.readFile(file('a.ts'), 'utf8'), 'y\n');
  });

  it('a dirty buffer is the truth: read serves it (the disk BOM kept), the edit keeps it unsaved', async () => {
    await fs.writeFile(file('b.ts'), Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), bytes('disk\n')]));
    const doc = await double.open(file('b.ts'), { text: 'disk\n' });
    doc.type('typed\n');
    const read = await store.read(file('b.ts'));
    assert.deepEqual([...read.bytes.subarray(0, 3)], [0xef, 0xbb, 0xbf]);
    assert.equal(read.bytes.subarray(3).toString(), 'typed\n');
    assert.equal(store.unsaved(file('b.ts'))?.toString(), 'typed\n');
    const st = await store.write(file('b.ts'), Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), bytes('typed\nmore\n')]), { expectedContent: read.bytes });
    assert.equal(doc.getText(), 'typed\nmore\n');
    assert.equal(doc.saves, 0, 'whenNotDirty leaves the user\'s unsaved work unsaved');
    assert.equal((await fs.readFile(file('b.ts'))).subarray(3).toString(), 'disk\n');
    assert.equal(st.sha256, sha(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), bytes('typed\nmore\n')])));
  });

  it('saveAfterEdit always saves a dirty document too; never saves none', async () => {
    await fs.writeFile(file('c.ts'), 'c\n');
    const doc = await double.open(file('c.ts'));
    save = 'never';
    await store.write(file('c.ts'), bytes('c1\n'));
    assert.equal(doc.saves, 0);
    save = 'always';
    await store.write(file('c.ts'), bytes('c2\n'));
    assert.equal(doc.saves, 1);
    assert.equal(await fs.readFile(file('c.ts'), 'utf8'), 'c2\n');
  });

  it('the user typed since the read: a conflict, and the buffer is left as the user has it', async () => {
    await fs.writeFile(file('d.ts'), 'd\n');
    const doc = await double.open(file('d.ts'));
    const read = await store.read(file('d.ts'));
    doc.type('d typed\n');
    await assert.rejects(store.write(file('d.ts'), bytes('e\n'), { expectedContent: read.bytes }), (e) => isToolError(e) && e.code === 'conflict' && /changed in the editor/.test(e.message));
    assert.equal(doc.getText(), 'd typed\n');
  });

  it('a CRLF document gets the edit in its own EOL, and the read-back holds', async () => {
    await fs.writeFile(file('w.txt'), 'a\r\nb\r\n');
    const doc = await double.open(file('w.txt'));
    assert.equal(doc.eol, vscode.EndOfLine.CRLF);
    const st = await store.write(file('w.txt'), bytes('a\nX\n'));
    assert.equal(doc.getText(), 'a\r\nX\r\n');
    assert.equal(st.sha256, sha('a\r\nX\r\n'));
  });

  it('an editor that refuses the edit: a clear io error, nothing changed', async () => {
    await fs.writeFile(file('r.ts'), 'r\n');
    const doc = await double.open(file('r.ts'));
    double.refuseEdits = true;
    await assert.rejects(store.write(file('r.ts'), bytes('s\n')), (e) => isToolError(e) && e.code === 'io' && /refused the edit/.test(e.message));
    assert.equal(doc.getText(), 'r\n');
    assert.equal(await fs.readFile(file('r.ts'), 'utf8'), 'r\n');
  });

  it('a failed save after the edit is logged, the edit stands', async () => {
    await fs.writeFile(file('s.ts'), 's\n');
    const doc = await double.open(file('s.ts'));
    double.failSaves = true;
    await store.write(file('s.ts'), bytes('t\n'));
    assert.equal(doc.getText(), 't\n');
    assert.ok(double.recorded.logs.some((l) => l.level === 'warn' && /could not save/.test(l.text)));
  });

  it('be-apply: an open document is staged, committed through the editor and put back by revert', async () => {
    await fs.writeFile(file('p.ts'), 'p\n');
    const doc = await double.open(file('p.ts'));
    const staged = await store.stage(file('p.ts'), [bytes('p'), bytes('2\n')], { expectedContent: bytes('p\n') });
    assert.equal(doc.getText(), 'p\n', 'nothing before commit');
    await staged.commit();
    assert.equal(doc.getText(), 'p2\n');
    await staged.revert();
    assert.equal(doc.getText(), 'p\n');
  });

  it('minimalEdit replaces only what differs (cursors and folds elsewhere stay)', async () => {
    await fs.writeFile(file('m.ts'), 'keep\nold\nkeep\n');
    const doc = (await double.open(file('m.ts'))) as unknown as vscode.TextDocument;
    const e = minimalEdit(doc, 'keep\nnew\nkeep\n')!;
    assert.deepEqual([e.range.start.line, e.range.start.character, e.range.end.line, e.range.end.character], [1, 0, 1, 3]);
    assert.equal(e.text, 'new');
    assert.equal(minimalEdit(doc, 'keep\nold\nkeep\n'), undefined);
  });

  it('vscodeEncodingFor: an open document\'s encoding wins, else files.encoding; UTF-8 counts as none', async () => {
    await fs.writeFile(file('g.txt'), 'x');
    assert.equal(vscodeEncodingFor(file('g.txt')), undefined);
    double.settings['files.encoding'] = 'windows1252';
    assert.equal(vscodeEncodingFor(file('g.txt')), 'windows1252');
    await double.open(file('g.txt'), { encoding: 'shiftjis' });
    assert.equal(vscodeEncodingFor(file('g.txt')), 'shiftjis');
    double.settings['files.encoding'] = 'utf8';
    assert.equal(vscodeEncodingFor(file('h.txt')), undefined);
  });
});
