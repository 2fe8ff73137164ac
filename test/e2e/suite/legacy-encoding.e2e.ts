// Legacy encodings in the real extension host: VS Code's `files.encoding` (for the workspace, and per language)
// decides how be-read decodes a file and how be-replace writes it back, and an open document's own encoding wins
// over both. VS Code's own codec (vscode.workspace.encode) writes the fixtures and is the oracle for the bytes.
// The fixtures are picked so that the setting matters: without it the GBK file is not guessed at all, and the
// Shift_JIS bytes are valid (other) text in GBK. (Runs after extension.e2e.ts, which starts the server.)
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as vscode from 'vscode';
import { vscodeLanguageOf } from '../../../src/vscode/languageOfPath';
import { activate, invoke, invokeOk, serverTools, ws } from '../support/host';

const GBK_LINES = ['// 价格（含税）', '#define PRICE 42', '// 结束'];
const SJIS_LINES = ['設定ファイル', '名前 = テスト', '終わり'];
const text = (lines: string[]) => lines.map((l) => `${l}\n`).join('');
const encode = async (s: string, encoding: string) => Buffer.from(await vscode.workspace.encode(s, { encoding }));

describe('legacy encodings under VS Code settings', function () {
  this.timeout(90000);
  const files = vscode.workspace.getConfiguration('files');
  const cpp = () => vscode.workspace.getConfiguration('files', { languageId: 'cpp' });

  before(async () => {
    await activate();
    await serverTools();
    fs.mkdirSync(ws('legacy'), { recursive: true });
  });
  afterEach(async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await files.update('encoding', undefined, vscode.ConfigurationTarget.Workspace);
    await files.update('associations', undefined, vscode.ConfigurationTarget.Workspace);
    await cpp().update('encoding', undefined, vscode.ConfigurationTarget.Workspace, true);
  });
  after(() => fs.rmSync(ws('legacy'), { recursive: true, force: true }));

  /** be-replace of line 2, then the bytes on disk: exactly `encoding`'s bytes of the new text (lines 1 and 3 as they were). */
  async function replaceLine2(rel: string, lines: string[], line2: string, encoding: string): Promise<void> {
    const before = fs.readFileSync(ws(rel));
    await invokeOk('be-replace', { file: `${rel}:2`, content: line2 });
    const after = fs.readFileSync(ws(rel));
    const want = await encode(text([lines[0]!, line2, lines[2]!]), encoding);
    assert.deepEqual(after, want, `${rel} holds ${encoding} bytes of the edited text: ${after.toString('hex')}`);
    const l1 = await encode(`${lines[0]}\n`, encoding);
    const l3 = await encode(`${lines[2]}\n`, encoding);
    assert.deepEqual(after.subarray(0, l1.length), before.subarray(0, l1.length), 'line 1 byte-identical');
    assert.deepEqual(after.subarray(after.length - l3.length), before.subarray(before.length - l3.length), 'line 3 byte-identical');
  }

  it('files.encoding = gbk (workspace setting): be-read gives the Chinese text, be-replace writes GBK back', async () => {
    const rel = 'legacy/price.c';
    const bytes = await encode(text(GBK_LINES), 'gbk');
    assert.ok(!bytes.equals(Buffer.from(text(GBK_LINES), 'utf8')), 'the fixture is not UTF-8');
    fs.writeFileSync(ws(rel), bytes);
    await files.update('encoding', 'gbk', vscode.ConfigurationTarget.Workspace);
    const read = await invokeOk('be-read', { file: rel });
    for (const l of GBK_LINES) assert.ok(read.includes(l), `be-read shows "${l}": ${read}`);
    await replaceLine2(rel, GBK_LINES, '#define PRICE 43 // 新价格', 'gbk');
  });

  it('a per-language override ([cpp] files.encoding = gbk) applies to a closed .h file, which VS Code calls cpp', async () => {
    const rel = 'legacy/price.h';
    fs.writeFileSync(ws(rel), await encode(text(GBK_LINES), 'gbk'));
    await cpp().update('encoding', 'gbk', vscode.ConfigurationTarget.Workspace, true);
    assert.equal(vscode.workspace.textDocuments.some((d) => d.uri.fsPath === ws(rel)), false, 'not opened: the language comes from the path');
    // the lookup every read of a closed file makes (the installed extensions' languages): its cost, printed
    const perLookup = () => {
      const t0 = performance.now();
      for (let i = 0; i < 100; i++) assert.equal(vscodeLanguageOf(ws(rel)), 'cpp');
      return ((performance.now() - t0) / 100).toFixed(3);
    };
    console.log(`figure: language of a closed file by its name (${vscode.extensions.all.length} extensions) = ${perLookup()} ms per lookup`);
    await files.update('associations', { '*.hdr': 'cpp', 'legacy/old/**': 'cpp' }, vscode.ConfigurationTarget.Workspace);
    assert.equal(vscodeLanguageOf(ws('legacy/x.hdr')), 'cpp', 'files.associations by name');
    assert.equal(vscodeLanguageOf(ws('legacy/old/y.txt')), 'cpp', 'files.associations by a path glob');
    assert.equal(vscodeLanguageOf(ws('legacy/y.txt')), 'plaintext');
    console.log(`figure: the same with 2 files.associations = ${perLookup()} ms per lookup`);
    const read = await invokeOk('be-read', { file: rel });
    for (const l of GBK_LINES) assert.ok(read.includes(l), `be-read shows "${l}": ${read}`);
    await replaceLine2(rel, GBK_LINES, '#define PRICE 44 // 价格', 'gbk');
  });

  it("an open document's own encoding (opened as Shift_JIS) wins over files.encoding = gbk; text it cannot hold is refused", async () => {
    const rel = 'legacy/settings.txt';
    const original = await encode(text(SJIS_LINES), 'shiftjis');
    fs.writeFileSync(ws(rel), original);
    await files.update('encoding', 'gbk', vscode.ConfigurationTarget.Workspace);
    const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(ws(rel)), { encoding: 'shiftjis' });
    await vscode.window.showTextDocument(doc);
    assert.equal(doc.encoding, 'shiftjis');
    assert.equal(doc.getText(), text(SJIS_LINES));
    const read = await invokeOk('be-read', { file: rel });
    for (const l of SJIS_LINES) assert.ok(read.includes(l), `be-read shows "${l}" (not its GBK reading): ${read}`);
    await replaceLine2(rel, SJIS_LINES, '名前 = 本番', 'shiftjis');
    assert.equal(doc.isDirty, false, 'saved');
    assert.equal(doc.getText(), text([SJIS_LINES[0]!, '名前 = 本番', SJIS_LINES[2]!]));

    const saved = fs.readFileSync(ws(rel));
    const refused = await invoke('be-replace', { file: `${rel}:3`, content: '終わり 😀' });
    assert.match(refused.text, /"😀" \(U\+1F600, line 3\) cannot be written in shift_jis/, `a clear refusal: ${refused.text}`);
    assert.deepEqual(fs.readFileSync(ws(rel)), saved, 'nothing written');
    assert.equal(doc.getText(), text([SJIS_LINES[0]!, '名前 = 本番', SJIS_LINES[2]!]), 'the document is unchanged');
    assert.equal(doc.isDirty, false);
  });
});
