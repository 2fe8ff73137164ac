/** Bounds on what a failed call leaves behind (error texts, chip metadata) and on preview work. */
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  ARG_HEAD_CHARS,
  boundChipArgs,
  boundErrorText,
  headOfArg,
  MAX_ERROR_CHARS,
} from '../../../src/core/chips/bound';
import { previewOf, truncate } from '../../../src/core/chips/content';
import { cpuMs } from '../../cpuTime';

const wellFormed = (s: string) => !/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(s);

describe('chips/bound', () => {
  it('headOfArg keeps short text, cuts long text to a head that says how much is left', () => {
    assert.equal(headOfArg('short'), 'short');
    assert.equal(headOfArg('a'.repeat(ARG_HEAD_CHARS)), 'a'.repeat(ARG_HEAD_CHARS));
    assert.equal(headOfArg('a'.repeat(1000)), `${'a'.repeat(200)}… (800 more chars)`);
    // never half a surrogate pair
    const emoji = 'a'.repeat(199) + '😀'.repeat(10);
    assert.ok(wellFormed(headOfArg(emoji)));
  });

  it('an error text quoting a 15 MiB argument twice stays a few KB and keeps both ends', () => {
    const file = 'd/'.repeat(15 * 512 * 1024);
    const message = `be-read: ${file}: no such file or directory (resolved ${file}). Check the path.`;
    const out = boundErrorText(message, { file });
    assert.ok(out.length < 1000, `${out.length} chars`);
    assert.ok(out.startsWith('be-read: d/d/'));
    assert.ok(out.endsWith('Check the path.'));
    assert.match(out, /… \(15728440 more chars\)/);
  });

  it('a path quoted as resolved against a root (not as given) is cut too', () => {
    const name = `${'n'.repeat(4000)}.txt`;
    const out = boundErrorText(`cannot resolve /w/${name}: ENAMETOOLONG: name too long, realpath '/w/${name}'`, { file: `${name}:1` });
    assert.ok(out.length < 600, `${out.length} chars`);
    assert.match(out, /^cannot resolve \/w\/n+… \(3808 more chars\) ENAMETOOLONG: name too long, realpath '\/w\/n+… \(3809 more chars\)$/);
  });

  it('property: any error text is bounded, short ones are untouched, long arguments are never quoted whole', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 300 }), fc.string({ minLength: 201, maxLength: 3000 }), fc.nat(3), (msg, arg, times) => {
        const message = [msg, ...new Array(times).fill(arg)].join(' | ');
        const out = boundErrorText(message, { file: arg, nested: { key: arg } });
        assert.ok(out.length <= MAX_ERROR_CHARS, `${out.length}`);
        if (times > 0 && !msg.includes(arg)) assert.ok(!out.includes(arg), 'the long argument is quoted whole');
        if (times === 0 && message.length <= MAX_ERROR_CHARS && !msg.includes(arg)) assert.equal(out, message);
      }),
      { numRuns: 200 },
    );
    const huge = 'x'.repeat(100_000);
    assert.ok(boundErrorText(huge, {}).length <= MAX_ERROR_CHARS);
  });

  it('boundChipArgs keeps content whole, cuts every other argument and key, and cuts an oversized content with its size', () => {
    const content = 'line\n'.repeat(10_000);
    const { args, contentCut } = boundChipArgs({ file: 'f'.repeat(5000), content, ['k'.repeat(300)]: 1, old: 'o'.repeat(300) }, 1_000_000, 1024);
    assert.equal(args.content, content);
    assert.equal(contentCut, undefined);
    assert.equal(args.file, `${'f'.repeat(200)}… (4800 more chars)`);
    assert.equal(args.old, `${'o'.repeat(200)}… (100 more chars)`);
    assert.ok(Object.keys(args).every((k) => k.length <= 230));
    const cut = boundChipArgs({ file: 'a', content: '日'.repeat(1000) }, 2000, 100);
    assert.deepEqual(cut.contentCut, { bytes: 3000, keptBytes: 99 });
    assert.deepEqual(cut.args._truncated, { content: 3000 });
    assert.ok('日'.repeat(1000).startsWith(cut.args.content as string));
  });
});

describe('chips/content preview work', () => {
  it('previews a 50 MB one-line text in well under 200 ms (Array.from of it took seconds)', () => {
    const text = 'x'.repeat(50_000_000);
    assert.equal(text.indexOf('y'), -1); // flattens the string before the clock starts
    const { ms, value: preview } = cpuMs(() => previewOf(text));
    assert.equal(preview, `${'x'.repeat(79)}…`);
    assert.ok(ms < 200, `${ms.toFixed(0)} ms of CPU`);
  });

  it('property: truncate gives at most `max` code points, well formed, a prefix (or the text itself)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 400 }), fc.integer({ min: 2, max: 120 }), (text, max) => {
        const out = truncate(text, max);
        assert.ok(Array.from(out).length <= max);
        assert.ok(wellFormed(out));
        if (out !== text) assert.ok(text.startsWith(out.slice(0, -1)) && out.endsWith('…'));
        else assert.ok(Array.from(text).length <= max);
      }),
      { numRuns: 300 },
    );
  });
});
