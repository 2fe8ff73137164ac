/**
 * How far chunked counting of very long pre-tokens is from the exact BPE count
 * (`node --import tsx bench/bpeChunks.ts`; not part of the test suite).
 *
 * Each case is one pre-token of 4 MiB (a data-URI payload without digits, runs of one character, CJK without
 * punctuation). The exact count is the O(n log n) heap merge over the whole piece; the chunked one is what the
 * piece counted per chunk (pieces over CHUNK_BYTES); count() is what the tokenizer answers for the whole text
 * (cut into windows of 64 Ki characters first, then chunks).
 */
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import o200k from 'js-tiktoken/ranks/o200k_base';
import { CHUNK_BYTES, exactPartCount, pieceTokenCount } from '../src/core/memory/bpeCount';
import { getTokenizer, parseRanks } from '../src/core/memory/node/tokenizer';

const ranks = parseRanks(o200k.bpe_ranks);
const re = new RegExp(o200k.pat_str, 'gu');
const size = Number(process.argv[2] ?? 4 * 1024 * 1024);

const cases: Record<string, string> = {
  'A…': 'A'.repeat(size),
  'a…': 'a'.repeat(size),
  '=…': '='.repeat(size),
  'spaces': ' '.repeat(size),
  'base64 letters only': randomBytes(size).toString('base64').replace(/[^A-Za-z]/g, '').toLowerCase().slice(0, size),
  'CJK': '滑动窗口按照优先级淘汰消息保留固定约束'.repeat(Math.ceil(size / 57)).slice(0, Math.floor(size / 3)),
};

console.log(`chunk ${CHUNK_BYTES} bytes, pieces of ${size} bytes`);
for (const [name, text] of Object.entries(cases)) {
  re.lastIndex = 0;
  const pieces = [...text.matchAll(re)].map((m) => m[0]);
  let exact = 0;
  let chunked = 0;
  let tExact = 0;
  let tChunked = 0;
  for (const piece of pieces) {
    const bytes = Buffer.from(piece, 'utf8').toString('latin1');
    let t = performance.now();
    exact += exactPartCount(bytes, ranks);
    tExact += performance.now() - t;
    t = performance.now();
    chunked += pieceTokenCount(bytes, ranks);
    tChunked += performance.now() - t;
  }
  const diff = chunked - exact;
  const t = performance.now();
  const counted = getTokenizer().count(text); // windows of 64 Ki characters, then chunks, with the caches
  const tCount = performance.now() - t;
  console.log(
    `${name.padEnd(20)} pieces ${String(pieces.length).padStart(6)}  exact ${String(exact).padStart(8)} (${tExact.toFixed(0)} ms)  ` +
      `chunked ${String(chunked).padStart(8)} (${tChunked.toFixed(0)} ms)  diff ${diff >= 0 ? '+' : ''}${diff} (${((100 * diff) / exact).toFixed(3)}%)  ` +
      `count() ${counted} (${tCount.toFixed(0)} ms) diff ${((100 * (counted - exact)) / exact).toFixed(3)}%`,
  );
}
