/**
 * Legacy encodings: detection, and encode → edit → decode round trips that are byte-exact for each encoding
 * (CRLF and BOM included), through the pure functions and through EditService over real files.
 */
import { strict as assert } from 'node:assert';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import fc from 'fast-check';
import * as iconv from 'iconv-lite';
import { SUPPORTED_ENCODINGS, decodeLossless, detectEncoding, encodeEdited, normalizeEncoding } from '../../../src/core/text/encoding';
import { stopGuessWorker } from '../../../src/core/text/node/guessWorker';
import { encodeUtf8, nodeTextCodec as codec } from '../../../src/core/text/node/codec';
import { EncodingFileStore } from '../../../src/core/files/encodingFileStore';
import { NodeFileStore } from '../../../src/core/files/nodeFileStore';
import { Sandbox } from '../../../src/core/files/sandbox';
import { EditService } from '../../../src/core/edits/service';
import { HistoryStore } from '../../../src/core/history/node/store';
import { ApplyJournal } from '../../../src/core/edits/apply/node/journal';
import { BatchEditor } from '../../../src/core/edits/apply/service';

/** Characters each encoding has (ASCII plus its own script), to build representable text. */
const ALPHABETS: Record<string, string> = {
  gb18030: 'ab {};中文注释函数返回值测试', gbk: 'ab {};中文注释函数返回值测试', big5: 'ab {};中文註解這是一個函數',
  shift_jis: 'ab {};日本語のコメントテスト', 'euc-kr': 'ab {};한국어주석입니다', 'windows-1252': 'ab {};éèçàüß€“”',
  'iso-8859-1': 'ab {};éèçàüßÿ', utf16le: 'ab {};中文😀é', utf16be: 'ab {};中文😀é',
  // the superset spellings users configure (VS Code: cp950 for Big5, cp932 for Shift_JIS, cp949 for EUC-KR)
  big5hkscs: 'ab {};中文註解這是一個函數', cp950: 'ab {};中文註解這是一個函數', cp932: 'ab {};日本語のコメントテスト①',
  cp949: 'ab {};한국어주석입니다똠',
  // single-byte code pages guessed without a BOM (or configured)
  'windows-1250': 'ab {};ąęłńśźżčřšžť', 'windows-1251': 'ab {};Приветмир', 'windows-1253': 'ab {};Καλημέρα',
  'koi8-r': 'ab {};Приветмир', 'iso-8859-2': 'ab {};ąęłńśźżčř', 'iso-8859-5': 'ab {};Приветмир',
  'iso-8859-7': 'ab {};Καλημέρα', 'iso-8859-15': 'ab {};éèçàüß€œ',
};

const lineArb = (enc: string) => fc.array(fc.constantFrom(...ALPHABETS[enc]), { maxLength: 12 }).map((a) => a.join(''));

function encodeText(lines: string[], eol: string, enc: string, bom: boolean): Buffer {
  const text = lines.map((l) => l + eol).join('');
  return iconv.encode(text, enc, { addBOM: bom });
}

const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

