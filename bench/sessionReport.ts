/**
 * Memory quality over a scripted coding session (part of `npm run bench:memory`; also asserted by
 * test/reliability/memory.rel.ts): what really goes to the model, per request, for
 *   ours      — the chat-turn loop, every prompt assembled by ChatMemory (promptAssembly.ts);
 *   naive     — the full history every time;
 *   trim      — LangChain `trimMessages` (strategy "last", startOn "human") of the same stream to the same budget, in
 *               two configurations: [sys] includeSystem with the constraint as the first SystemMessage (the fair
 *               one: it can keep the pin) and [hum] the constraint as a HumanMessage (cannot; reference only).
 * Figures: peak prompt tokens, overflow interrupts, the pinned constraint's presence, the artifact trail (edits
 * landed or failed: call id, file, outcome) recoverable from summary + recall, and cost per turn early vs late.
 */
import { AIMessage, HumanMessage, SystemMessage, ToolMessage, trimMessages, type BaseMessage } from '@langchain/core/messages';
import { editEvents } from '../src/core/memory/sessionRecap';
import { getTokenizer } from '../src/core/memory/node/tokenizer';
import { MESSAGE_OVERHEAD_TOKENS } from '../src/core/memory/promptAssembly';
import type { MemoryMessage } from '../src/core/memory/types';
import { PINNED, runScriptedSession, textOf, type SessionRun } from './memorySession';

export interface SessionFigures {
  turns: number;
  requests: number;
  limit: number;
  maxInputTokens: number;
  peakOurs: number;
  peakNaive: number;
  peakTrim: number;
  /** trimMessages with includeSystem and the constraint as a SystemMessage (a configuration that can keep a pin) */
  peakTrimSystem: number;
  pinsTrimSystem: number;
  trailTrimSystem: number;
  overflowInterrupts: number;
  naiveOverLimit: number;
  pinsOurs: number;
  pinsTrim: number;
  edits: number;
  trailOurs: number;
  trailSummaryOnly: number;
  trailTrim: number;
  msPerTurnEarly: number;
  msPerTurnLate: number;
  /** The turns (1-based, inclusive) each median is over. */
  earlyTurns: string;
  lateTurns: string;
  /** Median CPU per turn of the scripted model's token counting (the provider's cost, not ours). */
  modelMsPerTurn: number;
  /** Bytes the process read over the early and the late turns (Linux; undefined elsewhere). */
  bytesReadEarly: number | undefined;
  bytesReadLate: number | undefined;
}

function sum(xs: number[]): number {
  return xs.reduce((a, b) => a + b, 0);
}

function median(xs: number[]): number {
  const a = [...xs].sort((x, y) => x - y);
  return a.length % 2 ? a[a.length >> 1]! : (a[a.length / 2 - 1]! + a[a.length / 2]!) / 2;
}

const pct = (n: number, d: number): number => (d === 0 ? 100 : Math.round((1000 * n) / d) / 10);

/** trimMessages copies the messages it returns: counts are keyed by content, not by object. */
function toLangChain(m: MemoryMessage, tokensOf: Map<string, number>): BaseMessage {
  const msg =
    m.kind === 'tool_result'
      ? new ToolMessage({ content: m.content, tool_call_id: m.pairId ?? m.id })
      : m.kind === 'user_query' || m.kind === 'note'
        ? new HumanMessage(m.content)
        : new AIMessage(m.content);
  tokensOf.set(m.content, m.tokens + MESSAGE_OVERHEAD_TOKENS);
  return msg;
}

