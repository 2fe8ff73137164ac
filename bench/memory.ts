/**
 * ChatMemory benchmark (`npm run bench:memory`; not part of the test suite).
 *
 * 1. A deterministic stream of realistic messages (tool calls, tool output with code and logs, prose,
 *    user queries, assistant code) is tokenized once: tokenizer throughput in MB/s.
 * 2. Ours: the stream is appended into a 40k window with the counts given (tokenization excluded),
 *    timing every append; median per append around 1,000, 10,000 and 100,000 messages (the stream is
 *    cycled with fresh ids to reach 100,000), and the whole run. A second run lets the memory count
 *    itself (tokenization included).
 * 4. A scripted 200-turn coding session through the chat-turn loop (bench/sessionReport.ts): peak prompt tokens
 *    against the naive full history and trimMessages, overflow interrupts, pins, the artifact trail, cost per turn.
 *    BENCH_MEMORY_SESSION_ONLY=1 runs just that part.
 * 3. The peers: LangChain's `trimMessages` (a) incrementally, trimming the previous window plus the new message
 *    at each append (the fair per-turn comparison), every append timed; (b) for reference, re-trimming the whole
 *    history after each append, sampled at 1,000, 5,000 and 10,000 messages (a full run would take hours), with the
 *    same pre-computed counts (so neither side pays for tokenization).
 */
import * as os from 'node:os';
import { performance } from 'node:perf_hooks';
import { AIMessage, HumanMessage, ToolMessage, trimMessages, type BaseMessage } from '@langchain/core/messages';
import { ChatMemory } from '../src/core/memory/chatMemory';
import { getTokenizer } from '../src/core/memory/node/tokenizer';
import type { MessageKind, NewMessage } from '../src/core/memory/types';
import { probeBench } from './memoryProbes';
import { sessionBench } from './sessionReport';

// ------------------------------------------------------------------ deterministic corpus

function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const rand = mulberry32(20260530);
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
const int = (lo: number, hi: number): number => lo + Math.floor(rand() * (hi - lo + 1));

const NOUNS = ['parser', 'window', 'budget', 'session', 'token', 'chip', 'range', 'cache', 'summary', 'eviction', 'handler', 'schema', 'request', 'buffer', 'index'];
const VERBS = ['reads', 'updates', 'evicts', 'parses', 'validates', 'returns', 'computes', 'stores', 'renders', 'checks'];
const FILES = ['src/core/edits/service.ts', 'src/core/memory/chatMemory.ts', 'src/mcp/server.ts', 'src/vscode/extension.ts', 'lib/parser.go', 'app/models.py', 'web/index.html', 'test/edits.test.ts'];
const TOOLS = ['be-read', 'be-replace', 'be-insert', 'be-delete', 'be-write', 'be-func-range', 'be-balance'];

const ident = (): string => `${pick(VERBS).replace(/s$/, '')}${pick(NOUNS)[0]!.toUpperCase()}${pick(NOUNS).slice(1)}`;
const sentence = (): string => `The ${pick(NOUNS)} ${pick(VERBS)} the ${pick(NOUNS)} before the ${pick(NOUNS)} ${pick(VERBS)} it.`;
const prose = (n: number): string => Array.from({ length: n }, sentence).join(' ');

function codeBlock(lines: number): string {
  const out: string[] = [];
  let depth = 0;
  for (let i = 0; i < lines; i++) {
    const pad = '  '.repeat(depth);
    const r = rand();
    if (r < 0.12 && depth < 4) {
      out.push(`${pad}export function ${ident()}(${pick(NOUNS)}: ${pick(['string', 'number', 'Range', 'Message[]'])}): boolean {`);
      depth++;
    } else if (r < 0.22 && depth > 0) {
      depth--;
      out.push(`${'  '.repeat(depth)}}`);
    } else if (r < 0.35) {
      out.push(`${pad}if (${pick(NOUNS)}.length > ${int(0, 4096)}) return ${pick(['true', 'false', 'undefined'])};`);
    } else if (r < 0.45) {
      out.push(`${pad}// ${sentence()}`);
    } else {
      out.push(`${pad}const ${ident()} = ${ident()}(${pick(NOUNS)}, ${int(0, 99)});`);
    }
  }
  return out.join('\n');
}

