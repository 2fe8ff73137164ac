/**
 * Records every tools/call into the calling session's ChatMemory: the call as a `tool_call` (medium),
 * the outcome as a `tool_result` (low, status ok/error), linked as a pair so they leave the window
 * together, both carrying the file references found in the arguments.
 */
import { referencesFromArgs } from '../core/memory/references';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { ChatMemory } from '../core/memory/chatMemory';
import type { MemoryRegistry } from '../core/memory/node/registry';
import type { CallObserver } from './types';

export interface MemoryObserverOptions {
  /**
   * Result text kept per call. The memory keeps what the agent needs to re-ground (the head, where
   * reads and errors put what matters, plus the tail), not whole files: a 10,000-line be-read would
   * otherwise take the window by itself and cost its tokenization on every call. 8,000 characters is
   * about 2,000 tokens — the size ARCHITECTURE.md (ChatMemory M6) gives a useful tool result — and counts in well under 1 ms.
   */
  maxResultChars?: number;
  /** Argument JSON kept per call (edit contents are bulky; the path and range are what matter). */
  maxArgChars?: number;
  /** Tools not recorded: be-memory manages the memory itself, recording it would echo recaps back in. */
  skipTools?: readonly string[];
  /** Recording failures land here; they never reach the call. */
  onError?: (err: unknown) => void;
  /**
   * Awaited before each record (the CLI: the tokenizer's background load and no call in flight), so recording,
   * which counts tokens, never takes turns with a call's own steps.
   */
  beforeRecord?: () => Promise<void>;
  /** The clock a call's time is taken from when its result comes (the record is added later); default Date.now. */
  now?: () => number;
}

export const DEFAULT_MAX_RESULT_CHARS = 8_000;
export const DEFAULT_MAX_ARG_CHARS = 2_000;

/** Keeps the head and the tail of an over-long text, with the number of characters left out. */
export function truncateMiddle(text: string, max: number): string {
  if (text.length <= max) return text;
  const tail = Math.floor(max * 0.2);
  const head = max - tail;
  return `${text.slice(0, head)}\n… [${text.length - head - tail} characters omitted] …\n${text.slice(text.length - tail)}`;
}

/** String arguments longer than this are kept as a head + tail excerpt with their size. */
export const DEFAULT_MAX_STRING_ARG_CHARS = 2_048;

/**
 * A copy of the arguments with every long string replaced by its head and tail and its original size:
 * the memory holds what a model would be shown, not the 10 MB `content` of an edit. Walking the
 * arguments costs microseconds; stringifying or tokenizing a multi-MB argument would cost the call.
 */
export function excerptArgs(value: unknown, maxString = DEFAULT_MAX_STRING_ARG_CHARS, depth = 0): unknown {
  if (typeof value === 'string') {
    if (value.length <= maxString) return value;
    const tail = Math.floor(maxString * 0.25);
    const head = maxString - tail;
    return `${value.slice(0, head)}… [${value.length} characters in all, ${value.length - head - tail} omitted] …${value.slice(value.length - tail)}`;
  }
  if (value === null || typeof value !== 'object') return value;
  if (depth >= 6) return '[…]';
  if (Array.isArray(value)) {
    const items = value.slice(0, 100).map((v) => excerptArgs(v, maxString, depth + 1));
    if (value.length > 100) items.push(`… ${value.length - 100} more items`);
    return items;
  }
  const out: Record<string, unknown> = {};
  let n = 0;
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    if (++n > 100) break;
    out[k] = excerptArgs(v, maxString, depth + 1);
  }
  return out;
}

function compactJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? '';
  } catch {
    return String(value);
  }
}

interface PendingCall {
  tool: string;
  content: string;
  references: ReturnType<typeof referencesFromArgs>;
}

/** What the memory keeps of a call's arguments: an excerpt (no stringify of a multi-MB value) and its file references. */
function pendingCall(tool: string, args: unknown, maxArgs: number): PendingCall {
  const excerpt = excerptArgs(args);
  return { tool, content: `${tool} ${truncateMiddle(compactJson(excerpt), maxArgs)}`, references: referencesFromArgs(excerpt) };
}

/** The kept head and tail of each text part, joined (a be-read result can be megabytes). */
function resultExcerpt(result: CallToolResult, maxResult: number): string {
  return truncateMiddle(result.content.map((c) => (c.type === 'text' ? truncateMiddle(c.text, maxResult) : `[${c.type}]`)).join('\n'), maxResult);
}

