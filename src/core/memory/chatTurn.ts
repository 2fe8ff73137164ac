/**
 * One chat turn of a tool-calling agent whose every request is assembled by ChatMemory (promptAssembly.ts).
 * The model and the tools are ports: in VS Code a `vscode.lm` chat model and our tool caller in process
 * (src/mcp/toolSession.ts: the agents' call pipeline, each call/result pair added to the memory before the call
 * resolves); in the bench a scripted model over the same tools.
 */
import { ToolError } from '../errors';
import { matchFingerprints } from './autoRecall';
import type { ChatMemory } from './chatMemory';
import { assemblePrompt, type AssembledMessage, type AssembledPrompt, type PromptInput } from './promptAssembly';
import type { RecalledMessage } from './node/recallStore';
import type { TurnLog } from './node/turnLog';
import { fingerprintLine } from './recap';

export interface ToolSpec {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
}

export type ModelPart = { type: 'text'; text: string } | { type: 'tool_call'; callId: string; name: string; input: Record<string, unknown> };

export interface ChatModelPort {
  readonly name: string;
  readonly maxInputTokens: number;
  /** The model's own count of a whole request (the final check); without it the memory's exact count is used. */
  countTokens?(messages: AssembledMessage[], tools: ToolSpec[], signal?: AbortSignal): Promise<number>;
  send(messages: AssembledMessage[], tools: ToolSpec[], signal?: AbortSignal): AsyncIterable<ModelPart>;
}

export interface ToolRunner {
  list(): Promise<ToolSpec[]>;
  /** Resolves once the call and its result are in the memory: the next request is assembled with them. */
  call(name: string, input: Record<string, unknown>, signal?: AbortSignal): Promise<{ text: string; isError: boolean }>;
}

/** How a turn shows itself while it runs (VS Code: ChatResponseStream markdown/progress). */
export interface TurnSink {
  text(markdown: string): void;
  progress(message: string): void;
}

export interface ChatTurnDeps {
  sessionId: string;
  memory: ChatMemory;
  model: ChatModelPort;
  tools: ToolRunner;
  turns: TurnLog;
  recall?: (id: string) => Promise<RecalledMessage | undefined>;
  count(text: string): number;
  now(): number;
}

export interface ChatTurnRequest {
  prompt: string;
  systemPrompt: string;
  /** The pinned file index and anything else the host puts before the window. */
  externalContext?: string;
  reserveTokens: number;
  /** Tool rounds per turn (default 12). */
  maxRounds?: number;
  /** Share of the prompt limit recalled originals may use (default 0.1). */
  recallShare?: number;
  signal?: AbortSignal;
  sink: TurnSink;
}

export interface ChatTurnResult {
  answer: string;
  rounds: number;
  prompts: AssembledPrompt[];
  recalled: string[];
  cancelled: boolean;
}

export const DEFAULT_SYSTEM_PROMPT =
  'You are a coding agent working in the user\'s workspace through the be-* tools (line-addressed reads and edits). ' +
  'Pinned constraints in the conversation always apply. Earlier messages may have been summarized; ids in [brackets] ' +
  'can be recalled in full with be-memory {"action":"recall","id":"m12"}. Answer concisely.';

/** Rounds of the model-count check: each shrinks the limit by the model's excess. */
const MODEL_COUNT_ROUNDS = 3;

