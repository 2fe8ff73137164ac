/**
 * Records every tools/call into the calling session's ChatMemory: the call as a `tool_call` (medium),
 * the outcome as a `tool_result` (low, status ok/error), linked as a pair so they leave the window
 * together, both carrying the file references found in the arguments.
 */
import { referencesFromArgs } from '../core/memory/references';
import type { MemoryRegistry } from '../core/memory/registry';
import type { CallObserver } from './types';

export interface MemoryObserverOptions {
  /**
   * Result text kept per call. The memory keeps what the agent needs to re-ground (the head, where
   * reads and errors put what matters, plus the tail), not whole files: a 10,000-line be-read would
   * otherwise take the window by itself and cost its tokenization on every call. 8,000 characters is
   * about 2,000 tokens — the size the seed gives a useful tool return — and counts in well under 1 ms.
   */
  maxResultChars?: number;
  /** Argument JSON kept per call (edit contents are bulky; the path and range are what matter). */
  maxArgChars?: number;
  /** Tools not recorded: be-memory manages the memory itself, recording it would echo recaps back in. */
  skipTools?: readonly string[];
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

function compactJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? '';
  } catch {
    return String(value);
  }
}

export function memoryObserver(registry: MemoryRegistry, options: MemoryObserverOptions = {}): CallObserver {
  const maxResult = options.maxResultChars ?? DEFAULT_MAX_RESULT_CHARS;
  const maxArgs = options.maxArgChars ?? DEFAULT_MAX_ARG_CHARS;
  const skip = new Set(options.skipTools ?? ['be-memory']);
  // Call ids are UUIDs; the memory's own short ids (m12) are cheaper for an agent to read and type.
  // The server reports every call's result (failures included), so entries do not accumulate.
  const pending = new Map<string, string>();
  return {
    onToolCall({ sessionId, callId, tool, args }) {
      if (skip.has(tool)) return;
      const message = registry.get(sessionId).add({
        kind: 'tool_call',
        priority: 'medium',
        tool,
        content: `${tool} ${truncateMiddle(compactJson(args), maxArgs)}`,
        references: referencesFromArgs(args),
      });
      pending.set(callId, message.id);
    },
    onToolResult({ sessionId, callId, tool, args, result, isError }) {
      if (skip.has(tool)) return;
      const memory = registry.get(sessionId);
      const callMessageId = pending.get(callId);
      pending.delete(callId);
      const text = result.content.map((c) => (c.type === 'text' ? c.text : `[${c.type}]`)).join('\n');
      memory.add({
        kind: 'tool_result',
        priority: 'low',
        tool,
        status: isError ? 'error' : 'ok',
        content: truncateMiddle(text, maxResult),
        references: referencesFromArgs(args),
        ...(callMessageId !== undefined ? { pairId: callMessageId } : {}),
      });
    },
  };
}
