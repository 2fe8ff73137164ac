/**
 * The one table of the memory settings (`betterEditTools.memory.*`, util/settingTable.ts): each one's type,
 * bounds or allowed values, and default. ChatMemory validates its options against it, the VS Code settings reader
 * falls back to the default outside it, and package.json's contributes.configuration repeats it
 * (test/core/memory/limits.test.ts checks they agree), so a value the Settings UI accepts never throws and one it
 * refuses is never taken.
 */
import { settingOrDefault, settingProblem, type SettingLimit, type SettingValue } from '../util/settingTable';
import type { TokenEncoding } from './node/tokenizer';

export type { ChoiceLimit, NumberLimit, SettingLimit, SwitchLimit } from '../util/settingTable';

const ENCODINGS: readonly TokenEncoding[] = ['o200k_base', 'cl100k_base'];

/** Keyed by the setting's name under `betterEditTools.memory.`. */
export const MEMORY_SETTINGS = {
  maxTokens: { type: 'number', min: 100, max: 10_000_000, integer: true, default: 40_000, what: 'the window budget in tokens' },
  // At 0.9 a tenth of the budget is left for the window; more would leave too little to hold a single tool result.
  reserveRatio: { type: 'number', min: 0, max: 0.9, integer: false, default: 0.15, what: 'the share of the budget kept for the reply' },
  recentKeep: { type: 'number', min: 0, max: 1000, integer: true, default: 6, what: 'the newest messages never evicted automatically' },
  tokenizer: { type: 'choice', values: ENCODINGS, default: 'o200k_base' as TokenEncoding, what: 'the encoding that counts tokens' },
  lmSummary: { type: 'boolean', default: false, what: 'condense the summary with the chat model' },
} as const satisfies Record<string, SettingLimit>;

export type MemorySettingKey = keyof typeof MEMORY_SETTINGS;

/** The value a memory setting holds: a number, one of its choices, or a boolean. */
export type MemorySettingValue<K extends MemorySettingKey> = SettingValue<(typeof MEMORY_SETTINGS)[K]>;

/**
 * Undefined when `value` is allowed for the setting `key`; otherwise what is wrong and what is expected, naming it
 * `label` (default the setting's name; ChatMemory names its option, `encoding` for the tokenizer setting).
 */
export function memorySettingProblem(key: MemorySettingKey, value: unknown, label: string = key): string | undefined {
  return settingProblem(MEMORY_SETTINGS[key], value, label);
}

/** The value of `key` when allowed, else its default: what a hand-edited settings.json falls back to. */
export function memorySettingOrDefault<K extends MemorySettingKey>(key: K, value: unknown): MemorySettingValue<K> {
  return settingOrDefault(MEMORY_SETTINGS[key], value) as MemorySettingValue<K>;
}
