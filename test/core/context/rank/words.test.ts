import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { pathWords, queryWords, splitWords, stemMatch, stemOf } from '../../../../src/core/context/rank/words';
import { stem } from '../../../../src/core/context/rank/stem';

describe('context/rank words: splitting and stemming', () => {
  it('splits camelCase, PascalCase with acronyms, snake_case, kebab-case and paths into lower-case words', () => {
    assert.deepEqual(splitWords('getEnvConfig'), ['get', 'env', 'config']);
    assert.deepEqual(splitWords('HTTPException'), ['http', 'exception']);
    assert.deepEqual(splitWords('raise_for_status'), ['raise', 'for', 'status']);
    assert.deepEqual(splitWords('__init__'), ['init']);
    assert.deepEqual(splitWords('body-limit'), ['body', 'limit']);
    assert.deepEqual(splitWords('parseURLQuery2'), ['parse', 'url', 'query', '2']);
    assert.deepEqual(pathWords('src/middleware/body-limit/index.ts'), ['src', 'middleware', 'body', 'limit', 'index']);
    assert.deepEqual(pathWords('httpx/_status_codes.py'), ['httpx', 'status', 'codes']);
  });

  it('query words: distinct, 3+ letters or a number, stop words out, identifiers split', () => {
    assert.deepEqual(queryWords('Where is the mergePath for an empty sub path in 600 codes'), ['merge', 'path', 'empty', 'sub', '600', 'codes']);
    assert.deepEqual(queryWords(undefined), []);
  });

  it('stems as Porter2 does (samples from the Snowball English vocabulary)', () => {
    const vocabulary: Record<string, string> = {
      consign: 'consign', consigned: 'consign', consignment: 'consign', consistency: 'consist', consolatory: 'consolatori',
      conspiracy: 'conspiraci', generously: 'generous', communication: 'communic', knackeries: 'knackeri', knightly: 'knight',
      knitting: 'knit', knives: 'knive', caresses: 'caress', ponies: 'poni', ties: 'tie', cries: 'cri', dying: 'die',
      agreed: 'agre', feed: 'feed', controlling: 'control', relational: 'relat', hopefulness: 'hope', adjustment: 'adjust',
      sayings: 'say', running: 'run', hoped: 'hope', was: 'was', bus: 'bus', abilities: 'abil',
    };
    for (const [w, s] of Object.entries(vocabulary)) assert.equal(stem(w), s, w);
    // names of Object's members are words like any other
    assert.equal(stem('constructor'), 'constructor');
    assert.equal(stem('toString'), 'tostr');
  });

  it('inflections meet on one stem; stems the stemmer leaves apart meet on a long shared prefix, at half weight', () => {
    assert.equal(stemOf('merging'), stemOf('merge'));
    assert.equal(stemOf('paths'), stemOf('path'));
    assert.equal(stemOf('registering'), stemOf('registered'));
    assert.equal(stemMatch(stemOf('recovering'), stemOf('recovery')), 0.5);
    assert.equal(stemMatch(stemOf('configuration'), stemOf('config')), 0.5);
    assert.equal(stemMatch(stemOf('headers'), stemOf('header')), 1);
    // short or far apart: no match
    assert.equal(stemMatch(stemOf('set'), stemOf('setup')), 0);
    assert.equal(stemMatch(stemOf('con'), stemOf('connection')), 0);
    assert.equal(stemMatch(stemOf('path'), stemOf('pathological')), 0);
  });

  it('invariants: split words are lower-case alphanumerics of the input; a stem is never longer than its word', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 40 }), (s) => {
        const words = splitWords(s);
        for (const w of words) assert.match(w, /^[a-z0-9]+$/);
        assert.equal(words.join(''), s.toLowerCase().replace(/[^a-z0-9]/g, ''));
      }),
    );
    fc.assert(
      fc.property(fc.stringMatching(/^[a-z]{1,14}$/), (w) => {
        const s = stem(w);
        assert.ok(s.length <= w.length, `${w} → ${s}`);
        assert.match(s, /^[a-z]*$/);
      }),
    );
  });

  it('a number stems to itself, as the stemmer would, without the memo (property)', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[0-9]{1,12}$/), fc.stringMatching(/^[a-z][a-z0-9]{0,10}$/), (digits, word) => {
        assert.equal(stemOf(digits), stem(digits));
        assert.equal(stemOf(word), stem(word));
      }),
    );
  });
});
