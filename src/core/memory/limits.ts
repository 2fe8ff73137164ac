/**
 * The one table of the memory settings (`betterEditTools.memory.*`): each one's type, bounds or allowed values,
 * and default. ChatMemory validates its options against it, the VS Code settings reader falls back to the default
 * outside it, and package.json's contributes.configuration repeats it (test/core/memory/limits.test.ts checks
 * they agree), so a value the Settings UI accepts never throws and one it refuses is never taken.
 */
import type { TokenEncoding } from './node/tokenizer';

export interface NumberLimit {
  type: 'number';
  min: number;
  /** Inclusive. */
  max: number;
  integer: boolean;
  default: number;
  /** What it means, for error messages. */
  what: string;
}

export interface ChoiceLimit<T extends string = string> {
  type: 'choice';
  values: readonly T[];
  default: T;
  what: string;
}

export interface SwitchLimit {
  type: 'boolean';
  default: boolean;
  what: string;
}

export type SettingLimit = NumberLimit | ChoiceLimit | SwitchLimit;

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

/** The value a setting holds: a number, one of its choices, or a boolean. */
export type MemorySettingValue<K extends MemorySettingKey> = (typeof MEMORY_SETTINGS)[K] extends { type: 'number' }
  ? number
  : (typeof MEMORY_SETTINGS)[K] extends { type: 'choice'; values: readonly (infer T)[] }
    ? T
    : boolean;

/**
 * Undefined when `value` is allowed for the setting `key`; otherwise what is wrong and what is expected, naming it
 * `label` (default the setting's name; ChatMemory names its option, `encoding` for the tokenizer setting).
 */
export function memorySettingProblem(key: MemorySettingKey, value: unknown, label: string = key): string | undefined {
  const l: SettingLimit = MEMORY_SETTINGS[key];
  const got = JSON.stringify(value) ?? String(value);
  switch (l.type) {
    case 'number': {
      const ok = typeof value === 'number' && Number.isFinite(value) && (!l.integer || Number.isInteger(value)) && value >= l.min && value <= l.max;
      return ok ? undefined : `${label} (${l.what}) must be ${l.integer ? 'an integer' : 'a number'} from ${l.min} to ${l.max}; got ${got}`;
    }
    case 'choice':
      return l.values.includes(value as string) ? undefined : `${label} (${l.what}) must be one of ${l.values.join(', ')}; got ${got}`;
    case 'boolean':
      return typeof value === 'boolean' ? undefined : `${label} (${l.what}) must be true or false; got ${got}`;
  }
}

/** The value of `key` when allowed, else its default: what a hand-edited settings.json falls back to. */
export function memorySettingOrDefault<K extends MemorySettingKey>(key: K, value: unknown): MemorySettingValue<K> {
  return (memorySettingProblem(key, value) === undefined ? value : MEMORY_SETTINGS[key].default) as MemorySettingValue<K>;
}