export async function runChatTurn(deps: ChatTurnDeps, req: ChatTurnRequest): Promise<ChatTurnResult> {
  const { memory, model, tools } = deps;
  const specs = await tools.list();
  const toolTokens = deps.count(JSON.stringify(specs));
  const recorder = deps.turns.begin(deps.sessionId, memory, model.name, req.prompt, deps.now());
  const prompts: AssembledPrompt[] = [];
  let answer = '';
  let rounds = 0;
  let queryId: string | undefined;
  try {
    const limit = model.maxInputTokens - req.reserveTokens;
    const recalledContext = await autoRecall(deps, req.prompt, Math.floor(limit * (req.recallShare ?? 0.1)));
    recorder.recalled(recalledContext.ids);
    const externalContext = [req.externalContext, recalledContext.text].filter((s) => s).join('\n\n') || undefined;
    const base: Omit<PromptInput, 'maxInputTokens'> = { systemPrompt: req.systemPrompt, externalContext, toolTokens, reserveTokens: req.reserveTokens, count: deps.count };
    // The window slides before the query enters: the budget first, then the query (high priority for this turn).
    recorder.because('window budget fitted to the model before the query entered', () => assemblePrompt(memory, { ...base, maxInputTokens: model.maxInputTokens }));
    const tokens = deps.count(req.prompt);
    queryId = memory.add({ kind: 'user_query', content: req.prompt, priority: 'high', tokens }).id;
    const maxRounds = req.maxRounds ?? 12;
    while (rounds < maxRounds) {
      if (req.signal?.aborted) return { answer, rounds, prompts, recalled: recalledContext.ids, cancelled: true };
      const prompt = await fitToModel(deps, { ...base, keep: [queryId] }, specs, recorder, req.signal);
      prompts.push(prompt);
      rounds++;
      const calls: Extract<ModelPart, { type: 'tool_call' }>[] = [];
      let text = '';
      for await (const part of model.send(prompt.messages, specs, req.signal)) {
        if (part.type === 'text') {
          text += part.text;
          req.sink.text(part.text);
        } else calls.push(part);
      }
      if (req.signal?.aborted) return { answer: answer + text, rounds, prompts, recalled: recalledContext.ids, cancelled: true };
      answer += text;
      if (text.trim()) {
        const kind = /```/.test(text) ? 'assistant_code' : 'assistant';
        memory.add({ kind, content: text, tokens: deps.count(text) });
      }
      if (calls.length === 0) break;
      for (const c of calls) {
        req.sink.progress(`${c.name} ${shortArgs(c.input)}`);
        await tools.call(c.name, c.input, req.signal);
      }
    }
    return { answer, rounds, prompts, recalled: recalledContext.ids, cancelled: false };
  } catch (err) {
    recorder.finish(err instanceof Error ? err.message : String(err));
    throw err;
  } finally {
    // The query was protected for its own turn only: later it slides like any other.
    if (queryId !== undefined && memory.get(queryId)?.priority === 'high') memory.setPriority(queryId, 'medium');
    if (!recorder.record.done) recorder.finish();
  }
}

/** Assembles, then checks with the model's own counter; over the limit, the limit shrinks by the excess. */
async function fitToModel(
  deps: ChatTurnDeps,
  base: Omit<PromptInput, 'maxInputTokens'>,
  specs: ToolSpec[],
  recorder: ReturnType<TurnLog['begin']>,
  signal?: AbortSignal,
): Promise<AssembledPrompt> {
  const { model } = deps;
  let maxInput = model.maxInputTokens;
  for (let i = 0; i <= MODEL_COUNT_ROUNDS; i++) {
    const prompt = recorder.because('over the model limit: protected and recent messages alone did not fit', () => assemblePrompt(deps.memory, { ...base, maxInputTokens: maxInput }));
    const modelTokens = model.countTokens ? await model.countTokens(prompt.messages, specs, signal) : undefined;
    const limit = model.maxInputTokens - base.reserveTokens;
    if (modelTokens === undefined || modelTokens <= limit) {
      recorder.request({
        round: recorder.record.requests.length + 1,
        tokens: prompt.tokens,
        ...(modelTokens !== undefined ? { modelTokens } : {}),
        limit,
        maxInputTokens: model.maxInputTokens,
        reserveTokens: base.reserveTokens,
        messages: prompt.messages.length,
      });
      return prompt;
    }
    // The model's tokenizer counts more than ours: give the window less by the same ratio (+1% margin).
    maxInput = base.reserveTokens + Math.floor((prompt.tokens.total * limit) / modelTokens / 1.01);
  }
  throw new ToolError('too_large', `${model.name} counts the prompt over its ${model.maxInputTokens}-token input even after ${MODEL_COUNT_ROUNDS} shrinks; nothing was sent.`);
}

/** Originals of evicted messages the query names, within `budget` tokens. */
async function autoRecall(deps: ChatTurnDeps, query: string, budget: number): Promise<{ text: string; ids: string[] }> {
  if (!deps.recall || budget <= 0) return { text: '', ids: [] };
  const matches = matchFingerprints(query, deps.memory.fingerprints());
  const parts: string[] = [];
  const ids: string[] = [];
  let left = budget;
  for (const m of matches) {
    const original = await deps.recall(m.fingerprint.id);
    if (!original) continue;
    const header = `[Recalled ${original.id}: ${fingerprintLine(m.fingerprint)} — matched ${m.why.join(', ')}]`;
    const cost = deps.count(header) + original.tokens + 2;
    if (cost > left) continue;
    parts.push(`${header}\n${original.content}`);
    ids.push(original.id);
    left -= cost;
  }
  return { text: parts.join('\n\n'), ids };
}

function shortArgs(input: Record<string, unknown>): string {
  const s = JSON.stringify(input);
  return s.length > 120 ? `${s.slice(0, 119)}…` : s;
}
