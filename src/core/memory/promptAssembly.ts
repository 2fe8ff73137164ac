/**
 * The prompt a chat participant really sends, assembled from a ChatMemory in the order of ARCHITECTURE.md, ChatMemory M5:
 * system prompt → running summary → external context (the pinned file index, recalled originals) → the
 * window (pinned constraints in place, tool call/result pairs adjacent and never split) → the new user
 * message, which is the window's newest user query.
 *
 * Budget: the model accepts `maxInputTokens`; `reserveTokens` of it stay free for the answer. The fixed
 * parts (system block, context block, tool schemas, per-message framing) are counted exactly; the window
 * gets what is left: the memory's budget is set to it (reserveRatio 0: the reserve is taken here), so the
 * memory's own slide — before anything enters — keeps the prompt under the limit. When protected and
 * recent messages alone do not fit (an overflow), the oldest unpinned units are evicted explicitly (they
 * stay recallable); if pins and the current query alone are too large, nothing is sent and the error says
 * what to unpin.
 */
import { ToolError } from '../errors';
import type { ChatMemory } from './chatMemory';
import type { MemoryMessage } from './types';

/** Framing tokens per chat message (role markers, separators): OpenAI documents 3–4; counted as 4. */
export const MESSAGE_OVERHEAD_TOKENS = 4;
export const SUMMARY_HEADER = '[Summary of earlier conversation — ids in [brackets] can be recalled with be-memory {"action":"recall","id":…}]';
export const CONTEXT_HEADER = '[External context]';
/** The smallest window worth sending; below it the fixed parts leave no room for history. */
export const MIN_WINDOW_TOKENS = 100;

export type PromptPart =
  | { type: 'text'; text: string }
  | { type: 'tool_call'; callId: string; name: string; input: Record<string, unknown> }
  | { type: 'tool_result'; callId: string; text: string; isError: boolean };

export type PromptSection = 'system' | 'window';

export interface AssembledMessage {
  role: 'user' | 'assistant';
  parts: PromptPart[];
  section: PromptSection;
  /** Memory ids rendered in this message (a pair renders as two messages with one id each). */
  ids: string[];
  /** Exact tokens of the parts' text plus the framing. */
  tokens: number;
}

export interface PromptTokens {
  system: number;
  summary: number;
  context: number;
  window: number;
  tools: number;
  framing: number;
  total: number;
}

export interface AssembledPrompt {
  messages: AssembledMessage[];
  tokens: PromptTokens;
  /** maxInputTokens − reserveTokens: what the prompt may use. */
  limit: number;
  maxInputTokens: number;
  reserveTokens: number;
  /** Ids evicted explicitly because protected + recent messages alone did not fit (they stay recallable). */
  forcedOut: string[];
  /** This turn's tool results shown clipped (head and tail) because they alone did not fit. */
  clipped?: string[];
}

export interface PromptInput {
  systemPrompt: string;
  /** The pinned file index, recalled originals: rendered after the summary. */
  externalContext?: string;
  /** Exact tokens of the tool schemas sent with the request. */
  toolTokens: number;
  maxInputTokens: number;
  reserveTokens: number;
  /** Ids that must stay (the current query): never evicted to make room. */
  keep?: readonly string[];
  count(text: string): number;
}

/** The input object of a recorded tool call (`be-read {"file":…}`); an excerpt that no longer parses is passed as text. */
export function toolInputOf(message: MemoryMessage): Record<string, unknown> {
  const text = message.tool && message.content.startsWith(`${message.tool} `) ? message.content.slice(message.tool.length + 1) : message.content;
  try {
    const parsed: unknown = JSON.parse(text);
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
  } catch {
    // cut by the recorder: fall through
  }
  return { excerpt: text };
}

/** The text a part costs (what a provider turns into tokens): tool calls as name + JSON input. */
function partText(p: PromptPart): string {
  switch (p.type) {
    case 'text':
      return p.text;
    case 'tool_call':
      return `${p.name} ${JSON.stringify(p.input)}`;
    case 'tool_result':
      return p.text;
  }
}

