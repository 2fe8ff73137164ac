/**
 * Replies written for the model (src/mcp/render/): a snapshot per result kind, and the default text replies of the
 * real stdio server (no structuredContent, a full page under the page limit as the model sees it, the next call
 * named as listed, --no-prefix included), beside `--reply json` (upstream's fields).
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { getEncoding } from 'js-tiktoken';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { renderChipList, renderEditDiff, renderMemory, renderOutline, renderOverview, renderRead, renderReadPage, renderWrite } from '../../src/mcp/render/index';
import { trimContext } from '../../src/mcp/render/editDiff';
import { stdioClient, textOf, tmpWorkspace, type Connected, type Workspace } from './helpers';

const enc = getEncoding('o200k_base');
const ctx = { listedName: (n: string) => n };
const noPrefix = { listedName: (n: string) => n.replace(/^be-/, '') };
/** What VS Code, Claude Code and Codex give the model. */
const modelView = (r: CallToolResult) => (r.structuredContent !== undefined ? JSON.stringify(r.structuredContent) : textOf(r));

describe('mcp render: one renderer per result kind', () => {
  it('read page: one header line (range/total, id, next call), rows `N text` with empty lines empty', () => {
    const text = renderReadPage(
      { mode: 'full', file: 'src/a.ts', start: 1, end: 3, total: 9, viewed_code_id: 'w123', eol: 'lf', bom: false, final_newline: true,
        content: '1\tfunction f() {\n2\t\n3\t}', next: { file: 'src/a.ts:4-9' }, hint: 'page limit 8000 tokens reached; continue with be-read {...}' },
      noPrefix,
    );
    assert.equal(text, '1-3/9 id=w123 next: read {"file":"src/a.ts:4-9","mode":"full"}\n1 function f() {\n\n3 }');
  });

  it('read page: a symbols-only row right after a numbered row is bare; the whole file in one page has only its id', () => {
    const content = ['1\tclass A {', '2\t  f() {', '3\t    return [', '4\t      1,', '5\t    ];', '6\t  }', '7\t}', '8\t', '9\t})', '10\t  ', '11\t/**', '12\t *', '13\t */'].join('\n');
    const text = renderReadPage({ mode: 'full', file: 'a.ts', start: 1, end: 13, total: 13, viewed_code_id: 'w77', content }, ctx);
    assert.equal(text, ['id=w77', '1 class A {', '2   f() {', '3     return [', '4       1,', '    ];', '6   }', '}', '', '9 })', '  ', '11 /**', ' *', '13  */'].join('\n'));
  });

  it('read page: unusual line endings, warnings and a split long line are said once; an empty file says so', () => {
    assert.equal(
      renderReadPage({ file: 'w.txt', start: 2, end: 2, total: 2, viewed_code_id: 'v2.9', eol: 'crlf', bom: true, final_newline: false,
        content: '2\tabc', partial: { line: 2, from: 1, to: 3, length: 10 }, next: { file: 'w.txt:2-2', column: 4 }, warnings: ['mixed'] }, ctx),
      '2-2/2 id=v2.9 eol=crlf bom no-final-newline next: be-read {"file":"w.txt:2-2","mode":"full","column":4}\n! mixed\n! line 2: characters 1-3 of 10\n2 abc',
    );
    assert.equal(renderReadPage({ file: 'e.txt', start: 0, end: 0, total: 0, viewed_code_id: 'w1', content: '' }, ctx), 'id=w1\n(empty file)');
  });

  it('outline and overview: a header line, the text, the hint with the listed tool names', () => {
    assert.equal(
      renderOutline({ mode: 'structure', file: 'a.py', total: 300, file_tokens: 2400, outline: '1-300 class A\n 3-9 f()', hint: 'be-read "a.py:S-E" for lines' }, noPrefix),
      '300 lines, 2400 tokens (structure)\n1-300 class A\n 3-9 f()\nread "a.py:S-E" for lines',
    );
    const ov = { mode: 'overview', path: '.', overview: 'key files\n  a.py 300L — A', files: 4, lines: 500, shown_files: 1, tokens: 20, budget: 1024, hint: 'be-read mode structure' };
    assert.equal(renderOverview(ov, ctx), '. 4 files, 500 lines (1 shown, 20/1024 tokens)\nkey files\n  a.py 300L — A\nbe-read mode structure');
    assert.equal(renderRead(ov, ctx), renderOverview(ov, ctx));
  });

  it('edit diff: a one-line header, balance only when it is not OK, a unified diff trimmed to 3 lines of context', () => {
    const diff = ['@@ -1,11 +1,11 @@', ' 1', ' 2', ' 3', ' 4', ' 5', '-6', '+six', ' 7', ' 8', ' 9', ' 10', ' 11'].join('\n');
    assert.equal(trimContext(diff), ['@@ -3,7 +3,7 @@', ' 3', ' 4', ' 5', '-6', '+six', ' 7', ' 8', ' 9'].join('\n'));
    assert.equal(
      renderEditDiff({ status: 'ok', file: 'a.go', total: 11, diff, balance: 'balance: OK', affected: 'lines 6-6 (file now has 11 lines)', removed: 1, added: 1 }, ctx),
      'a.go: lines 6-6 (file now has 11 lines)\n@@ -3,7 +3,7 @@\n 3\n 4\n 5\n-6\n+six\n 7\n 8\n 9',
    );
    const del = renderEditDiff({ file: 'a.go', diff: '', balance: 'balance: unbalanced (1 open {)', affected: 'lines 2-3 deleted', chip_id: 'ab12cd', warnings: ['deleted text saved as chip://ab12cd'], preview: true }, ctx);
    assert.equal(del, 'a.go: lines 2-3 deleted (preview: not written) removed text: chip://ab12cd\nbalance: unbalanced (1 open {)');
    // an insert at the top: the empty side names the line before it
    assert.equal(trimContext(['@@ -0,0 +1,1 @@', '+x'].join('\n')), '@@ -0,0 +1,1 @@\n+x');
  });

  it('memory window: sections with one line per item, stats on the header line; other actions compact JSON', () => {
    const w = {
      status: 'ok', pinned: [{ id: 'm1', group: 'goal', text: 'Do not touch migrations.' }], summary: 'read a.go\nedited a.go:3',
      fingerprints: ['m4 tool_result be-read a.go:1-40 ok 900t'], recent: ['m9 note/medium 5t: next step'],
      stats: { used: 120, fill: '3%', by_kind: { note: 2 } }, budget_tokens: 1024,
      pinned_omitted: { count: 2, first_ids: ['m2'], list_with: { action: 'pins', offset: 1 } },
    };
    assert.equal(renderMemory(w), [
      'memory window (1024 tokens): used=120 fill=3% by_kind={"note":2}',
      'pinned:', '  m1 [goal]: Do not touch migrations.', '  (+2 pins left out: m2…; list them with {"action":"pins","offset":1})',
      'summary:', 'read a.go\nedited a.go:3', 'evicted (recall by id):', '  m4 tool_result be-read a.go:1-40 ok 900t', 'recent:', '  m9 note/medium 5t: next step',
    ].join('\n'));
    assert.equal(renderMemory({ status: 'ok', id: 'm3', tokens: 4 }), '{"status":"ok","id":"m3","tokens":4}');
  });

  it('write and chip list: one line per file or chip', () => {
    assert.equal(renderWrite({ status: 'ok', files: 1, results: [{ file: 'n.go', lines: 3, bytes: 20, created: true }] }), 'n.go: created, 3 lines, 20 bytes');
    assert.equal(
      renderChipList({ status: 'ok', chips: ['a1'], items: [{ id: 'a1', tool: 'be-delete', created_at: 1, file: 'a.go', range: { start: 2, end: 3 }, size: 12, preview: 'x := 1' }] }),
      '1 chips (insert one with from "chip://<id>")\nchip://a1 be-delete a.go:2-3 12B: x := 1',
    );
    assert.equal(renderChipList({ status: 'ok', chips: [], items: [], message: 'no chips recorded' }), 'no chips recorded');
  });
});

