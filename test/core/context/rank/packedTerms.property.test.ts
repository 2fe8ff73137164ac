/**
 * A file's query terms packed in one string (rank/packedTerms.ts): what is written reads back the same, numbers of
 * any size and stems of any characters alike, and termsOf packs exactly the flat list the ranking reads.
 */
import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { TermsReader, TermsWriter } from '../../../../src/core/context/rank/packedTerms';
import { termsOf, unpackTerms } from '../../../../src/core/context/rank/bm25';
import { pathWords, splitWords, stemOf } from '../../../../src/core/context/rank/words';

type Item = { num: number } | { stem: string };

/** The flat list termsOf packed before the packing: per field length, k, k × (stem, count); then the names. */
function flatTerms(doc: { rel: string; summary: string; tags?: { defs: string[] } }): (string | number)[] {
  const out: (string | number)[] = [];
  const bag = (words: string[]) => {
    const counts = new Map<string, number>();
    for (const w of words) if (w.length >= 2) counts.set(stemOf(w), (counts.get(stemOf(w)) ?? 0) + 1);
    out.push([...counts.values()].reduce((a, b) => a + b, 0), counts.size);
    for (const [st, n] of counts) out.push(st, n);
  };
  const defWords: string[] = [];
  const names: string[][] = [];
  for (const name of doc.tags?.defs ?? []) {
    const words = splitWords(name).filter((w) => w.length >= 2);
    defWords.push(...words);
    if (words.length >= 2) names.push(words.map(stemOf));
  }
  bag(pathWords(doc.rel));
  bag(defWords);
  bag(splitWords(doc.summary));
  out.push(names.length);
  for (const n of names) out.push(n.length, ...n);
  return out;
}

describe('context: packed query terms', () => {
  it('reads back every number and stem in the order written (property)', () => {
    const item: fc.Arbitrary<Item> = fc.oneof(
      fc.record({ num: fc.oneof(fc.integer({ min: 0, max: 300 }), fc.integer({ min: 0, max: 0xffffffff })) }),
      fc.record({ stem: fc.oneof(fc.stringMatching(/^[a-z0-9]{0,20}$/), fc.string({ unit: 'binary', maxLength: 12 }), fc.string({ unit: 'grapheme', maxLength: 8 })) }),
    );
    fc.assert(
      fc.property(fc.array(item, { maxLength: 60 }), (items) => {
        const w = new TermsWriter();
        for (const it of items) if ('num' in it) w.num(it.num);
        else w.stem(it.stem);
        const packed = w.done();
        const r = new TermsReader().reset(packed);
        for (const it of items) {
          if ('num' in it) assert.equal(r.num(), it.num);
          else {
            const len = r.stemLength();
            assert.equal(len, it.stem.length);
            assert.ok(Object.is(r.firstCode(len), it.stem.length ? it.stem.charCodeAt(0) : NaN));
            assert.equal(r.text(len), it.stem);
          }
        }
        assert.ok(r.done, 'nothing left over');
      }),
      { numRuns: 500 },
    );
  });

  it('termsOf packs the flat list of a file\'s path, names and summary words (property)', () => {
    const word = fc.stringMatching(/^[A-Za-z][a-z]{0,8}[0-9]{0,3}$/);
    const doc = fc.record({
      rel: fc.array(word, { minLength: 1, maxLength: 4 }).map((p) => p.join('/') + '.ts'),
      summary: fc.array(word, { maxLength: 8 }).map((w) => w.join(' ')),
      defs: fc.array(fc.array(word, { minLength: 1, maxLength: 3 }).map((w) => w.join('_')), { maxLength: 6 }),
    });
    fc.assert(
      fc.property(doc, ({ rel, summary, defs }) => {
        const d = { rel, summary, tags: { defs } };
        assert.deepEqual(unpackTerms(termsOf(d)), flatTerms(d));
      }),
      { numRuns: 300 },
    );
  });

  it('stems of letters and digits pack one byte a character (less than half the flat list)', () => {
    const t = termsOf({ rel: 'src/core/context/rank/bm25.ts', summary: 'Query relevance of files', tags: { defs: ['relevanceSteps', 'termsOf', 'nameMatches'] } });
    assert.ok([...t].every((c) => c.charCodeAt(0) < 256), 'one-byte characters only');
    // the flat list took 8 bytes an entry: the string takes less than half of that
    assert.ok(t.length < (8 * unpackTerms(t).length) / 2, `${t.length} characters for ${unpackTerms(t).length} entries`);
  });
});
