/**
 * The line index reused across reads of one big file (src/core/read/bufferCache.ts) and pages cut from it without
 * splitting the file (paginate's `source`): the same pages as from the split lines, a new index whenever the bytes
 * differ (same size and all), and a page through the ContextService that shows an edit of the same size at once.
 */
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs/promises';
import fc from 'fast-check';
import { TextBufferCache } from '../../../src/core/read/bufferCache';
import { TextBuffer } from '../../../src/core/text/lines';
import { paginate } from '../../../src/core/context/full';
import { docLines } from '../../../src/core/read/rows';
import { getTokenizer } from '../../../src/core/memory/node/tokenizer';
import { createServices } from '../../../src/mcp/services';
import { tmpWorkspace } from '../../mcp/helpers';

const tk = getTokenizer();
const big = (fill: string) => Buffer.from(`${fill}\n`.repeat(300_000 / (fill.length + 1)));

describe('core/read TextBufferCache and pages from a line source', function () {
  this.timeout(60_000);

  it('a read that finds its bytes cached gives its own buffer back; a miss, or the cached buffer itself, never', () => {
    const given: Buffer[] = [];
    const cache = new TextBufferCache(undefined, undefined, (b) => given.push(b));
    const a = big('alpha');
    const first = cache.bufferOf('/f', a);
    assert.deepEqual(given, [], 'a miss keeps the bytes it read');
    const again = Buffer.from(a);
    assert.equal(cache.bufferOf('/f', again), first);
    assert.equal(given.length, 1);
    assert.equal(given[0], again, 'the second read\'s own buffer');
    assert.equal(cache.bufferOf('/f', first.bytes), first);
    assert.equal(given.length, 1, 'the cached buffer is never given away');
    const other = Buffer.from(a);
    other[10] = 'X'.charCodeAt(0);
    cache.bufferOf('/f', other);
    assert.equal(given.length, 1, 'other bytes: a new entry over them');
  });

  it('reuses the index of the same bytes, builds a new one for any other bytes', () => {
    const cache = new TextBufferCache();
    const a = big('alpha');
    const first = cache.bufferOf('/f', a);
    assert.equal(cache.bufferOf('/f', Buffer.from(a)), first, 'same bytes, another read: the same index');
    const same = Buffer.from(a);
    same[10] = 'X'.charCodeAt(0); // same size, one byte changed
    const second = cache.bufferOf('/f', same);
    assert.notEqual(second, first);
    assert.equal(second.lineText(2), 'alphX');
    assert.equal(first.lineText(2), 'alpha');
    assert.notEqual(cache.bufferOf('/g', a), first, 'another path: its own index');
    cache.forget('/f');
    assert.notEqual(cache.bufferOf('/f', same), second);
    // small files are never kept
    const small = Buffer.from('a\nb\n');
    assert.notEqual(cache.bufferOf('/s', small), cache.bufferOf('/s', small));
  });

  it('keeps at most its byte budget, the least recently used going first', () => {
    const cache = new TextBufferCache(700_000);
    const a = cache.bufferOf('/a', big('aaaa'));
    const b = cache.bufferOf('/b', big('bbbb'));
    assert.equal(cache.bufferOf('/a', big('aaaa')), a); // a is now the most recent
    cache.bufferOf('/c', big('cccc')); // over budget: b goes
    assert.equal(cache.bufferOf('/a', big('aaaa')), a);
    assert.notEqual(cache.bufferOf('/b', big('bbbb')), b);
  });

  it('a page from the line source equals the page from the split lines (property)', () => {
    const line = fc.oneof(fc.constant(''), fc.string({ maxLength: 40 }), fc.string({ maxLength: 600 }));
    fc.assert(
      fc.property(fc.array(line, { maxLength: 60 }), fc.nat(70), fc.nat(70), fc.integer({ min: 1, max: 200 }), fc.integer({ min: 16, max: 300 }), fc.constantFrom('\n', '\r\n'), (ls, s, e, column, limit, eol) => {
        const doc = new TextBuffer(Buffer.from(ls.join(eol)));
        const lines = docLines(doc);
        const req = { path: 'f.txt', start: s || undefined, end: e || undefined, column, limit, tokenizer: tk };
        const fromSource = paginate({ ...req, source: { count: doc.lineCount, line: (n) => doc.lineText(n) } });
        assert.deepEqual(fromSource, paginate({ ...req, lines }));
      }),
      { numRuns: 300 },
    );
  });

  it('a full page shows an edit of the same size made between two reads (no stale index)', async () => {
    const ws = await tmpWorkspace();
    const s = await createServices({ roots: [ws.root], chipDir: ws.chipDir, historyDir: ws.historyDir });
    try {
      const text = 'x'.repeat(30) + '\n';
      const path = await ws.write('big.txt', text.repeat(20_000));
      const st = await fs.stat(path);
      const p1 = await s.context!.read({ file: 'big.txt:1-2', mode: 'full' });
      assert.match((p1 as { content: string }).content, /^1\tx{30}/);
      await fs.writeFile(path, 'y'.repeat(30) + '\n' + text.repeat(19_999));
      await fs.utimes(path, st.atime, st.mtime); // same size, same mtime
      const p2 = await s.context!.read({ file: 'big.txt:1-2', mode: 'full' });
      assert.match((p2 as { content: string }).content, /^1\ty{30}/);
    } finally {
      await s.close();
      await ws.dispose();
    }
  });
});