describe('core/text/encoding', () => {
  it('detects by BOM, then configuration, then UTF-8, then a guess that round-trips', async () => {
    assert.equal(await detectEncoding(codec, iconv.encode('中文', 'utf16le', { addBOM: true })), 'utf16le');
    assert.equal(await detectEncoding(codec, iconv.encode('中文', 'utf16be', { addBOM: true })), 'utf16be');
    assert.equal(await detectEncoding(codec, Buffer.from('\ufeffx', 'utf8'), 'gbk'), 'utf8', 'the BOM wins over the configuration');
    assert.equal(await detectEncoding(codec, Buffer.from('plain'), 'GBK'), 'gbk');
    assert.equal(await detectEncoding(codec, Buffer.from('中文 utf-8')), 'utf8');
    assert.equal(await detectEncoding(codec, iconv.encode('// 中文注释，这是一个函数\nint main() { return 0; }\n', 'gbk')), 'gbk');
    assert.equal(await detectEncoding(codec, iconv.encode('// 中文注释，这是一个函数 😀\nint main() { return 0; }\n', 'gb18030')), 'gb18030', 'a 4-byte GB18030 sequence: not GBK');
    assert.equal(await detectEncoding(codec, iconv.encode('// 中文註解，這是一個函數\nint a;\n', 'big5')), 'big5');
    assert.equal(await detectEncoding(codec, Buffer.from([0x00, 0x01, 0xff, 0xfe, 0x80])), undefined, 'binary is not guessed');
    assert.equal(normalizeEncoding('Shift-JIS'), 'shift_jis');
    assert.equal(normalizeEncoding('klingon'), undefined);
  });

  it('guesses on a worker thread that ends when stopped and starts again on the next guess', async () => {
    const gbk = iconv.encode('// 中文注释，这是一个函数\nint main() { return 0; }\n', 'gbk');
    const [a, b] = await Promise.all([detectEncoding(codec, gbk), detectEncoding(codec, iconv.encode('// 中文註解，這是一個函數\nint a;\n', 'big5'))]);
    assert.deepEqual([a, b], ['gbk', 'big5'], 'two guesses in flight at once get their own answers');
    await stopGuessWorker();
    assert.equal(await detectEncoding(codec, gbk), 'gbk');
    await stopGuessWorker();
  });

  for (const enc of Object.keys(ALPHABETS)) {
    it(`${enc}: encode → edit → decode is byte-exact, untouched lines keep their bytes (CRLF, LF${enc.startsWith('utf16') ? ', BOM' : ''})`, async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.array(lineArb(enc), { minLength: 1, maxLength: 8 }),
          fc.array(lineArb(enc), { maxLength: 4 }),
          fc.nat(),
          fc.nat(),
          fc.constantFrom('\n', '\r\n'),
          fc.boolean(),
          async (lines, repl, a, b, eol, bomWanted) => {
            const bom = bomWanted && enc.startsWith('utf16');
            const raw = encodeText(lines, eol, enc, bom);
            const utf8 = await decodeLossless(codec, raw, enc, 'f');
            const s = a % lines.length;
            const e = s + (b % (lines.length - s));
            const next = [...lines.slice(0, s), ...repl, ...lines.slice(e + 1)];
            const newUtf8 = Buffer.from((bom ? '\ufeff' : '') + next.map((l) => l + eol).join(''), 'utf8');
            const out = await encodeEdited(codec, raw, utf8, newUtf8, enc, 'f');
            assert.ok(out.equals(encodeText(next, eol, enc, bom)), 'byte-exact');
            const head = encodeText(lines.slice(0, s), eol, enc, bom);
            assert.ok(out.subarray(0, head.length).equals(head), 'the lines above keep their bytes');
          },
        ),
        { numRuns: 150 },
      );
    });
  }

  it('covers every supported encoding but UTF-8 (edited as UTF-8, with or without a BOM: test/core/edits/properties.test.ts)', () => {
    assert.deepEqual(SUPPORTED_ENCODINGS.filter((e) => e !== 'utf8' && !(e in ALPHABETS)), []);
  });

  it('encodeUtf8 over many 128 KiB pieces equals one encode, wherever a character or a surrogate pair falls (property)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...Object.keys(ALPHABETS)), fc.nat(300), async (enc, pad) => {
        // the alphabets mix 1-, 2-, 3- and 4-byte UTF-8 (😀 in UTF-16): pieces start inside characters
        const text = 'a'.repeat(pad) + ALPHABETS[enc]!.repeat(Math.ceil((400 * 1024) / ALPHABETS[enc]!.length));
        const utf8 = Buffer.from(text, 'utf8');
        assert.ok(utf8.length > 3 * 128 * 1024, 'several pieces');
        assert.ok((await encodeUtf8(utf8, enc)).equals(iconv.encode(text, enc)), enc);
      }),
      { numRuns: 12 },
    );
  });

  it('refuses content the encoding cannot represent, naming the character', async () => {
    const raw = iconv.encode('中文\n', 'gbk');
    const utf8 = await decodeLossless(codec, raw, 'gbk', 'f');
    await assert.rejects(encodeEdited(codec, raw, utf8, Buffer.from('中文\nok 😀\n'), 'gbk', 'f'), /"😀" \(U\+1F600, line 2\)/);
  });

  it('refuses a file that does not round-trip in the configured encoding', async () => {
    await assert.rejects(decodeLossless(codec, Buffer.from([0x81, 0x20]), 'gbk', 'f'), /not valid gbk/);
  });

  it('a 6 MB GBK file is decoded, edited and encoded back: the tail keeps its bytes', async () => {
    const line = '// 中文注释，这是一个函数 int main() { return 0; }\r\n';
    const raw = iconv.encode(line.repeat(120_000), 'gbk');
    const utf8 = await decodeLossless(codec, raw, await detectEncoding(codec, raw) as string, 'f');
    const edited = Buffer.concat([Buffer.from('// 改\r\n'), utf8.subarray(Buffer.byteLength(line))]);
    const out = await encodeEdited(codec, raw, utf8, edited, 'gbk', 'f');
    assert.ok(out.equals(iconv.encode('// 改\r\n' + line.repeat(119_999), 'gbk')));
  });
});