export async function measureSession(run: SessionRun): Promise<SessionFigures> {
  const memory = run.registry.get(run.sessionId);
  // ours: what was sent
  const pinsOurs = run.sent.filter((p) => p.messages.some((m) => textOf(m).includes(PINNED))).length;
  // trimMessages over the same stream, at every request, to the same budget for history
  const tokensOf = new Map<string, number>();
  const lc = run.stream.map((m) => toLangChain(m, tokensOf));
  const contentOf = (m: BaseMessage): string => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content));
  const tokenCounter = (msgs: BaseMessage[]): number =>
    msgs.reduce((s, m) => {
      const t = tokensOf.get(contentOf(m));
      if (t === undefined) throw new Error('trimMessages returned a message the stream does not have');
      return s + t;
    }, 0);
  let peakTrim = 0;
  let pinsTrim = 0;
  let lastTrimmed: BaseMessage[] = [];
  for (const at of run.streamAt) {
    const trimmed = await trimMessages(lc.slice(0, at), { maxTokens: run.limit - run.fixedTokens, strategy: 'last', startOn: 'human', tokenCounter });
    peakTrim = Math.max(peakTrim, run.fixedTokens + tokenCounter(trimmed));
    if (trimmed.some((m) => contentOf(m) === PINNED)) pinsTrim++;
    lastTrimmed = trimmed;
  }
  // The fair configuration: the constraint as the first SystemMessage, includeSystem: true (trimMessages then
  // always keeps it), the rest of the stream as before without the pinned note.
  const system = new SystemMessage(PINNED);
  const rest = run.stream.map((m, i) => (m.content === PINNED ? null : lc[i]!));
  let peakTrimSystem = 0;
  let pinsTrimSystem = 0;
  let lastSystem: BaseMessage[] = [];
  for (const at of run.streamAt) {
    const history = [system, ...rest.slice(0, at).filter((m): m is BaseMessage => m !== null)];
    const trimmed = await trimMessages(history, { maxTokens: run.limit - run.fixedTokens, strategy: 'last', startOn: 'human', includeSystem: true, tokenCounter });
    peakTrimSystem = Math.max(peakTrimSystem, run.fixedTokens + tokenCounter(trimmed));
    if (trimmed.some((m) => contentOf(m) === PINNED)) pinsTrimSystem++;
    lastSystem = trimmed;
  }
  // the artifact trail: each edit's call id, file and outcome, from summary + recall (archive trail, recall by id)
  const trail = await run.recall.trail(run.sessionId);
  const events = editEvents(memory, trail);
  const summary = memory.summary();
  let trailOurs = 0;
  let trailSummaryOnly = 0;
  let trailTrim = 0;
  const inTrim = new Set(lastTrimmed.map(contentOf));
  const inTrimSystem = new Set(lastSystem.map(contentOf));
  let trailTrimSystem = 0;
  for (const e of run.edits) {
    const ev = events.find((x) => x.id === e.callId);
    const original = memory.get(e.callId) ?? (await run.recall.recall(run.sessionId, e.callId));
    const outcomeKnown = ev !== undefined && ev.status === (e.ok ? 'ok' : 'error');
    if (outcomeKnown && ev.files.some((f) => f.path === e.file) && original?.content.includes(e.file)) trailOurs++;
    if (new RegExp(`\\[${e.callId},m\\d+\\][^\\n]*${e.file.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}[^\\n]*→ ${e.ok ? 'ok' : 'error'}`).test(summary)) trailSummaryOnly++;
    const callText = run.stream.find((m) => m.id === e.callId)?.content;
    if (callText !== undefined && inTrim.has(callText)) trailTrim++;
    if (callText !== undefined && inTrimSystem.has(callText)) trailTrimSystem++;
  }
  const k = Math.min(20, Math.floor(run.msPerTurn.length / 4));
  return {
    turns: run.steps.length,
    requests: run.sent.length,
    limit: run.limit,
    maxInputTokens: run.maxInputTokens,
    peakOurs: Math.max(...run.promptTokens),
    peakNaive: Math.max(...run.naiveTokens),
    peakTrim,
    peakTrimSystem,
    pinsTrimSystem: pct(pinsTrimSystem, run.streamAt.length),
    trailTrimSystem: pct(trailTrimSystem, run.edits.length),
    overflowInterrupts: run.overflowInterrupts,
    naiveOverLimit: run.naiveTokens.filter((t) => t > run.limit).length,
    pinsOurs: pct(pinsOurs, run.sent.length),
    pinsTrim: pct(pinsTrim, run.streamAt.length),
    edits: run.edits.length,
    trailOurs: pct(trailOurs, run.edits.length),
    trailSummaryOnly: pct(trailSummaryOnly, run.edits.length),
    trailTrim: pct(trailTrim, run.edits.length),
    msPerTurnEarly: median(run.msPerTurn.slice(k, 2 * k)),
    msPerTurnLate: median(run.msPerTurn.slice(-k)),
    earlyTurns: `${k + 1}–${2 * k}`,
    lateTurns: `${run.msPerTurn.length - k + 1}–${run.msPerTurn.length}`,
    modelMsPerTurn: median(run.modelMsPerTurn),
    bytesReadEarly: run.bytesReadPerTurn && sum(run.bytesReadPerTurn.slice(k, 2 * k)),
    bytesReadLate: run.bytesReadPerTurn && sum(run.bytesReadPerTurn.slice(-k)),
  };
}