function toolOutput(): string {
  const file = pick(FILES);
  const start = int(1, 400);
  switch (int(0, 3)) {
    case 0: {
      const lines = int(10, 140);
      const body = codeBlock(lines)
        .split('\n')
        .map((l, i) => `${String(start + i).padStart(5)}\t${l}`)
        .join('\n');
      return JSON.stringify({ status: 'ok', file, start, end: start + lines - 1, total: 800, content: body });
    }
    case 1:
      return Array.from({ length: int(5, 60) }, () => `${pick(['PASS', 'PASS', 'PASS', 'FAIL'])} test/${pick(NOUNS)}.test.ts > ${sentence()} (${int(1, 900)} ms)`).join('\n');
    case 2:
      return JSON.stringify({ status: 'ok', file, diff: `@@ -${start},3 +${start},4 @@\n-${codeBlock(2)}\n+${codeBlock(3)}`, balance: { ok: true } });
    default:
      return `error: ${file}:${start}: ${sentence()} expected ${pick(NOUNS)}, got ${pick(NOUNS)}\n${codeBlock(int(3, 12))}`;
  }
}

interface Item {
  message: NewMessage;
  tokens: number;
}

function corpus(n: number): Item[] {
  const items: NewMessage[] = [];
  let callSeq = 0;
  while (items.length < n) {
    const r = rand();
    if (r < 0.45) {
      const tool = pick(TOOLS);
      const file = `${pick(FILES)}:${int(1, 300)}-${int(301, 600)}`;
      const id = `c${callSeq++}`;
      items.push({ id, kind: 'tool_call', tool, content: `${tool} ${JSON.stringify({ file, brief: rand() < 0.5 })}`, references: [{ path: file.split(':')[0]! }] });
      items.push({ kind: 'tool_result', tool, pairId: id, content: toolOutput(), status: rand() < 0.1 ? 'error' : 'ok' });
    } else if (r < 0.7) {
      items.push({ kind: 'assistant', content: prose(int(1, 12)) });
    } else if (r < 0.85) {
      items.push({ kind: 'assistant_code', content: '```ts\n' + codeBlock(int(5, 60)) + '\n```' });
    } else {
      items.push({ kind: 'user_query' as MessageKind, content: `${pick(['Please', 'Now', 'Then'])} ${prose(int(1, 3))}` });
    }
  }
  return items.slice(0, n).map((message) => ({ message, tokens: 0 }));
}

// ------------------------------------------------------------------ helpers

function median(xs: ArrayLike<number>, from = 0, to = xs.length): number {
  const a = Array.from({ length: to - from }, (_, i) => xs[from + i]!).sort((x, y) => x - y);
  return a.length % 2 ? a[a.length >> 1]! : (a[a.length / 2 - 1]! + a[a.length / 2]!) / 2;
}
const us = (ms: number): string => `${(ms * 1000).toFixed(2)} µs`;
const msf = (ms: number): string => `${ms.toFixed(ms < 10 ? 2 : 0)} ms`;

/** Median append cost in a window of appends around `at` (1,000 appends, or what the run has). */
function around(times: Float64Array, at: number): number {
  const half = 500;
  const from = Math.max(0, Math.min(at - half, times.length - 2 * half));
  return median(times, from, Math.min(times.length, from + 2 * half));
}

function withFreshIds(item: Item, round: number): NewMessage {
  if (round === 0) return item.message;
  const m = item.message;
  return { ...m, ...(m.id ? { id: `${m.id}#${round}` } : {}), ...(m.pairId ? { pairId: `${m.pairId}#${round}` } : {}) };
}

// ------------------------------------------------------------------ runs

