/**
 * The rows of a text read page (render/common.ts compactRows): whatever the lines, a reader that knows only the
 * rule the be-read description states ("N text"; an unnumbered row follows the one above; the header's range, or
 * line 1 when there is none, says where the rows start) gets every line back, with its number. Checked as a
 * property on the renderer, then end to end on the real stdio server.
 */
import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { readLines } from '../../bench/context/adapter';
import { renderReadPage } from '../../src/mcp/render/index';
import { buildCli, stdioClient, textOf, tmpWorkspace, type Connected, type Workspace } from './helpers';

const ctx = { listedName: (n: string) => n };

/** The stated rule, and nothing else. */
function decode(view: string): Map<number, string> {
  const [head, ...rows] = view.split('\n');
  let n = Number(/^(\d+)-\d+\/\d+/.exec(head!)?.[1] ?? 1) - 1;
  const out = new Map<number, string>();
  for (const row of rows) {
    const m = /^(\d+) (.*)$/s.exec(row);
    if (m) {
      assert.equal(Number(m[1]), n + 1, `row ${JSON.stringify(row)} skips a line`);
      n = Number(m[1]);
      out.set(n, m[2]!);
    } else {
      out.set(++n, row);
    }
  }
  return out;
}

const line = fc.oneof(
  fc.constantFrom('', '}', '  }', '\t}', ' */', ' *', '});', ')', '   ', '<blank>', '12 x', '7', '0 ', '!', '! warning-like'),
  fc.string({ unit: 'grapheme', maxLength: 12 }).filter((s) => !/[\r\n]/.test(s)),
);

describe('read rows: every line comes back from the text rows', () => {
  it('property: any lines, any page start: decoded by the stated rule they are the lines, and a bare row is symbols-only right after a numbered row', () => {
    fc.assert(
      fc.property(fc.array(line, { minLength: 1, maxLength: 40 }), fc.nat(2000), fc.boolean(), (lines, offset, whole) => {
        const start = whole ? 1 : offset + 1;
        const total = whole ? lines.length : start + lines.length - 1 + 5;
        const end = start + lines.length - 1;
        const content = lines.map((t, i) => `${start + i}\t${t}`).join('\n');
        const view = renderReadPage({ mode: 'full', file: 'f.txt', start, end, total, viewed_code_id: 'w1', content }, ctx);
        const got = decode(view);
        assert.deepEqual([...got.keys()], lines.map((_, i) => start + i));
        assert.deepEqual([...got.values()], lines);
        // a bare row holds no letter or digit and follows a numbered row; a page's first row with text is numbered
        const rows = view.split('\n').slice(1);
        rows.forEach((row, i) => {
          if (lines[i] === '' || /^\d+ /.test(row)) return;
          assert.match(row, /^[^\p{L}\p{N}]*$/u);
          assert.ok(i > 0 && /^\d+ /.test(rows[i - 1]!), `bare row ${i} does not follow a numbered row`);
        });
      }),
      { numRuns: 400 },
    );
  });

  describe('the real stdio server, text replies', function () {
    this.timeout(60_000);
    let ws: Workspace;
    let c: Connected;
    const lines = ['package main', '', 'func f() {', '\tif x {', '\t\treturn', '\t}', '}', '<blank>', '   ', '/*', ' *', ' */', '42 is a line', ''];
    before(async () => {
      await buildCli();
      ws = await tmpWorkspace();
      await ws.write('m.go', lines.join('\n') + '\n');
      c = await stdioClient(ws, ['--reply', 'text']);
    });
    after(async () => {
      await c?.close();
      await ws?.dispose();
    });

    for (const [label, args] of [
      ['full', { file: 'm.go', mode: 'full' }],
      ['a range', { file: 'm.go:6-13' }],
      ['a function target', { file: 'm.go', target: { kind: 'function', value: 'f' } }],
    ] as const) {
      it(`${label}: the rows decode to the file's lines, a line "<blank>" included`, async () => {
        const r = (await c.client.callTool({ name: 'be-read', arguments: args })) as CallToolResult;
        assert.equal(r.isError, undefined, textOf(r));
        const got = decode(textOf(r));
        assert.ok(got.size > 0);
        for (const [n, text] of got) assert.equal(text, lines[n - 1], `line ${n}`);
        // the benchmark's reader (what the scripted agent edits with) agrees
        assert.deepEqual([...readLines(r)], [...got]);
      });
    }
  });
});