/** The window as chat messages: a call with its result present renders as call then result, adjacent. */
export function renderWindow(memory: ChatMemory, clips: ReadonlyMap<string, string> = new Map()): AssembledMessage[] {
  const out: AssembledMessage[] = [];
  const done = new Set<string>();
  for (const m of memory.visibleMessages()) {
    if (done.has(m.id)) continue;
    done.add(m.id);
    const partner = m.pairId !== undefined ? memory.get(m.pairId) : undefined;
    if (m.kind === 'tool_call' && partner?.kind === 'tool_result' && m.tool) {
      done.add(partner.id);
      out.push({ role: 'assistant', section: 'window', ids: [m.id], tokens: m.tokens, parts: [{ type: 'tool_call', callId: m.id, name: m.tool, input: toolInputOf(m) }] });
      out.push({
        role: 'user',
        section: 'window',
        ids: [partner.id],
        tokens: partner.tokens,
        parts: [{ type: 'tool_result', callId: m.id, text: clips.get(partner.id) ?? partner.content, isError: partner.status === 'error' }],
      });
      continue;
    }
    // A lone half of a pair, a note, a query, an answer: plain text in its role (tool output is shown to the model as user text).
    const role = m.role === 'assistant' ? 'assistant' : 'user';
    const text = m.kind === 'tool_result' ? `[result of ${m.tool ?? 'a tool'} (${m.id})]\n${m.content}` : m.kind === 'tool_call' ? `[call ${m.id}] ${m.content}` : m.content;
    out.push({ role, section: 'window', ids: [m.id], tokens: m.tokens, parts: [{ type: 'text', text }] });
  }
  return out;
}

function systemBlock(input: PromptInput, summary: string): { text: string; summaryTokens: number; contextTokens: number; systemTokens: number } {
  const summaryText = summary ? `\n\n${SUMMARY_HEADER}\n${summary.trimEnd()}` : '';
  const contextText = input.externalContext ? `\n\n${CONTEXT_HEADER}\n${input.externalContext}` : '';
  return {
    text: input.systemPrompt + summaryText + contextText,
    systemTokens: input.count(input.systemPrompt),
    summaryTokens: summaryText ? input.count(summaryText) : 0,
    contextTokens: contextText ? input.count(contextText) : 0,
  };
}

/** Renders the current window without changing the memory; `total` is what the request costs. */
export function renderPrompt(memory: ChatMemory, input: PromptInput, clips: ReadonlyMap<string, string> = new Map()): AssembledPrompt {
  const block = systemBlock(input, memory.summary());
  const window = renderWindow(memory, clips);
  // Tool calls are re-rendered (name + input JSON), results may be clipped: count what is sent, not what was recorded.
  for (const msg of window) {
    const part = msg.parts[0];
    if (part?.type === 'tool_call' || (part?.type === 'tool_result' && clips.has(msg.ids[0]!))) msg.tokens = input.count(partText(part));
    msg.tokens += MESSAGE_OVERHEAD_TOKENS;
  }
  const systemMessage: AssembledMessage = {
    role: 'user',
    section: 'system',
    ids: [],
    parts: [{ type: 'text', text: block.text }],
    tokens: block.systemTokens + block.summaryTokens + block.contextTokens + MESSAGE_OVERHEAD_TOKENS,
  };
  const messages = [systemMessage, ...window];
  const windowTokens = window.reduce((s, m) => s + m.tokens - MESSAGE_OVERHEAD_TOKENS, 0);
  const framing = messages.length * MESSAGE_OVERHEAD_TOKENS;
  const total = block.systemTokens + block.summaryTokens + block.contextTokens + windowTokens + input.toolTokens + framing;
  return {
    messages,
    tokens: { system: block.systemTokens, summary: block.summaryTokens, context: block.contextTokens, window: windowTokens, tools: input.toolTokens, framing, total },
    limit: input.maxInputTokens - input.reserveTokens,
    maxInputTokens: input.maxInputTokens,
    reserveTokens: input.reserveTokens,
    forcedOut: [],
  };
}

/**
 * Sets the memory's budget to what the fixed parts leave (the memory slides), renders, and if protected and
 * recent messages still overflow, evicts the oldest unpinned units outside `keep` until the prompt fits.
 * Throws (nothing to send) when pins and kept messages alone exceed the limit.
 */