function main(): void {
  const N = 10_000;
  console.log(`ChatMemory benchmark — node ${process.version}, ${os.cpus().length} CPUs, load average ${os.loadavg().map((x) => x.toFixed(1)).join(' ')}, ${new Date().toISOString()}`);
  const t0 = performance.now();
  const items = corpus(N);
  const genMs = performance.now() - t0;
  const tok = getTokenizer();
  let t = performance.now();
  tok.count('load the ranks');
  const loadMs = performance.now() - t;
  t = performance.now();
  for (const x of items) x.tokens = tok.count(x.message.content);
  const coldMs = performance.now() - t;
  const totalChars = items.reduce((s, x) => s + x.message.content.length, 0);
  const totalBytes = items.reduce((s, x) => s + Buffer.byteLength(x.message.content, 'utf8'), 0);
  const totalTokens = items.reduce((s, x) => s + x.tokens, 0);
  console.log(`corpus: ${N} messages, ${(totalBytes / 1e6).toFixed(2)} MB, ${totalTokens} tokens (o200k_base), ${Math.round(totalChars / N)} chars/message (generated in ${msf(genMs)})`);
  console.log(`tokenizer (o200k_base): ranks loaded in ${msf(loadMs)}; first pass ${(totalBytes / 1e6 / (coldMs / 1000)).toFixed(1)} MB/s`);

  // Tokenizer throughput on the same corpus, fresh tokenizers per pass are not possible (shared cache);
  // report the cold pass (above, includes generation) and a warm pass (pre-token cache filled).
  t = performance.now();
  let n = 0;
  for (const x of items) n += tok.count(x.message.content);
  const warm = performance.now() - t;
  console.log(`tokenizer (o200k_base, warm pre-token cache): ${(totalBytes / 1e6 / (warm / 1000)).toFixed(1)} MB/s, ${(n / (warm / 1000) / 1e6).toFixed(2)} Mtok/s`);

  // Ours, tokenization excluded, 100,000 appends (the 10,000-message corpus cycled with fresh ids).
  const ROUNDS = 10;
  const times = new Float64Array(N * ROUNDS);
  const memory = new ChatMemory({ maxTokens: 40_000 }, { tokenizerFor: getTokenizer });
  const runStart = performance.now();
  for (let round = 0; round < ROUNDS; round++) {
    for (let i = 0; i < N; i++) {
      const item = items[i]!;
      const m = withFreshIds(item, round);
      const s = performance.now();
      memory.add({ ...m, tokens: item.tokens });
      times[round * N + i] = performance.now() - s;
    }
  }
  const run100k = performance.now() - runStart;
  let first10k = 0;
  for (let i = 0; i < N; i++) first10k += times[i]!;
  const st = memory.stats();
  console.log(`\nours (ChatMemory, 40k window, counts given — tokenization excluded):`);
  console.log(`  median per append @1,000: ${us(around(times, 1_000))}   @10,000: ${us(around(times, 10_000))}   @100,000: ${us(around(times, 100_000))}`);
  const mean = (from: number, to: number): number => {
    let sum = 0;
    for (let i = from; i < to; i++) sum += times[i]!;
    return sum / (to - from);
  };
  const sorted = Float64Array.from(times.subarray(N)).sort();
  console.log(`  mean per append (includes evictions: fingerprint, summary line, condensing): 1st 10,000 ${us(mean(0, N))}, 10,000–100,000 ${us(mean(N, N * ROUNDS))}; p99 ${us(sorted[Math.floor(sorted.length * 0.99)]!)}`);
  console.log(`  whole run: 10,000 appends ${msf(first10k)}; 100,000 appends ${msf(run100k)} (timer overhead included)`);
  console.log(`  window after 100,000: ${st.messages} messages, ${st.usedTokens}/${st.usableTokens} tokens, ${st.evictions} evictions, summary ${st.summaryTokens} tokens, overflow ${st.overflow}`);

  if (process.env.BENCH_MEMORY_OURS_ONLY) return; // for profiling the append path

  // Ours, tokenization included (the memory counts each message once).
  const counting = new ChatMemory({ maxTokens: 40_000 }, { tokenizerFor: getTokenizer });
  const ctimes = new Float64Array(N);
  const cStart = performance.now();
  for (let i = 0; i < N; i++) {
    const s = performance.now();
    counting.add(items[i]!.message);
    ctimes[i] = performance.now() - s;
  }
  const cRun = performance.now() - cStart;
  console.log(`ours, tokenization included: median per append ${us(median(ctimes))}; 10,000 appends ${msf(cRun)}`);

  // The peer: trimMessages over the whole history after each append (same pre-computed counts).
  const tokensOf = new WeakMap<BaseMessage, number>();
  const toLangChain = (item: Item, i: number): BaseMessage => {
    const m = item.message;
    const msg =
      m.kind === 'tool_result'
        ? new ToolMessage({ content: m.content, tool_call_id: m.pairId ?? `t${i}` })
        : m.kind === 'user_query'
          ? new HumanMessage(m.content)
          : new AIMessage(m.content);
    tokensOf.set(msg, item.tokens);
    return msg;
  };
  const tokenCounter = (msgs: BaseMessage[]): number => {
    let sum = 0;
    for (const m of msgs) sum += tokensOf.get(m) ?? 0;
    return sum;
  };
  const history: BaseMessage[] = [];
  const peer: Record<number, number> = {};
  const SAMPLES = 5;
  console.log(`\npeer (@langchain/core trimMessages, strategy "last", maxTokens ${memory.usableTokens}, same counts), ${SAMPLES} sampled appends per size:`);
  return void (async () => {
    for (const size of [1_000, 5_000, 10_000]) {
      while (history.length < size - SAMPLES) history.push(toLangChain(items[history.length]!, history.length));
      const samples: number[] = [];
      for (let k = 0; k < SAMPLES; k++) {
        history.push(toLangChain(items[history.length]!, history.length));
        const s = performance.now();
        const trimmed = await trimMessages(history, { maxTokens: memory.usableTokens, strategy: 'last', tokenCounter });
        samples.push(performance.now() - s);
        if (trimmed.length === 0) throw new Error('trimMessages returned nothing');
      }
      peer[size] = median(samples);
      console.log(`  @${size.toLocaleString('en')}: median ${msf(peer[size]!)} per append (samples: ${samples.map((x) => x.toFixed(0)).join(', ')} ms)`);
    }
    // The fair per-turn peer: an incremental trim. Each append trims only the previous window plus the new message
    // (what an application keeping its trimmed window between turns does), so its cost follows the window, not
    // the history. Same counts, same budget, every one of the 10,000 appends timed.
    const itimes = new Float64Array(N);
    let window: BaseMessage[] = [];
    // trimMessages returns copies: counts keyed by content (same content, same count).
    const byContent = new Map<string, number>();
    const contentCounter = (msgs: BaseMessage[]): number => {
      let sum = 0;
      for (const m of msgs) {
        const t = byContent.get(m.content as string);
        if (t === undefined) throw new Error('incremental trim: a message the stream does not have');
        sum += t;
      }
      return sum;
    };
    for (let i = 0; i < N; i++) {
      const msg = toLangChain(items[i]!, i);
      byContent.set(items[i]!.message.content, items[i]!.tokens);
      const s = performance.now();
      window = await trimMessages([...window, msg], { maxTokens: memory.usableTokens, strategy: 'last', tokenCounter: contentCounter });
      itimes[i] = performance.now() - s;
    }
    const ours10k = around(times, 10_000);
    const oursMean = mean(N, N * ROUNDS);
    const inc10k = around(itimes, 10_000);
    let incMean = 0;
    for (let i = 0; i < N; i++) incMean += itimes[i]! / N;
    console.log(`\npeer, incremental (trimMessages of the previous window + the new message, same counts, all ${N.toLocaleString('en')} appends timed):`);
    console.log(`  median per append @1,000: ${us(around(itimes, 1_000))}   @10,000: ${us(inc10k)}; mean ${us(incMean)}; window at the end ${window.length} messages`);
    console.log(`\nratio @10,000, against the incremental trim (the fair per-turn comparison): ${(inc10k / ours10k).toFixed(1)}× by median; mean ${(incMean / oursMean).toFixed(1)}× (ours including evictions)`);
    console.log(`reference, against re-trimming the whole history each append (stateless): trimMessages ${msf(peer[10_000]!)} vs ours ${us(ours10k)} median → ${Math.round(peer[10_000]! / ours10k).toLocaleString('en')}×;`);
    console.log(`  vs our mean per append including evictions (${us(oursMean)}) → ${Math.round(peer[10_000]! / oursMean).toLocaleString('en')}× (not a fair per-turn comparison: the stateless re-trim grows with the history)`);
    const flat = around(times, 100_000) / around(times, 1_000);
    console.log(`flatness: per-append @100,000 / @1,000 = ${flat.toFixed(2)}`);
    // Last, so its ranks do not enlarge the heap during the runs above (the extension loads one encoding).
    const cl = getTokenizer('cl100k_base');
    cl.count('warm up the ranks');
    const clStart = performance.now();
    for (const x of items) cl.count(x.message.content);
    const clCold = performance.now() - clStart;
    console.log(`tokenizer (cl100k_base, first pass over the corpus, cold pre-token cache): ${(totalBytes / 1e6 / (clCold / 1000)).toFixed(1)} MB/s`);
    await sessionBench(200);
    for (const t of [100, 200, 300]) await probeBench(t);
  })();
}

if (process.env.BENCH_MEMORY_PROBES_ONLY) void (async () => { for (const t of [100, 200, 300]) await probeBench(t); })();
else if (process.env.BENCH_MEMORY_SESSION_ONLY) void sessionBench(200);
else main();
