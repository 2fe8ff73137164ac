/**
 * The rank table laid out at build time (src/core/memory/rankTable.ts) answers what parseRanks's Map answers: every
 * token's rank, every non-token's absence, and so every count (against js-tiktoken's own encoder too).
 */
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { Tiktoken } from 'js-tiktoken/lite';
import o200k from 'js-tiktoken/ranks/o200k_base';
import cl100k from 'js-tiktoken/ranks/cl100k_base';
import { pieceTokenCount } from '../../../src/core/memory/bpeCount';
import { parseRanks } from '../../../src/core/memory/node/tokenizer';
import { encodeRankTable, RankTable } from '../../../src/core/memory/rankTable';
import { mixedCorpus } from './tokenizer.test';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { buildCli, REPO } from '../../distBuild';

const latin1 = (s: string) => Buffer.from(s, 'utf8').toString('latin1');

for (const [name, bpe] of [['o200k_base', o200k], ['cl100k_base', cl100k]] as const) {
  describe(`core/memory/rankTable ${name}`, function () {
    this.timeout(120_000);
    const map = parseRanks(bpe.bpe_ranks);
    const file = encodeRankTable(map, bpe.pat_str);
    const table = new RankTable(file);
    const reference = new Tiktoken(bpe);
    const pattern = new RegExp(bpe.pat_str, 'gu');
    const countWith = (ranks: { get(s: string): number | undefined; has(s: string): boolean }, text: string) => {
      let n = 0;
      for (const m of text.matchAll(pattern)) n += pieceTokenCount(latin1(m[0]), ranks);
      return n;
    };

    it('holds every token at its rank, the pattern and the longest token', () => {
      assert.equal(table.size, map.size);
      assert.equal(table.patStr, bpe.pat_str);
      let longest = 0;
      for (const [token, rank] of map) {
        if (table.get(token) !== rank) assert.fail(`token ${JSON.stringify(token)}: ${table.get(token)} for ${rank}`);
        longest = Math.max(longest, token.length);
      }
      assert.equal(table.maxTokenBytes, longest);
    });

    it('is what the build ships as dist/ranks (byte for byte), which a bundle reads on its first count', async () => {
      await buildCli();
      assert.ok(readFileSync(path.join(REPO, 'dist', 'ranks', `${name}.bin`)).equals(file));
    });

    it('property: a string is a token in the table exactly when it is one in the map', () => {
      const bytes = fc.string({ unit: fc.integer({ min: 0, max: 255 }).map((c) => String.fromCharCode(c)), maxLength: 12 });
      fc.assert(fc.property(bytes, (s) => table.has(s) === map.has(s) && table.get(s) === map.get(s)), { numRuns: 5000 });
      // the likeliest near misses: every token with a byte more or less
      for (const token of [...map.keys()].slice(0, 20_000)) {
        for (const probe of [token + 'x', token.slice(1), token + '\u0000']) assert.equal(table.get(probe), map.get(probe), JSON.stringify(probe));
      }
    });

    it('property: counts with the table equal counts with the map and js-tiktoken\'s encode, on random and mixed text', () => {
      const text = fc.oneof(fc.string({ unit: 'grapheme', maxLength: 200 }), fc.string({ unit: 'binary', maxLength: 200 }), fc.nat(3000).map((n) => mixedCorpus(n)));
      fc.assert(
        fc.property(text, (t) => {
          const n = countWith(table, t);
          assert.equal(n, countWith(map, t));
          assert.equal(n, reference.encode(t, [], []).length);
        }),
        { numRuns: 300 },
      );
    });
  });
}

describe('core/memory/rankTable file checks', () => {
  const small = new Map([['a', 0], ['b', 1], ['ab', 2], ['\u00ff\u0000', 3]]);
  const file = encodeRankTable(small, '\\w+|\\s+');

  it('loads from a buffer at any offset (a pooled buffer need not be aligned)', () => {
    for (const shift of [0, 1, 2, 3]) {
      const copy = new Uint8Array(file.length + shift);
      copy.set(file, shift);
      const table = new RankTable(copy.subarray(shift));
      assert.deepEqual([...small].map(([t]) => table.get(t)), [0, 1, 2, 3]);
      assert.equal(table.get('ba'), undefined);
      assert.equal(table.patStr, '\\w+|\\s+');
    }
  });

  it('refuses a file of another kind or a truncated one, and ranks with a gap', () => {
    assert.throws(() => new RankTable(new Uint8Array(64)), /not a rank table/);
    assert.throws(() => new RankTable(file.subarray(0, file.length - 1)), /truncated or malformed/);
    assert.throws(() => encodeRankTable(new Map([['a', 0], ['b', 2]]), ''), /ranks must be 0\.\.1/);
  });
});
