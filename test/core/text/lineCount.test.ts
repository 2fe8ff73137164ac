import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { countLines, countLinesOfBytes, lineAtByte, lineAtIndex } from '../../../src/core/text/lineCount';
import { TextBuffer } from '../../../src/core/text/lines';

describe('core/text line counting', () => {
  it('counts lines as TextBuffer does: a last line without LF counts, a final LF opens none', () => {
    for (const [text, n] of [['', 0], ['a', 1], ['a\n', 1], ['a\nb', 2], ['a\nb\n', 2], ['\n', 1], ['\n\n', 2], ['a\r\nb\r\n', 2]] as const) {
      assert.equal(countLines(text), n, JSON.stringify(text));
      assert.equal(countLinesOfBytes(Buffer.from(text)), n, JSON.stringify(text));
    }
  });

  it('the line of an offset is one more than the LFs before it (a subarray counts from its own start)', () => {
    const bytes = Buffer.from('xx\nab\ncd');
    assert.deepEqual([0, 2, 3, 5, 6, 7, 99].map((o) => lineAtByte(bytes, o)), [1, 1, 2, 2, 3, 3, 3]);
    assert.equal(lineAtByte(Buffer.from('\n\nz').subarray(2), 0), 1);
    assert.equal(lineAtIndex('ab\ncd', 3), 2);
    assert.equal(lineAtIndex('ab\ncd', 2), 1);
  });

  it('agrees with TextBuffer and with a split on any text (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom('a', 'é', '\n', '\r', ' '), { maxLength: 40 }).map((a) => a.join('')), fc.nat(45), (text, at) => {
        const bytes = Buffer.from(text, 'utf8');
        assert.equal(countLinesOfBytes(bytes), new TextBuffer(bytes).lineCount);
        assert.equal(countLines(text), new TextBuffer(bytes).lineCount);
        assert.equal(lineAtIndex(text, at), text.slice(0, at).split('\n').length);
        const off = Math.min(at, bytes.length);
        assert.equal(lineAtByte(bytes, off), bytes.subarray(0, off).toString('latin1').split('\n').length);
      }),
      { numRuns: 500 },
    );
  });
});