describe('core/text/encoding through EditService and be-apply (real files)', () => {
  let base: string;
  let root: string;
  let edits: EditService;
  let history: HistoryStore;
  let apply: BatchEditor;
  beforeEach(async () => {
    base = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'bet-enc-')));
    root = path.join(base, 'ws');
    await fs.mkdir(root);
    const disk = new NodeFileStore();
    const files = new EncodingFileStore(disk, (abs) => (abs.endsWith('.sjis') ? 'shift_jis' : undefined));
    const sandbox = new Sandbox([root]);
    history = await HistoryStore.open({ dir: path.join(base, 'history'), files, sandbox });
    edits = new EditService({ files, sandbox, history });
    apply = new BatchEditor({ files, sandbox, history, journal: new ApplyJournal(path.join(base, 'journal')), viewed: edits.viewed, maxFileBytes: 1 << 26, maxAnalyzeBytes: 1 << 21 });
  });
  afterEach(() => fs.rm(base, { recursive: true, force: true }));

  it('a GBK file with CRLF: read decoded, edited in place, untouched lines byte-identical, rollback restores the bytes', async () => {
    const f = path.join(root, 'main.c');
    const original = iconv.encode('// 中文注释，这是一个函数\r\nint main() {\r\n  return 0; // 返回\r\n}\r\n', 'gbk');
    await fs.writeFile(f, original);
    const r = await edits.read({ file: 'main.c' });
    assert.equal(r.encoding, 'gbk');
    assert.match(r.content!, /中文注释/);
    const w = await edits.replace({ file: 'main.c:3', content: '  return 1; // 改了\n', viewed_code_id: r.viewed_code_id });
    const disk = await fs.readFile(f);
    assert.ok(disk.equals(iconv.encode('// 中文注释，这是一个函数\r\nint main() {\r\n  return 1; // 改了\r\n}\r\n', 'gbk')));
    assert.equal(w.sha256, sha(disk).slice(0, 16), 'read-back hash of the GBK bytes on disk');
    await edits.trx({ action: 'rollback', step: 1 });
    assert.ok((await fs.readFile(f)).equals(original));
  });

  it('every encoding, through the real file store (property): encode → be-replace → the disk holds the new text in the same encoding, byte-exact, CRLF and BOM kept', async function () {
    this.timeout(120_000);
    const disk = new NodeFileStore();
    const sandbox = new Sandbox([root]);
    for (const enc of Object.keys(ALPHABETS)) {
      const files = new EncodingFileStore(disk, () => enc);
      const svc = new EditService({ files, sandbox });
      let run = 0;
      await fc.assert(
        fc.asyncProperty(
          fc.array(lineArb(enc), { minLength: 1, maxLength: 6 }),
          fc.array(lineArb(enc), { minLength: 1, maxLength: 3 }),
          fc.nat(),
          fc.nat(),
          fc.constantFrom('\n', '\r\n'),
          fc.boolean(),
          async (lines, repl, a, b, eol, bomWanted) => {
            const bom = bomWanted && enc.startsWith('utf16');
            const name = `p-${enc}-${run++}.txt`;
            await fs.writeFile(path.join(root, name), encodeText(lines, eol, enc, bom));
            const s = a % lines.length;
            const e = s + (b % (lines.length - s));
            await svc.replace({ file: `${name}:${s + 1}-${e + 1}`, content: repl.map((l) => l + eol).join('') });
            const next = [...lines.slice(0, s), ...repl, ...lines.slice(e + 1)];
            assert.ok((await fs.readFile(path.join(root, name))).equals(encodeText(next, eol, enc, bom)), `${enc}: byte-exact on disk`);
            const back = await svc.read({ file: name });
            assert.equal(back.encoding === undefined ? 'utf8' : back.encoding, enc, 'read back in its own encoding');
          },
        ),
        { numRuns: 12 },
      );
    }
  });

  it('content the file encoding cannot hold is refused and nothing is written', async () => {
    const f = path.join(root, 'a.c');
    const original = iconv.encode('// 中文\n', 'gbk');
    await fs.writeFile(f, original);
    await assert.rejects(edits.replace({ file: 'a.c:1', content: '// 😀\n' }), /U\+1F600, line 1\) cannot be written in gbk/);
    assert.ok((await fs.readFile(f)).equals(original));
  });

  it('UTF-16LE with BOM, a configured Shift_JIS file, and be-apply over both at once', async () => {
    const u16 = path.join(root, 'w.txt');
    const sj = path.join(root, 'j.sjis');
    await fs.writeFile(u16, iconv.encode('one\r\n二\r\n', 'utf16le', { addBOM: true }));
    await fs.writeFile(sj, iconv.encode('abc\n', 'shift_jis')); // ASCII only: only the configuration says Shift_JIS
    const res = await apply.apply({ edits: [{ file: 'w.txt:2', content: '二二\n' }, { file: 'j.sjis:1', content: 'テスト\n' }] });
    assert.ok((await fs.readFile(u16)).equals(iconv.encode('one\r\n二二\r\n', 'utf16le', { addBOM: true })));
    assert.ok((await fs.readFile(sj)).equals(iconv.encode('テスト\n', 'shift_jis')));
    for (const fr of res.results) assert.equal(fr.sha256, sha(await fs.readFile(path.join(root, fr.file))).slice(0, 16));
  });
});
