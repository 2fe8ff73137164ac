import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { isUtf8 } from 'node:buffer';
import { assertText, assertWellFormedText, firstInvalidUtf8, firstLoneSurrogate, suspiciousControls } from '../../../src/core/text/validate';
import { ToolError } from '../../../src/core/errors';

const code = (f: () => void) => {
  try {
    f();
    return 'ok';
  } catch (e) {
    return e instanceof ToolError ? e.code : 'other';
  }
};

describe('core/text validation', () => {
  it('refuses NUL bytes anywhere as binary (not only in the first 512 bytes)', () => {
    const b = Buffer.concat([Buffer.from('a'.repeat(100_000)), Buffer.from([0]), Buffer.from('b')]);
    assert.equal(code(() => assertText(b, 'x')), 'binary_file');
    assert.throws(() => assertText(b, 'x'), /NUL byte at offset 100000, line 1/);
  });
  it('refuses a high share of control characters as binary', () => {
    assert.equal(code(() => assertText(Buffer.from('\x01\x02\x03\x04abc'), 'x')), 'binary_file');
    assert.equal(code(() => assertText(Buffer.from('a\tb\r\n\x1b[31mred\x1b[0m\n'), 'x')), 'ok');
  });
  it('flaw: Latin-1/GBK files are edited blindly — refused with the byte offset and line', () => {
    const latin1 = Buffer.from('line one\ncaf\xe9\n', 'latin1');
    assert.equal(code(() => assertText(latin1, 'f.txt')), 'encoding');
    assert.throws(() => assertText(latin1, 'f.txt'), /byte 0xe9 at offset 12 \(line 2\)/);
    const gbk = Buffer.from([0x61, 0x0a, 0xc4, 0xe3, 0xba, 0xc3]); // "你好" in GBK
    assert.equal(code(() => assertText(gbk, 'g.txt')), 'encoding');
  });
  it('flaw: binary detection false positive when a multi-byte char straddles byte 512', () => {
    const b = Buffer.concat([Buffer.from('a'.repeat(511)), Buffer.from('世界🙂\n')]);
    assert.equal(b[511], 0xe4); // first byte of 世 at 511, continuation at 512, 513
    assert.equal(code(() => assertText(b, 'x')), 'ok');
  });
  it('accepts empty, BOM-only and plain UTF-8', () => {
    assert.equal(code(() => assertText(Buffer.alloc(0), 'x')), 'ok');
    assert.equal(code(() => assertText(Buffer.from('\uFEFF'), 'x')), 'ok');
    assert.equal(code(() => assertText(Buffer.from('héllo 世界\n'), 'x')), 'ok');
  });
  it('rejects truncated, overlong and surrogate sequences', () => {
    for (const bytes of [[0xe4, 0xb8], [0xc0, 0x80], [0xed, 0xa0, 0x80], [0xf5, 0x80, 0x80, 0x80], [0x80]]) {
      assert.equal(code(() => assertText(Buffer.from([0x61, ...bytes]), 'x')), 'encoding', JSON.stringify(bytes));
    }
  });
  it('property: firstInvalidUtf8 agrees with isUtf8', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 40 }), (arr) => {
        const buf = Buffer.from(arr);
        assert.equal(firstInvalidUtf8(buf) === -1, isUtf8(buf));
      }),
      { numRuns: 2000 },
    );
  });
  it('property: suspiciousControls counts the bytes below 0x20 other than tab, LF, VT, FF, CR and ESC, and 0x7f, in the first `end`', () => {
    const slow = (b: Uint8Array, end: number) => {
      let n = 0;
      for (let i = 0; i < Math.min(end, b.length); i++) {
        const c = b[i]!;
        if ((c < 0x20 && ![0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x1b].includes(c)) || c === 0x7f) n++;
      }
      return n;
    };
    fc.assert(
      // every byte value, and a view into a larger buffer (its own offset), with `end` inside and past it
      fc.property(fc.uint8Array({ maxLength: 300 }), fc.nat(8), fc.nat(320), (arr, skip, end) => {
        const view = Buffer.from([...Array<number>(skip).fill(0x01), ...arr]).subarray(skip);
        assert.equal(suspiciousControls(view, end), slow(arr, end));
      }),
      { numRuns: 2000 },
    );
    assert.equal(suspiciousControls(Uint8Array.from({ length: 256 }, (_, i) => i), 256), 0x20 - 6 + 1);
  });
});

describe('core/text well-formed content (lone surrogates)', () => {
  // The reference: a lone surrogate is a high one not followed by a low one, or a low one not preceded by a high one.
  const reference = (s: string): number => {
    for (let i = 0; i < s.length; i++) {
      const c = s.charCodeAt(i);
      if (c >= 0xd800 && c <= 0xdbff) {
        const n = s.charCodeAt(i + 1);
        if (n >= 0xdc00 && n <= 0xdfff) i++;
        else return i;
      } else if (c >= 0xdc00 && c <= 0xdfff) return i;
    }
    return -1;
  };

  it('property: firstLoneSurrogate finds the first lone surrogate exactly (any UTF-16 string)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 200 }), fc.string({ unit: fc.integer({ min: 0xd800, max: 0xdfff }).map((c) => String.fromCharCode(c)), maxLength: 3 }), (a, junk) => {
        const s = a + junk + a;
        assert.equal(firstLoneSurrogate(s), reference(s));
      }),
      { numRuns: 500 },
    );
  });

  it('refuses a lone surrogate with where it is and what to do; accepts pairs and a real U+FFFD', () => {
    assert.doesNotThrow(() => assertWellFormedText('emoji 😀 and \ufffd are fine\n', 'content'));
    assert.throws(
      () => assertWellFormedText('line one\nhalf \ud83d here\n', 'be-write: argument "content"'),
      (e: unknown) =>
        e instanceof ToolError &&
        e.code === 'encoding' &&
        /be-write: argument "content" is not valid Unicode: a lone surrogate U\+D83D at character 14 \(line 2\)/.test(e.message) &&
        /nothing was written/.test(e.message),
    );
    assert.throws(() => assertWellFormedText('\udc00', 'x'), /U\+DC00 at character 0/);
  });
});
