/**
 * The options of a ChatMemory, their defaults and their validation. The options a user can set
 * (`betterEditTools.memory.*`) take their bounds and defaults from the one settings table (limits.ts).
 */
import { ToolError } from '../errors';
import { MEMORY_SETTINGS, memorySettingProblem, type MemorySettingKey } from './limits';
import type { TokenEncoding } from './node/tokenizer';
import type { MessageKind, Priority, Role } from './types';

export interface ChatMemoryOptions {
  /** Total window budget in tokens (ChatMemory M1: 40,000). */
  maxTokens: number;
  /** Share kept for the model's output (0.15). */
  reserveRatio: number;
  /** The newest N messages are never evicted automatically (6). */
  recentKeep: number;
  /** Condense the summary every N evicted tokens (10,000). */
  summaryEvery: number;
  /** Messages in these groups are pinned on entry (["goal"]). */
  pinnedGroups: string[];
  /** After a slide the window is brought down to this share of the usable budget (0.9). */
  targetFill: number;
  /** Cap for the running summary (default 5% of the usable budget). */
  summaryMaxTokens?: number;
  /** Fingerprints kept (oldest dropped; they are already folded into the summary). */
  maxFingerprints: number;
  /** Share of the usable budget above which pinned/high messages raise a warning (ChatMemory M2: 5%). */
  protectedWarnRatio: number;
  encoding: TokenEncoding;
  systemPrompt: string;
}

/** The options that are settings, and the setting each follows. */
const SETTING_OF: Partial<Record<keyof ChatMemoryOptions, MemorySettingKey>> = {
  maxTokens: 'maxTokens',
  reserveRatio: 'reserveRatio',
  recentKeep: 'recentKeep',
  encoding: 'tokenizer',
};

export const DEFAULT_MEMORY_OPTIONS: ChatMemoryOptions = {
  maxTokens: MEMORY_SETTINGS.maxTokens.default,
  reserveRatio: MEMORY_SETTINGS.reserveRatio.default,
  recentKeep: MEMORY_SETTINGS.recentKeep.default,
  summaryEvery: 10_000,
  pinnedGroups: ['goal'],
  targetFill: 0.9,
  maxFingerprints: 200,
  protectedWarnRatio: 0.05,
  encoding: MEMORY_SETTINGS.tokenizer.default,
  systemPrompt:
    'You are a coding agent. Use the external context and the history below to complete the task; call tools when you need more detail.',
};

export const DEFAULT_PRIORITY: Record<MessageKind, Priority> = {
  system: 'high',
  user_query: 'medium',
  tool_call: 'medium',
  tool_result: 'low',
  assistant_code: 'medium',
  assistant: 'low',
  note: 'medium',
};

export const DEFAULT_ROLE: Record<MessageKind, Role> = {
  system: 'system',
  user_query: 'user',
  tool_call: 'assistant',
  tool_result: 'tool',
  assistant_code: 'assistant',
  assistant: 'assistant',
  note: 'user',
};

/** Throws a clear error (what is wrong, what is expected) for the first invalid option. */
export function validateOptions(o: ChatMemoryOptions): void {
  const fail = (what: string): never => {
    throw new ToolError('invalid_argument', `invalid ChatMemory option: ${what}`);
  };
  for (const [option, setting] of Object.entries(SETTING_OF) as [keyof ChatMemoryOptions, MemorySettingKey][]) {
    const problem = memorySettingProblem(setting, o[option], option);
    if (problem) fail(problem);
  }
  if (!(o.summaryEvery > 0)) fail(`summaryEvery must be > 0 (got ${o.summaryEvery})`);
  if (!(o.targetFill > 0 && o.targetFill <= 1)) fail(`targetFill must be in (0, 1] (got ${o.targetFill})`);
  if (!Array.isArray(o.pinnedGroups)) fail('pinnedGroups must be an array of group names');
}
