/**
 * Every read path shows the same lines, from the one line model the edit tools use, for any text: CR, CRLF, LF,
 * mixed, a BOM, empty, no final newline, a lone "\r" anywhere (at the end too). And an edit made from a page's
 * rows and id lands exactly on the line shown. Before the read module, the context modes re-split the text: a
 * lone trailing "\r" was shown stripped and be-replace refused the row as a conflict; an empty file's page had no
 * viewed_code_id; `file:ALL` gave an outline.
 */
import { strict as assert } from 'node:assert';
import { promises as fs } from 'node:fs';
import fc from 'fast-check';
import { TextBuffer } from '../../../src/core/text/lines';
import { createServices, type Services } from '../../../src/mcp/services';
import { tmpWorkspace, type Workspace } from '../../mcp/helpers';

const textArb = fc
  .record({
    bom: fc.boolean(),
    parts: fc.array(fc.constantFrom('a', 'y', ' ', 'é', '世', '{', '\r', '\n', '\r\n', '\r\r\n'), { maxLength: 14 }),
  })
  .map(({ bom, parts }) => Buffer.from((bom ? '\ufeff' : '') + parts.join(''), 'utf8'));

/** `N<TAB>text` rows back to [N, text]. */
const rows = (content: string): Array<[number, string]> =>
  content === '' ? [] : content.split('\n').map((r) => {
    const tab = r.indexOf('\t');
    const t = r.slice(tab + 1);
    return [Number(r.slice(0, tab)), t === '<blank>' ? '' : t];
  });

describe('core/read: one line model for every read path', function () {
  this.timeout(120_000);
  let ws: Workspace;
  let services: Services;
  let n = 0;
  before(async () => {
    ws = await tmpWorkspace();
    services = await createServices({ roots: [ws.root], chipDir: ws.chipDir, historyDir: ws.historyDir, context: { watch: false } });
  });
  after(async () => {
    await services?.close();
    await ws?.dispose();
  });

  it('property: upstream be-read, a full page and file:ALL show the same lines with the same id fields; an edit from a row and the id lands exactly', async () => {
    await fc.assert(
      fc.asyncProperty(textArb, fc.nat(), async (bytes, pick) => {
        const rel = `p${n++}.txt`;
        await ws.write(rel, bytes);
        const doc = new TextBuffer(bytes);
        const expected = doc.lines(1, doc.lineCount).map((t, i): [number, string] => [i + 1, t]);
        const upstream = (await services.edits.read({ file: rel })) as unknown as Record<string, unknown>;
        const page = (await services.context!.read({ file: rel, mode: 'full' })) as unknown as Record<string, unknown>;
        const all = (await services.context!.read({ file: `${rel}:ALL` })) as unknown as Record<string, unknown>;
        assert.equal(all.mode, 'full', ':ALL reads the file, not an outline');
        for (const r of [upstream, page, all]) {
          assert.deepEqual(rows(String(r.content)), expected);
          for (const k of ['viewed_code_id', 'eol', 'bom', 'final_newline', 'total', 'start', 'end']) assert.deepEqual(r[k], upstream[k], k);
        }
        assert.match(String(page.viewed_code_id), /\S/, 'every page has an id, an empty file too');
        if (doc.lineCount === 0) return;
        // the agent replaces the row it saw, naming the row's text as `old`, with the page's id
        const [line, old] = expected[pick % expected.length]!;
        await services.edits.replace({ file: `${rel}:${line}`, old, content: 'EDIT', viewed_code_id: String(page.viewed_code_id) });
        const want = Buffer.concat([bytes.subarray(0, doc.lineStart(line)), Buffer.from('EDIT'), bytes.subarray(doc.contentEnd(line))]);
        const got = await fs.readFile(ws.file(rel));
        assert.ok(got.equals(want), JSON.stringify({ bytes: bytes.toString(), line, got: got.toString(), want: want.toString() }));
      }),
      { numRuns: 60 },
    );
  });

  it('a lone trailing "\\r": the page shows it, be-replace of that row is no conflict', async () => {
    await ws.write('cr.txt', 'x\ny\r');
    const page = (await services.context!.read({ file: 'cr.txt', mode: 'full' })) as unknown as Record<string, unknown>;
    assert.equal(page.content, '1\tx\n2\ty\r');
    await services.edits.replace({ file: 'cr.txt:2', old: 'y\r', content: 'z', viewed_code_id: String(page.viewed_code_id) });
    assert.equal(await fs.readFile(ws.file('cr.txt'), 'utf8'), 'x\nz');
  });

  it('an empty file read in a context mode has its viewed_code_id, eol and bom, as upstream', async () => {
    await ws.write('empty.txt', '');
    const page = (await services.context!.read({ file: 'empty.txt', mode: 'full' })) as unknown as Record<string, unknown>;
    const upstream = (await services.edits.read({ file: 'empty.txt' })) as unknown as Record<string, unknown>;
    assert.match(String(page.viewed_code_id), /\S/);
    for (const k of ['viewed_code_id', 'eol', 'bom', 'final_newline', 'total']) assert.deepEqual(page[k], upstream[k], k);
    await services.edits.replace({ file: 'empty.txt:ALL', content: 'hello\n', viewed_code_id: String(page.viewed_code_id) });
    assert.equal(await fs.readFile(ws.file('empty.txt'), 'utf8'), 'hello\n');
  });

  it('file:ALL reads the whole file (paged) in the default auto mode, also when the file is large', async () => {
    const big = Array.from({ length: 3000 }, (_, i) => `export const value${i} = ${i}; // a line long enough to matter`).join('\n') + '\n';
    await ws.write('big.ts', big);
    const auto = await services.context!.read({ file: 'big.ts' });
    assert.equal(auto.mode, 'structure', 'no range: a large file is outlined in auto mode');
    const all = (await services.context!.read({ file: 'big.ts:ALL' })) as unknown as Record<string, unknown>;
    assert.equal(all.mode, 'full');
    assert.equal(all.start, 1);
    assert.ok(Number(all.end) < 3000, 'paged');
  });
});