export function assemblePrompt(memory: ChatMemory, input: PromptInput): AssembledPrompt {
  const limit = input.maxInputTokens - input.reserveTokens;
  if (!(limit > 0)) {
    throw new ToolError('invalid_argument', `the reserve for the answer (${input.reserveTokens} tokens) leaves nothing of the model's ${input.maxInputTokens} input tokens; lower the reserve.`);
  }
  const forcedOut: string[] = [];
  const keep = new Set(input.keep ?? []);
  const clips = new Map<string, string>();
  // Messages after the kept query are this turn's work: the model must see them, clipped if need be, not lose them.
  const since = Math.max(-1, ...memory.visibleMessages().filter((m) => keep.has(m.id)).map((m) => m.seq));
  // Each round evicts a unit, clips a result or returns (a clip converges in one or two rounds): bounded.
  for (let round = 0; round <= 2 * memory.size + 12; round++) {
    const block = systemBlock(input, '');
    // Framing of every window message plus the system message; the summary's header is counted with it.
    const framing = (memory.size + 2) * MESSAGE_OVERHEAD_TOKENS + input.count(`\n\n${SUMMARY_HEADER}\n`);
    const windowBudget = limit - block.systemTokens - block.contextTokens - input.toolTokens - framing;
    if (windowBudget < MIN_WINDOW_TOKENS) {
      throw new ToolError(
        'too_large',
        `the system prompt (${block.systemTokens} tokens), context (${block.contextTokens}) and tool schemas (${input.toolTokens}) leave ${Math.max(0, windowBudget)} of ` +
          `${limit} prompt tokens for the conversation (at least ${MIN_WINDOW_TOKENS} needed); unpin files from the context or pick a model with a larger input.`,
      );
    }
    if (memory.options.maxTokens !== windowBudget || memory.options.reserveRatio !== 0) memory.setBudget({ maxTokens: windowBudget, reserveRatio: 0 });
    const prompt = renderPrompt(memory, input, clips);
    if (prompt.tokens.total <= limit) return { ...prompt, forcedOut, clipped: [...clips.keys()] };
    const victim = oldestEvictable(memory, keep, since);
    if (!victim && clipLargestResult(memory, clips, since, prompt.tokens.total - limit, input.count)) continue;
    if (!victim) {
      const pinned = memory.visibleMessages().filter((m) => m.pinned || keep.has(m.id));
      throw new ToolError(
        'too_large',
        `the prompt needs ${prompt.tokens.total} tokens but the model accepts ${limit} (after the ${input.reserveTokens}-token reserve): ` +
          `${pinned.length} pinned or current messages (${pinned.map((m) => `${m.id} ${m.tokens}t`).slice(0, 8).join(', ')}) do not fit. Unpin or forget one (/forget id), or shorten the request. Nothing was sent.`,
      );
    }
    forcedOut.push(...memory.evict(victim));
  }
  throw new ToolError('too_large', 'the prompt could not be brought under the model limit');
}

/** The oldest message before this turn's query that may leave (not pinned, not kept, partner neither). */
function oldestEvictable(memory: ChatMemory, keep: ReadonlySet<string>, since: number): string | undefined {
  for (const m of memory.visibleMessages()) {
    if (since >= 0 && m.seq > since) break;
    if (m.pinned || keep.has(m.id)) continue;
    const partner = m.pairId !== undefined ? memory.get(m.pairId) : undefined;
    if (partner && (partner.pinned || keep.has(partner.id))) continue;
    return m.id;
  }
  return undefined;
}


/**
 * Clips this turn's largest not-yet-clipped tool result so the prompt loses `excess` tokens: head and tail kept,
 * with where the whole is (the message is still in the window, and recallable by id once it leaves).
 */
function clipLargestResult(memory: ChatMemory, clips: Map<string, string>, since: number, excess: number, count: (t: string) => number): boolean {
  const candidates = memory.visibleMessages().filter((m) => m.seq > since && m.kind === 'tool_result' && m.tokens > 60);
  candidates.sort((a, b) => (clips.has(a.id) ? 1 : 0) - (clips.has(b.id) ? 1 : 0) || b.tokens - a.tokens);
  const m = candidates[0];
  if (!m) return false;
  const current = clips.get(m.id) ?? m.content;
  const currentTokens = count(current);
  const target = currentTokens - excess - 40;
  if (target < 20) {
    if (clips.get(m.id)?.startsWith('[result of')) return false; // already reduced to its note
    clips.set(m.id, `[result of ${m.tool ?? 'a tool'} ${m.id}: ${m.tokens} tokens, too large for this model's prompt; read a smaller range, or be-memory {"action":"recall","id":"${m.id}"} in pages]`);
    return true;
  }
  // The text's own characters per token (JSON with escapes runs near 2.5, prose near 4), with a 5% margin.
  const keepChars = Math.max(40, Math.floor(((target * current.length) / Math.max(1, currentTokens)) * 0.95));
  const head = Math.floor(keepChars * 0.75);
  const tail = keepChars - head;
  clips.set(m.id, `${m.content.slice(0, head)}\n… [${m.content.length - head - tail} characters clipped to fit the model; be-memory {"action":"recall","id":"${m.id}"} pages through the whole] …\n${m.content.slice(m.content.length - tail)}`);
  return true;
}