/** Adds a call (when known) and its result to the memory as a linked pair. */
async function addPair(memory: ChatMemory, call: PendingCall | undefined, tool: string, text: string, isError: boolean, time?: number): Promise<void> {
  // the pair's time is when the call ended (its record may come later): after any snapshot it took (recapUndo.ts matches by that)
  const at = time === undefined ? {} : { time };
  let callMessageId: string | undefined;
  if (call) {
    const tokens = await memory.countTokensAsync(call.content);
    callMessageId = memory.add({ kind: 'tool_call', priority: 'medium', tool: call.tool, content: call.content, references: call.references, tokens, ...at }).id;
  }
  const tokens = await memory.countTokensAsync(text);
  memory.add({
    kind: 'tool_result',
    priority: 'low',
    tool,
    status: isError ? 'error' : 'ok',
    content: text,
    references: call?.references ?? [],
    tokens,
    ...at,
    ...(callMessageId !== undefined ? { pairId: callMessageId } : {}),
  });
}

/**
 * Records one finished call into `memory` now, as the observer does after the response: the in-process caller of
 * `@better-edit` (toolSession.ts) adds its result within the turn, before the model's next request is assembled.
 */
export function recordToolCall(
  memory: ChatMemory,
  e: { tool: string; args: unknown; result: CallToolResult },
  options: Pick<MemoryObserverOptions, 'maxResultChars' | 'maxArgChars'> = {},
): Promise<void> {
  const call = pendingCall(e.tool, e.args, options.maxArgChars ?? DEFAULT_MAX_ARG_CHARS);
  return addPair(memory, call, e.tool, resultExcerpt(e.result, options.maxResultChars ?? DEFAULT_MAX_RESULT_CHARS), e.result.isError === true);
}

/**
 * Records calls into the memory without adding to the call's latency: `onToolCall` only keeps an
 * excerpt of the arguments (no stringify of large values, no tokenizing); the call and its result
 * are added together after the response went out (setImmediate runs after the SDK's send), in call
 * order, with token counts from `countAsync` (which yields on large texts). The registry debounces
 * the session's file write. `settled()` resolves when every recorded call is in the memory.
 */
export interface MemoryCallObserver extends CallObserver {
  settled(): Promise<void>;
}

export function memoryObserver(registry: Pick<MemoryRegistry, 'get'>, options: MemoryObserverOptions = {}): MemoryCallObserver {
  const maxResult = options.maxResultChars ?? DEFAULT_MAX_RESULT_CHARS;
  const maxArgs = options.maxArgChars ?? DEFAULT_MAX_ARG_CHARS;
  const skip = new Set(options.skipTools ?? ['be-memory']);
  const now = options.now ?? Date.now;
  // The server reports every call's result (failures included), so entries do not accumulate.
  const pending = new Map<string, PendingCall>();
  // One chain for all sessions keeps records in call order; a failed record does not stop the next.
  let queue: Promise<void> = Promise.resolve();
  // A be-memory call reads the memory: while one waits, the records before it stop waiting for an idle moment.
  let urgent = 0;
  let wake: (() => void) | undefined;
  const waitBeforeRecord = (): Promise<void> | undefined => {
    const before = urgent ? undefined : options.beforeRecord?.();
    if (!before) return undefined;
    return Promise.race([before, new Promise<void>((resolve) => (wake = resolve))]);
  };
  const afterResponse = (task: () => Promise<void>): void => {
    queue = queue
      .then(() => new Promise<void>((resolve) => setImmediate(resolve)))
      .then(waitBeforeRecord)
      .then(task)
      .catch((err: unknown) => options.onError?.(err));
  };
  return {
    beforeCall({ tool }) {
      if (!skip.has(tool)) return undefined;
      urgent++;
      wake?.();
      return queue.finally(() => void urgent--);
    },
    onToolCall({ callId, tool, args }) {
      if (skip.has(tool)) return;
      pending.set(callId, pendingCall(tool, args, maxArgs));
    },
    onToolResult({ sessionId, callId, tool, result, isError }) {
      if (skip.has(tool)) return;
      const call = pending.get(callId);
      pending.delete(callId);
      const text = resultExcerpt(result, maxResult);
      const ended = now();
      afterResponse(() => addPair(registry.get(sessionId), call, tool, text, isError, ended));
    },
    settled() {
      return queue;
    },
  };
}
