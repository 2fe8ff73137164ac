/**
 * A big file's next edit loads with the line index the last edit derived (editedIndex.ts) when the bytes on disk
 * are the ones that edit wrote; any other bytes (another writer, even at the same size) are scanned afresh. Seen
 * from outside: the scans of the file's bytes for line ends, the edits' results, the buffers given back.
 */
import { strict as assert } from 'node:assert';
import { EditedIndexCache } from '../../../src/core/read/editedIndex';
import { TextBuffer } from '../../../src/core/text/lines';
import { bigText, countLineScans, line, LINES } from '../read/lineScans';
import { workspace, type Workspace } from './helpers';

describe('core/edits: the line index an edit derives serves the next edit of the file', () => {
  let w: Workspace;
  let size: number;
  /** the line scans over a buffer of the file's size */
  let scans: ReturnType<typeof countLineScans>;

  beforeEach(() => {
    w = workspace();
    const text = bigText();
    size = Buffer.byteLength(text);
    w.write('big.ts', text);
    scans = countLineScans(size);
  });
  afterEach(() => {
    scans.restore();
    w.cleanup();
  });

  /** `line(i)` with a suffix, same length: the file keeps its size */
  const edit = (i: number, tag: string) => w.svc.replace({ file: `big.ts:${i}`, content: `${line(i).slice(0, -4)}${tag}` });

  it('the second edit of a 580 KB file makes no line scan and lands where the first left the lines', async () => {
    assert.ok(size >= 256 * 1024);
    await edit(4000, '//aa');
    assert.ok(scans.count >= LINES, `the first edit scans the file (${scans.count} indexOf calls)`);
    scans.count = 0;
    const r = await edit(4001, '//bb');
    assert.ok(scans.count < 10, `the second edit loads with the derived index (${scans.count} indexOf calls)`);
    assert.equal(r.total, LINES);
    const lines = w.read('big.ts').split('\n');
    assert.equal(lines[3999], `${line(4000).slice(0, -4)}//aa`);
    assert.equal(lines[4000], `${line(4001).slice(0, -4)}//bb`);
    assert.equal(lines[4001], line(4002));
  });

  it('after another writer changed the file at the same size, the next edit scans it and edits the right line', async () => {
    await edit(4000, '//aa');
    // the other writer moves a line end: same bytes count, every line after 10 shifted by one byte
    const lines = w.read('big.ts').split('\n');
    lines[9] = lines[9] + 'x';
    lines[10] = lines[10].slice(1);
    w.write('big.ts', lines.join('\n'));
    assert.equal(w.bytes('big.ts').length, size);
    scans.count = 0;
    await edit(4001, '//bb');
    assert.ok(scans.count >= LINES, `the bytes are not the edit's: scanned (${scans.count} indexOf calls)`);
    const after = w.read('big.ts').split('\n');
    assert.equal(after[4000], `${lines[4000].slice(0, -4)}//bb`, 'line 4001 as the other writer left it, edited');
    assert.equal(after[3999], lines[3999]);
  });

  it("the buffer an edit read is given back to the store at the next load, not while the index needs it", async () => {
    const given: Buffer[] = [];
    const release = w.files.release.bind(w.files);
    w.files.release = (b: Uint8Array) => {
      given.push(b as Buffer);
      release(b);
    };
    await edit(4000, '//aa');
    assert.equal(given.length, 0, 'kept with the index');
    await edit(4001, '//bb');
    assert.equal(given.length, 1, 'the first edit\'s buffer, given back when the second load used the index');
    assert.equal(given[0].length, size);
  });
});

describe('core/edits EditedIndexCache: what it keeps, and for how long', () => {
  const big = (fill: string) => new TextBuffer(Buffer.from(`${fill.repeat(63)}\n`.repeat(5000)));
  const splice = (doc: TextBuffer) => ({ offset: doc.lineStart(2), removeEnd: doc.lineEnd(2), insert: Buffer.from('new\n') });

  it('drops every entry, giving its buffer back, once no edit made one for idleMs', async () => {
    const given: Buffer[] = [];
    const cache = new EditedIndexCache((b) => given.push(b), 32 << 20, 30);
    const doc = big('a');
    assert.equal(cache.remember('/w/a.ts', doc, splice(doc)), true);
    assert.equal(cache.size, 1);
    await new Promise((r) => setTimeout(r, 80));
    assert.equal(cache.size, 0);
    assert.deepEqual(given, [doc.bytes]);
  });

  it('keeps at most maxBytes of files, the oldest going first; a small file is never kept', () => {
    const given: Buffer[] = [];
    const cache = new EditedIndexCache((b) => given.push(b), 500_000); // one 320 KB file, not two
    const [a, b] = [big('a'), big('b')];
    cache.remember('/w/a.ts', a, splice(a));
    cache.remember('/w/b.ts', b, splice(b));
    assert.equal(cache.size, 1);
    assert.deepEqual(given, [a.bytes], 'the older one went, and its buffer back');
    const small = new TextBuffer(Buffer.from('a\nb\nc\n'));
    assert.equal(cache.remember('/w/s.ts', small, splice(small)), false, 'the caller gives a small file\'s buffer back itself');
    cache.clear();
  });
});
