/**
 * A scripted coding session driven through the real chat-turn loop (src/core/memory/chatTurn.ts): the agents' call
 * pipeline in process (src/mcp/toolSession.ts) over a copy of a fixture repository (real files, real edits, chips on
 * failure), each call recorded in the memory as it returns, the recall archive on disk, the scripted model of scriptedAgent.ts. Returns what every
 * request really sent and the figures the bench prints (and the tests assert).
 */
import { promises as fs, readFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { runChatTurn } from '../src/core/memory/chatTurn';
import { MESSAGE_OVERHEAD_TOKENS, type AssembledMessage } from '../src/core/memory/promptAssembly';
import { RecallStore } from '../src/core/memory/node/recallStore';
import { MemoryRegistry } from '../src/core/memory/node/registry';
import { getTokenizer } from '../src/core/memory/node/tokenizer';
import type { MemoryMessage } from '../src/core/memory/types';
import { TurnLog } from '../src/core/memory/node/turnLog';
import { createServices } from '../src/mcp/services';
import { openToolSession } from '../src/mcp/toolSession';
import { scriptedModel, sessionScript, type ScriptStep, type SentPrompt } from './scriptedAgent';

export const FIXTURE = path.join(__dirname, 'fixtures', 'order-service');
export const PINNED = 'Constraint: never change the public signatures in src/api; keep money in integer cents.';

export interface SessionRun {
  steps: ScriptStep[];
  sent: SentPrompt[];
  /** Per request: tokens as we count the sent messages + tool schemas. */
  promptTokens: number[];
  /** Per request: tokens the naive full history would have sent at that point. */
  naiveTokens: number[];
  /** Every message that entered the memory, in order (the stream a peer trims), and its length at each request. */
  stream: MemoryMessage[];
  streamAt: number[];
  /** Tokens of the fixed parts (system prompt, tool schemas, framing of the system message). */
  fixedTokens: number;
  limit: number;
  maxInputTokens: number;
  overflowInterrupts: number;
  /** CPU of each turn in this process, the scripted model's own token counting excluded. */
  msPerTurn: number[];
  /** CPU of the scripted model's token counting in each turn (a provider's cost, shown for reference). */
  modelMsPerTurn: number[];
  /**
   * Bytes this process read in each turn (Linux `/proc/self/io` rchar: every read call, from the page cache too);
   * undefined where that file is not there. Deterministic where CPU time is not: state read again whole each turn
   * (an archive, a journal) grows it with the session.
   */
  bytesReadPerTurn: number[] | undefined;
  registry: MemoryRegistry;
  recall: RecallStore;
  turns: TurnLog;
  sessionId: string;
  root: string;
  /** Landed and failed edits: the call id the memory gave each, the file, the outcome. */
  edits: { turn: number; callId: string; file: string; ok: boolean }[];
  dispose(): Promise<void>;
}

async function copyDir(from: string, to: string): Promise<void> {
  await fs.cp(from, to, { recursive: true, filter: (src) => !src.endsWith('.gitignore') });
}

export async function listFiles(root: string, dir = ''): Promise<string[]> {
  const out: string[] = [];
  for (const e of await fs.readdir(path.join(root, dir), { withFileTypes: true })) {
    const rel = dir ? `${dir}/${e.name}` : e.name;
    if (e.isDirectory()) out.push(...(await listFiles(root, rel)));
    else if (rel.endsWith('.ts')) out.push(rel);
  }
  return out.sort();
}

/** Tokens of what was really sent: every part's text, the framing per message, the tool schemas. */
export function sentTokens(p: SentPrompt, count: (t: string) => number): number {
  let total = count(JSON.stringify(p.tools));
  for (const m of p.messages) {
    total += MESSAGE_OVERHEAD_TOKENS;
    for (const part of m.parts) total += count(part.type === 'tool_call' ? `${part.name} ${JSON.stringify(part.input)}` : part.text);
  }
  return total;
}

export function textOf(m: AssembledMessage): string {
  return m.parts.map((p) => (p.type === 'tool_call' ? `${p.name} ${JSON.stringify(p.input)}` : p.text)).join('\n');
}

/** This process's bytes read so far (Linux), or undefined. */
function bytesRead(): number | undefined {
  try {
    const m = /^rchar: (\d+)$/m.exec(readFileSync('/proc/self/io', 'utf8'));
    return m ? Number(m[1]) : undefined;
  } catch {
    return undefined;
  }
}

export async function runScriptedSession(o: { turns: number; maxInputTokens: number; reserveTokens: number; recentKeep?: number }): Promise<SessionRun> {
  const base = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'be-session-')));
  const root = path.join(base, 'repo');
  await copyDir(FIXTURE, root);
  const registry = await MemoryRegistry.open({ dir: path.join(base, 'memory'), deps: { tokenizerFor: getTokenizer }, memoryOptions: { recentKeep: o.recentKeep ?? 6 }, debounceMs: 50 });
  const recall = new RecallStore({ dir: path.join(base, 'memory', 'recall') });
  await recall.attach(registry);
  const services = await createServices({ roots: [root], chipDir: path.join(base, 'chips'), historyDir: path.join(base, 'history'), memory: registry, recall });
  const sessionId = 'chat-bench';
  const tools = openToolSession({ deps: services.deps, memory: (id) => registry.get(id), sessionId });
  const tok = getTokenizer();
  const count = (t: string) => tok.count(t);
  const model = scriptedModel(o.maxInputTokens, count);
  const turns = new TurnLog(1000);
  const memory = registry.get(sessionId);
  memory.add({ kind: 'note', content: PINNED, priority: 'high', group: 'goal', pinned: true });
  const files = await listFiles(root);
  const steps = sessionScript(files, o.turns);
  const naiveTokens: number[] = [];
  const msPerTurn: number[] = [];
  const modelMsPerTurn: number[] = [];
  const bytesReadPerTurn: number[] | undefined = bytesRead() === undefined ? undefined : [];
  const edits: SessionRun['edits'] = [];
  let overflowInterrupts = 0;
  // The naive peer keeps every message: its prompt is the system block plus all of them.
  let naiveHistory = 0;
  const specs = await tools.list();
  const fixed = count(JSON.stringify(specs)) + count('You are a coding agent.') + MESSAGE_OVERHEAD_TOKENS;
  const stream: MemoryMessage[] = memory.visibleMessages();
  const streamAt: number[] = [];
  memory.onDidChange((c) => {
    for (const m of c.added ?? []) {
      naiveHistory += m.tokens + MESSAGE_OVERHEAD_TOKENS;
      stream.push(m);
    }
  });
  naiveHistory += stream.reduce((s, m) => s + m.tokens + MESSAGE_OVERHEAD_TOKENS, 0);
  // Each request's view of the stream: the model's send() is called with the stream as it stands.
  const send = model.send.bind(model);
  model.send = (messages, tools) => {
    streamAt.push(stream.length);
    return send(messages, tools);
  };
  // The provider's own counting is the model's cost, not ours: its CPU is taken out of each turn's figure.
  let modelMs = 0;
  const providerCount = model.countTokens?.bind(model);
  if (providerCount) {
    model.countTokens = async (messages, specs) => {
      const m0 = process.cpuUsage();
      const n = await providerCount(messages, specs);
      const m = process.cpuUsage(m0);
      modelMs += (m.user + m.system) / 1000;
      return n;
    };
  }
  for (let i = 0; i < steps.length; i++) {
    const step = steps[i]!;
    const sentBefore = model.sent.length;
    // CPU time of this process (model, memory and tools all run in it): wall time measured the machine's load
    // too — on a shared 2-core machine late turns looked 3× slower while their CPU cost stayed flat
    const c0 = process.cpuUsage();
    const read0 = bytesRead();
    const model0 = modelMs;
    try {
      await runChatTurn(
        { sessionId, memory, model, tools, turns, recall: (id) => recall.recall(sessionId, id), count, now: () => Date.now() },
        { prompt: step.query, systemPrompt: 'You are a coding agent.', reserveTokens: o.reserveTokens, sink: { text: () => undefined, progress: () => undefined } },
      );
    } catch {
      overflowInterrupts++;
    }
    const c = process.cpuUsage(c0);
    msPerTurn.push((c.user + c.system) / 1000 - (modelMs - model0));
    modelMsPerTurn.push(modelMs - model0);
    bytesReadPerTurn?.push((bytesRead() ?? 0) - (read0 ?? 0));
    for (let k = sentBefore; k < model.sent.length; k++) naiveTokens.push(fixed + naiveHistory);
    if (step.kind === 'edit' || step.kind === 'break') {
      const call = [...memory.visibleMessages()].reverse().find((m) => m.kind === 'tool_call' && (m.tool === 'be-insert' || m.tool === 'be-replace'));
      const result = call?.pairId ? memory.get(call.pairId) : undefined;
      if (call) edits.push({ turn: i + 1, callId: call.id, file: step.file, ok: result?.status === 'ok' });
    }
  }
  await recall.flush();
  return {
    steps,
    sent: model.sent,
    promptTokens: model.sent.map((p) => sentTokens(p, count)),
    naiveTokens,
    stream,
    streamAt,
    fixedTokens: fixed,
    limit: o.maxInputTokens - o.reserveTokens,
    maxInputTokens: o.maxInputTokens,
    overflowInterrupts,
    msPerTurn,
    modelMsPerTurn,
    bytesReadPerTurn,
    registry,
    recall,
    turns,
    sessionId,
    root,
    edits,
    async dispose() {
      await tools.close();
      recall.dispose();
      await registry.dispose();
      await services.close();
      await fs.rm(base, { recursive: true, force: true });
    },
  };
}
