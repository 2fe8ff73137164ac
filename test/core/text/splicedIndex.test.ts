/**
 * TextBuffer.splicedIndex: the line index of a spliced buffer derived from the old one equals a fresh scan of the
 * new bytes, for any bytes (BOM, CR, LF, CRLF, none) and any splice; only a splice that cuts into a BOM, makes one or
 * unmakes one gets none (the new bytes are scanned then).
 */
import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { TextBuffer } from '../../../src/core/text/lines';

const BOM = [0xef, 0xbb, 0xbf];
/** bytes rich in line terminators: CR, LF, CR LF, a letter, and a BOM's bytes loose in the text */
const textBytes = fc.array(fc.constantFrom(10, 13, 97, 0xef, 0xbb, 0xbf), { maxLength: 40 });

function fresh(doc: Buffer) {
  const t = new TextBuffer(doc);
  return { lineCount: t.lineCount, crlfCount: t.crlfCount, lfCount: t.lfCount, starts: Array.from({ length: t.lineCount }, (_, i) => t.lineStart(i + 1)) };
}

describe('core/text TextBuffer.splicedIndex', () => {
  it('equals a fresh scan of the spliced bytes; none only for a splice that changes the BOM', () => {
    fc.assert(
      fc.property(fc.boolean(), textBytes, textBytes, fc.nat(), fc.nat(), (withBom, body, insert, a, z) => {
        const bytes = Buffer.from([...(withBom ? BOM : []), ...body]);
        const offset = a % (bytes.length + 1);
        const removeEnd = offset + (z % (bytes.length - offset + 1));
        const old = new TextBuffer(bytes);
        const ins = Buffer.from(insert);
        const index = old.splicedIndex(offset, removeEnd, ins);
        const after = Buffer.concat([bytes.subarray(0, offset), ins, bytes.subarray(removeEnd)]);
        const bomChanges = offset < old.bomLength || new TextBuffer(after).bomLength !== old.bomLength;
        if (bomChanges) return assert.equal(index, undefined, 'a splice into the BOM, or one that makes or unmakes one');
        assert.ok(index, 'an index for a splice after the BOM');
        assert.equal(index.size, after.length);
        const derived = new TextBuffer(after, index);
        const got = { lineCount: derived.lineCount, crlfCount: derived.crlfCount, lfCount: derived.lfCount, starts: Array.from({ length: derived.lineCount }, (_, i) => derived.lineStart(i + 1)) };
        assert.deepEqual(got, fresh(after), `${JSON.stringify(bytes.toString('latin1'))} [${offset}, ${removeEnd}) ← ${JSON.stringify(ins.toString('latin1'))}`);
      }),
      { numRuns: 3000 },
    );
  });

  it('an index given for other bytes (another size) is not used: the bytes are scanned', () => {
    const old = new TextBuffer(Buffer.from('a\nb\n'));
    const index = old.splicedIndex(2, 2, Buffer.from('x\n'))!;
    const t = new TextBuffer(Buffer.from('a\nb\nc\nd\n'), index);
    assert.equal(t.lineCount, 4);
  });
});