describe('mcp render: the stdio server replies in text by default', function () {
  this.timeout(60000);
  let ws: Workspace;
  let text: Connected;
  let json: Connected;
  let bare: Connected;
  const lines = Array.from({ length: 4000 }, (_, i) => (i % 7 === 3 ? '' : `    value_${i} = compute("item", ${i}) + "\\t" + other['key']  # note ${i}`));
  before(async () => {
    ws = await tmpWorkspace();
    await ws.write('big.py', lines.join('\n') + '\n');
    await ws.write('small.ts', 'function f() {\n  return 1;\n}\n\nexport const x = f();\n');
    text = await stdioClient(ws, ['--reply', 'text']);
    json = await stdioClient(ws, ['--reply', 'json']);
    bare = await stdioClient(ws, ['--reply', 'text', '--no-prefix']);
  });
  /** The first 16 hex digits of the SHA-256 of the file as it is on disk now. */
  const readBack = async (file: string) => createHash('sha256').update(await ws.read(file)).digest('hex').slice(0, 16);
  after(async () => {
    await text?.close();
    await json?.close();
    await bare?.close();
    await ws?.dispose();
  });

  it('a full page has no structuredContent and stays under the 8,000-token page limit as the model sees it', async () => {
    const r = (await text.client.callTool({ name: 'be-read', arguments: { file: 'big.py', mode: 'full' } })) as CallToolResult;
    assert.equal(r.structuredContent, undefined);
    const view = modelView(r);
    const tokens = enc.encode(view).length;
    assert.ok(tokens <= 8000 && tokens > 7000, `a full page is ${tokens} model-view tokens`);
    assert.match(view.split('\n')[0]!, /^1-\d+\/4000 id=w\d+ next: be-read \{"file":"big\.py:\d+-4000","mode":"full"\}$/);
    assert.equal(view.split('\n')[4], ''); // line 4 is empty: an empty row, no marker
    // the same page in JSON mode costs more tokens for the same lines
    const j = (await json.client.callTool({ name: 'be-read', arguments: { file: 'big.py', mode: 'full' } })) as CallToolResult;
    const sc = j.structuredContent as { end: number };
    const jsonTokens = enc.encode(modelView(j)).length;
    assert.ok(jsonTokens <= 8000 && jsonTokens > 6000, `a full JSON page is ${jsonTokens} model-view tokens`);
    // the text page holds more lines than the JSON one for the same limit
    assert.ok(Number(/^1-(\d+)/.exec(view)![1]) > sc.end, `text page to ${view.split('\n')[0]}, json to ${sc.end}`);
  });

  it('--no-prefix: the next call names the tool as listed', async () => {
    const r = (await bare.client.callTool({ name: 'read', arguments: { file: 'big.py', mode: 'full' } })) as CallToolResult;
    assert.match(textOf(r).split('\n')[0]!, / next: read \{"file":"big\.py:/);
    await ws.write('sub/x.txt', 'x\n');
    const err = (await bare.client.callTool({ name: 'read', arguments: { file: 'sub' } })) as CallToolResult;
    assert.equal(err.isError, true);
    assert.match(textOf(err), /call overview \{"path":"sub"\}/);
    assert.doesNotMatch(textOf(err), /\bbe-(read|overview)\b/);
    const { tools } = await bare.client.listTools();
    assert.equal(tools.find((t) => t.name === 'read')!._meta?.['anthropic/maxResultSizeChars'], 400_000);
  });

  it('a range read and an edit: the id from the header works, the reply is a small unified diff', async () => {
    const r = (await text.client.callTool({ name: 'be-read', arguments: { file: 'small.ts:1-3' } })) as CallToolResult;
    const head = textOf(r).split('\n')[0]!;
    const id = / id=(w\d+)/.exec(head)![1]!;
    assert.equal(textOf(r), `1-3/5 id=${id}\n1 function f() {\n2   return 1;\n}`);
    const e = (await text.client.callTool({ name: 'be-replace', arguments: { file: 'small.ts:2', content: '  return 2;', viewed_code_id: id } })) as CallToolResult;
    assert.equal(e.isError, undefined);
    assert.equal(e.structuredContent, undefined);
    assert.equal(textOf(e), `small.ts: lines 2-2 (file now has 5 lines) sha256=${await readBack('small.ts')}\n@@ -1,5 +1,5 @@\n function f() {\n-  return 1;\n+  return 2;\n }\n \n export const x = f();`);
    assert.equal((await ws.read('small.ts')).toString(), 'function f() {\n  return 2;\n}\n\nexport const x = f();\n');
  });

  it('every edit tool\'s default reply carries the read-back sha256 of the file on disk (README: every edit result)', async () => {
    await ws.write('e.txt', 'a\nb\nc\n');
    const edit = async (name: string, args: Record<string, unknown>) => {
      const r = (await text.client.callTool({ name, arguments: args })) as CallToolResult;
      assert.equal(r.isError, undefined, `${name}: ${textOf(r)}`);
      return modelView(r);
    };
    const proof = async (file: string) => `sha256=${await readBack(file)}`;
    assert.ok((await edit('be-replace', { file: 'e.txt:2', content: 'B' })).split('\n')[0]!.endsWith(await proof('e.txt')));
    assert.ok((await edit('be-insert', { file: 'e.txt:0', content: 'top' })).split('\n')[0]!.endsWith(await proof('e.txt')));
    const del = await edit('be-delete', { file: 'e.txt:1' });
    assert.ok(del.split('\n')[0]!.endsWith(await proof('e.txt')), del);
    const chip = /chip:\/\/([0-9a-f]+)/.exec(del)![1]!;
    assert.ok((await edit('be-insert-chip', { from: `chip://${chip}`, to: 'e.txt:0' })).split('\n')[0]!.endsWith(await proof('e.txt')));
    assert.equal(await edit('be-write', { file: 'w.txt', content: 'w\n' }), `w.txt: created, 1 lines, 2 bytes ${await proof('w.txt')}`);
    const applied = JSON.parse(await edit('be-apply', { edits: [{ file: 'e.txt:1', content: 'A' }, { file: 'w.txt', content: 'W\n' }] })) as { results: { file: string; sha256: string }[] };
    for (const f of applied.results) assert.equal(`sha256=${f.sha256}`, await proof(f.file));
    // a preview writes nothing, so it proves nothing
    assert.doesNotMatch(await edit('be-replace', { file: 'e.txt:1', content: 'Z', preview: true }), /sha256=/);
  });

  it('--reply json keeps upstream\'s fields in structuredContent', async () => {
    const r = (await json.client.callTool({ name: 'be-read', arguments: { file: 'small.ts:1-2' } })) as CallToolResult;
    const sc = r.structuredContent as Record<string, unknown>;
    assert.equal(sc.start, 1);
    assert.equal(sc.content, '1\tfunction f() {\n2\t  return 2;');
    assert.equal(textOf(r), JSON.stringify(sc));
  });
});
