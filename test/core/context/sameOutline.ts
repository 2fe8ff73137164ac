/**
 * The property cBodies.test.ts, goBodies.test.ts and dataLiterals.test.ts share: where a generated text parses
 * cleanly whole, the text the outline parses instead (bodies blanked, tails taken out) gives the same outline
 * (symbols, ranges, signatures, imports, no errors). Texts whose whole parse has errors are not compared, as error
 * recovery differs with what it recovers from, but they stay in the generator.
 */
import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import type { TreeSitterParsers } from '../../../src/core/context/node/treeSitter';
import { parseOutline } from '../../../src/core/context/treeOutline';

/** Runs the property; returns how many texts `transform` changed and how many of those were compared. */
export async function assertSameOutline(
  parsers: TreeSitterParsers,
  languageId: string,
  texts: fc.Arbitrary<string>,
  transform: (text: string) => string | undefined,
  numRuns: number,
): Promise<{ transformed: number; compared: number }> {
  const counts = { transformed: 0, compared: 0 };
  await fc.assert(
    fc.asyncProperty(texts, async (text) => {
      const changed = transform(text);
      if (changed === undefined) return;
      counts.transformed++;
      const whole = await parseOutline(text, languageId, parsers);
      const wholeOutline = whole?.outline;
      whole?.free();
      if (wholeOutline?.errorRanges.length) return;
      const parsed = await parseOutline(changed, languageId, parsers);
      const outline = parsed?.outline;
      parsed?.free();
      counts.compared++;
      assert.deepEqual(outline, wholeOutline);
    }),
    { numRuns },
  );
  return counts;
}

/**
 * That `emptied` is `text` with every character of the sorted, disjoint `ranges` taken out but the line breaks (a
 * `\r` before a `\n` too), everything else kept, every line with its number (goBodies, rustBodies, javaBodies and
 * csharpBodies tests).
 */
export function assertEmptied(text: string, emptied: string, ranges: readonly (readonly [number, number])[]): void {
  let expected = '';
  let from = 0;
  for (const [start, end] of ranges) {
    expected += text.slice(from, start) + text.slice(start, end).replace(/\r(?!\n)|[^\r\n]/g, '');
    from = end;
  }
  assert.equal(emptied, expected + text.slice(from));
  assert.equal(emptied.split('\n').length, text.split('\n').length);
}

/**
 * The property every body reader's test holds on any text at all (its language's characters, any code unit): the
 * bodies found are sorted and disjoint, each within `bound` (between a `{` and its `}`, say), the transform gives
 * undefined exactly when none is found, and it keeps the text's length (`keepsLength`: blanked) or its line count.
 * At least 200 of the 2,000 texts must have a body, so the property is not held vacuously.
 */
export function assertSortedBodies(
  texts: fc.Arbitrary<string>,
  bodies: (text: string) => readonly (readonly [number, number])[],
  transform: (text: string) => string | undefined,
  bound: (text: string, start: number, end: number) => boolean,
  keepsLength = false,
): void {
  let withBodies = 0;
  fc.assert(
    fc.property(texts, (text) => {
      const found = bodies(text);
      const changed = transform(text);
      if (!found.length) return assert.equal(changed, undefined);
      withBodies++;
      let end = 0;
      for (const [a, b] of found) {
        assert.ok(a >= end && a <= b && b <= text.length && bound(text, a, b), `${a}-${b}`);
        end = b;
      }
      if (keepsLength) assert.equal(changed!.length, text.length);
      else assert.equal(changed!.split('\n').length, text.split('\n').length);
    }),
    { numRuns: 2000 },
  );
  assert.ok(withBodies > 200, `${withBodies} of 2000 texts had a body`);
}