export async function sessionBench(turns = 200): Promise<SessionFigures> {
  getTokenizer().count('load the ranks before timing');
  const run = await runScriptedSession({ turns, maxInputTokens: 16_000, reserveTokens: 2_000 });
  try {
    const f = await measureSession(run);
    console.log(`\nscripted coding session: ${f.turns} turns, ${f.requests} model requests over bench/fixtures/order-service; model input ${f.maxInputTokens}, reserve 2000 → prompt limit ${f.limit}`);
    console.log('  trimMessages configurations (same stream, same budget, strategy "last", startOn "human"):');
    console.log('    [sys] includeSystem: true, the constraint as the first SystemMessage (can keep the pin: the fair peer)');
    console.log('    [hum] the constraint as a HumanMessage, no includeSystem (cannot keep a pin once it is old; reference only)');
    console.log(`  peak prompt tokens: ours ${f.peakOurs} · naive full history ${f.peakNaive} (${f.naiveOverLimit} of ${f.requests} requests over the limit) · trimMessages [sys] ${f.peakTrimSystem} · [hum] ${f.peakTrim}`);
    console.log(`  overflow interrupts (a request that could not be sent): ours ${f.overflowInterrupts} (goal 0)`);
    console.log(`  pinned constraint present: ours ${f.pinsOurs}% of prompts · trimMessages [sys] ${f.pinsTrimSystem}% · [hum] ${f.pinsTrim}% (goal 100%)`);
    console.log(
      `  artifact trail (${f.edits} edits: call id, file, outcome, arguments): ours from summary + recall ${f.trailOurs}% · from the summary text alone ${f.trailSummaryOnly}% · trimMessages [sys] ${f.trailTrimSystem}% · [hum] ${f.trailTrim}% (goal 100%)`,
    );
    console.log(`  CPU per turn of ours (memory, prompt, real tool calls; the scripted model's own token counting, ${f.modelMsPerTurn.toFixed(1)} ms, not counted): median ${f.msPerTurnEarly.toFixed(1)} ms early (turns ${f.earlyTurns}) vs ${f.msPerTurnLate.toFixed(1)} ms late (turns ${f.lateTurns}) → ×${(f.msPerTurnLate / f.msPerTurnEarly).toFixed(2)}`);
    if (f.bytesReadEarly !== undefined && f.bytesReadLate !== undefined) {
      console.log(`  bytes read (every read call of the process): ${f.bytesReadEarly} over turns ${f.earlyTurns} vs ${f.bytesReadLate} over turns ${f.lateTurns} → ×${(f.bytesReadLate / f.bytesReadEarly).toFixed(2)}`);
    }
    return f;
  } finally {
    await run.dispose();
  }
}
