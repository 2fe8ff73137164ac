/**
 * Guessing the encoding of a file with no BOM that is not UTF-8, on real bytes (iconv-lite encodes each fixture):
 * single-byte code pages are detected when the whole file converts back to identical bytes and the guess is
 * sound; a guess that is not (short text, low confidence, a Western reading of Japanese bytes) is refused rather
 * than shown mis-decoded. The rule every case checks: an accepted guess decodes to exactly the text written.
 */
import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import * as iconv from 'iconv-lite';
import { detectEncoding } from '../../../src/core/text/encoding';
import { nodeTextCodec as codec } from '../../../src/core/text/node/codec';
import { stopGuessWorker } from '../../../src/core/text/node/guessWorker';
import { assertText } from '../../../src/core/text/validate';

/** [encoding the bytes are in, text, what detection must answer (undefined: refused)] */
const FIXTURES: [string, string, string | undefined][] = [
  ['windows-1252', 'Café au lait, naïve résumé — “quoted” € 5\n', 'windows-1252'],
  ['windows-1252', '// Grüße aus München\nint x = 1;\n', 'windows-1252'],
  ['windows-1252', 'le café est ouvert\n', 'windows-1252'],
  ['windows-1252', 'x = "é"\n', undefined], // one letter alone: as likely Cyrillic й
  ['windows-1252', 'const s = "déjà vu";\nconst t = "façade";\n', 'windows-1252'],
  ['iso-8859-1', 'Señor Muñoz está aquí.\n', 'windows-1252'],
  ['windows-1251', 'Привет, мир! Это тест.\n', 'windows-1251'],
  ['windows-1251', '// комментарий\nint x = 1;\n', 'windows-1251'],
  ['koi8-r', 'Привет, мир! Это тест.\n', 'koi8-r'],
  ['iso-8859-7', 'Καλημέρα κόσμε\n', 'windows-1253'], // the Greek letters are the same bytes in both
  // too little for a single-byte detector (Czech scores as Greek): refused, not read as the wrong code page
  ['windows-1250', 'Příliš žluťoučký kůň úpěl ďábelské ódy\n', undefined],
  ['iso-8859-2', 'Zażółć gęślą jaźń\n', undefined], // was read as windows-1252: "Za¿ó³æ"
  // short Shift_JIS: a confident guess is taken, a weak one refused, never read as windows-1252
  ['shift_jis', 'テスト\n', 'cp932'],
  ['shift_jis', '// これは日本語のコメントです。ファイルを編集します。\nconst x = 1;\n', 'cp932'],
  ['shift_jis', '// 日本語\n', undefined],
  ['shift_jis', 'x = "ア"\n', undefined], // was read as windows-1252: x = "ƒA"
  ['shift_jis', 'x = "あ"\n', undefined],
  ['shift_jis', 'ｱｲｳｴｵ\n', undefined],
  ['gbk', '// 中文注释\n', 'gbk'],
  ['euc-kr', '// 한국어 주석\n', 'cp949'],
  ['big5', '// 繁體中文\n', 'big5'],
];

describe('core/text/encoding: guesses for files with no BOM', () => {
  after(() => stopGuessWorker());

  for (const [enc, text, want] of FIXTURES) {
    it(`${enc} ${JSON.stringify(text.slice(0, 24))} → ${want ?? 'refused'}`, async () => {
      const bytes = iconv.encode(text, enc);
      const got = await detectEncoding(codec, bytes);
      assert.equal(got, want);
      if (got) assert.equal(iconv.decode(bytes, got), text, 'an accepted guess shows the text as written');
    });
  }

  it('a refused guess gets the error that names --encoding and files.encoding', async () => {
    const bytes = iconv.encode('x = "ア"\n', 'shift_jis');
    assert.equal(await detectEncoding(codec, bytes), undefined);
    assert.throws(() => assertText(bytes, 'a.txt'), /not valid UTF-8.*files\.encoding.*--encoding "GLOB=NAME"/s);
  });

  it('property: a guess for Western, Cyrillic or Japanese text (words of the script between ASCII) either decodes it exactly or is refused', async () => {
    const word = (alphabet: string, min: number) => fc.array(fc.constantFrom(...alphabet), { minLength: min, maxLength: 9 }).map((a) => a.join(''));
    // Western words: ASCII letters with an accented one inside; the others: whole words in their script
    const western = fc.tuple(word('abcdefghrst', 1), fc.constantFrom(...'éèàçüößñ'), word('aeinrst', 1)).map((p) => p.join(''));
    const scripts: [string, fc.Arbitrary<string>][] = [
      ['windows-1252', western],
      ['windows-1251', word('Приветмирэтотест', 3)],
      ['shift_jis', word('日本語のテストｱｲｳ', 2)],
    ];
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...scripts).chain(([enc, w]) => fc.tuple(fc.constant(enc), fc.array(w, { minLength: 1, maxLength: 12 }))),
        async ([enc, words]) => {
          const text = `x = 1; // ${words.join(' ')}\n`;
          const bytes = iconv.encode(text, enc);
          const got = await detectEncoding(codec, bytes);
          if (got) assert.equal(iconv.decode(bytes, got), text, `${enc} read as ${got}`);
        },
      ),
      { numRuns: 300 },
    );
  });
});
