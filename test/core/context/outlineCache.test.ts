/**
 * The outline worker's cache (src/core/context/outlineCache.ts): a hit needs the same language and the identical
 * text; short texts are not kept; the texts kept stay within their character budget, the most recent first.
 */
import { strict as assert } from 'node:assert';
import { OutlineCache } from '../../../src/core/context/outlineCache';
import type { Extracted } from '../../../src/core/context/treeOutline';

const outline = (name: string): Extracted => ({ symbols: [{ kind: 'function', name, signature: name, start: 1, end: 1 }], imports: [], errorLines: [], errorRanges: [] });

describe('core/context OutlineCache', () => {
  it('answers only the identical text in the same language', () => {
    const cache = new OutlineCache(1000, 10);
    const text = 'int f(void) { return 1; }\n';
    cache.set(text, 'c', outline('f'));
    assert.deepEqual(cache.get(text, 'c')?.outline, outline('f'));
    assert.deepEqual(cache.get(text.slice(0) + '', 'c')?.outline, outline('f'), 'an equal string, not the same object');
    assert.equal(cache.get(text, 'cpp'), undefined, 'another language');
    assert.equal(cache.get(text.replace('1', '2'), 'c'), undefined, 'one character changed, same length');
    assert.equal(cache.get(text + ' ', 'c'), undefined);
  });

  it('keeps no short texts, and no more characters than its budget (the most recent stay)', () => {
    const cache = new OutlineCache(100, 10, 8);
    cache.set('short', 'c', outline('s'));
    assert.equal(cache.get('short', 'c'), undefined);
    const texts = ['a', 'b', 'c', 'd'].map((ch) => ch.repeat(40));
    for (const t of texts) cache.set(t, 'c', outline(t[0]!));
    // 4 × 40 characters > 100: only the last two fit
    assert.deepEqual(texts.map((t) => !!cache.get(t, 'c')), [false, false, true, true]);
    cache.set('x'.repeat(101), 'c', outline('x'));
    assert.equal(cache.get('x'.repeat(101), 'c'), undefined, 'a text over the whole budget');
  });

  it('a hit becomes the most recent: it outlives texts set before it', () => {
    const cache = new OutlineCache(1000, 1, 2);
    cache.set('one', 'c', outline('1'));
    cache.set('two', 'c', outline('2'));
    assert.ok(cache.get('one', 'c'));
    cache.set('three', 'c', outline('3'));
    assert.ok(cache.get('one', 'c'));
    assert.equal(cache.get('two', 'c'), undefined);
  });
});
