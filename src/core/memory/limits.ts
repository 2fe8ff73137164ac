/**
 * The one table of bounds for the ChatMemory budget options. ChatMemory validates against it, the VS Code settings
 * reader falls back to the default outside it, and package.json's `betterEditTools.memory.*` minimum/maximum/default
 * repeat it (test/core/memory/limits.test.ts checks they agree), so a value the Settings UI accepts never throws.
 */
export interface NumberLimit {
  min: number;
  /** Inclusive. */
  max: number;
  integer: boolean;
  default: number;
  /** What it means, for error messages. */
  what: string;
}

export const MEMORY_LIMITS = {
  maxTokens: { min: 100, max: 10_000_000, integer: true, default: 40_000, what: 'the window budget in tokens' },
  // At 0.9 a tenth of the budget is left for the window; more would leave too little to hold a single tool result.
  reserveRatio: { min: 0, max: 0.9, integer: false, default: 0.15, what: 'the share of the budget kept for the reply' },
  recentKeep: { min: 0, max: 1000, integer: true, default: 6, what: 'the newest messages never evicted automatically' },
} as const satisfies Record<string, NumberLimit>;

export type MemoryLimitKey = keyof typeof MEMORY_LIMITS;

/** Undefined when `value` is within the limits of `key`; otherwise what is wrong and what is expected. */
export function memoryLimitProblem(key: MemoryLimitKey, value: unknown): string | undefined {
  const l: NumberLimit = MEMORY_LIMITS[key];
  const ok = typeof value === 'number' && Number.isFinite(value) && (!l.integer || Number.isInteger(value)) && value >= l.min && value <= l.max;
  if (ok) return undefined;
  return `${key} (${l.what}) must be ${l.integer ? 'an integer' : 'a number'} from ${l.min} to ${l.max}; got ${JSON.stringify(value) ?? String(value)}`;
}
