/**
 * The extension's memory and context settings, read through a getter (VS Code's WorkspaceConfiguration.get) and
 * checked here, so a hand-edited settings.json with a wrong value falls back to the default instead of throwing
 * inside the extension host. Pure: no vscode import, unit-tested in test/vscode.
 */
import type { ContextSettings, ReadMode } from '../core/context/node/service';
import type { ChatMemoryOptions } from '../core/memory/chatMemory';
import { memorySettingOrDefault, type MemorySettingKey, type MemorySettingValue } from '../core/memory/limits';
import type { CondenseInput, Summarizer } from '../core/memory/summarizer';
import type { Fingerprint, MemoryMessage } from '../core/memory/types';

/** `get(key, default)` under the `betterEditTools` section. */
export type SettingGetter = <T>(key: string, fallback: T) => T;

export interface MemorySettings {
  options: Pick<ChatMemoryOptions, 'maxTokens' | 'reserveRatio' | 'recentKeep' | 'encoding'>;
  lmSummary: boolean;
}

export type ContextModeSettings = Pick<ContextSettings, 'defaultMode' | 'autoThresholdTokens' | 'pageTokens' | 'overviewBudget'>;

function num(get: SettingGetter, key: string, fallback: number, min: number, max: number, integer = true): number {
  const v = get<unknown>(key, fallback);
  if (typeof v !== 'number' || !Number.isFinite(v) || (integer && !Number.isInteger(v)) || v < min || v > max) return fallback;
  return v;
}

function oneOf<T extends string>(get: SettingGetter, key: string, allowed: readonly T[], fallback: T): T {
  const v = get<unknown>(key, fallback);
  return allowed.includes(v as T) ? (v as T) : fallback;
}

/** `memory.<key>` when the settings table (src/core/memory/limits.ts) allows it, else the table's default. */
function memorySetting<K extends MemorySettingKey>(get: SettingGetter, key: K): MemorySettingValue<K> {
  return memorySettingOrDefault(key, get<unknown>(`memory.${key}`, undefined));
}

export function memorySettings(get: SettingGetter): MemorySettings {
  return {
    options: {
      maxTokens: memorySetting(get, 'maxTokens'),
      reserveRatio: memorySetting(get, 'reserveRatio'),
      recentKeep: memorySetting(get, 'recentKeep'),
      encoding: memorySetting(get, 'tokenizer'),
    },
    lmSummary: memorySetting(get, 'lmSummary'),
  };
}

export function contextSettings(get: SettingGetter): ContextModeSettings {
  return {
    defaultMode: oneOf<ReadMode>(get, 'context.defaultReadMode', ['auto', 'full', 'structure'], 'auto'),
    autoThresholdTokens: num(get, 'context.autoFullMaxTokens', 2000, 0, 10_000_000),
    pageTokens: num(get, 'context.pageTokens', 8000, 500, 100_000),
    overviewBudget: num(get, 'context.overviewBudget', 1024, 128, 100_000),
  };
}

/**
 * `allowWrite`: globs of `.git` paths the tools may write anyway (WritePolicy). Anything but a list of non-empty
 * strings counts as none, and so do negations and comments (which would mean the opposite of allowing).
 */
export function allowWriteSetting(get: SettingGetter): string[] {
  const v = get<unknown>('allowWrite', []);
  if (!Array.isArray(v)) return [];
  return v.filter((g): g is string => typeof g === 'string' && g.trim() !== '' && !/^\s*[!#]/.test(g)).map((g) => g.trim());
}

/**
 * A summarizer whose backend follows a setting: the memory keeps the object it was given at creation, so the
 * switch happens inside (the language model when `useModel()` says so, the extractive one otherwise).
 */
export class SwitchingSummarizer implements Summarizer {
  constructor(
    private readonly extractive: Summarizer,
    private readonly model: () => Summarizer,
    private readonly useModel: () => boolean,
  ) {}

  private current(): Summarizer {
    return this.useModel() ? this.model() : this.extractive;
  }

  lineFor(message: MemoryMessage, fingerprint: Fingerprint, partner?: MemoryMessage): string {
    return this.current().lineFor(message, fingerprint, partner);
  }

  condense(input: CondenseInput): string[] | Promise<string[]> {
    return this.current().condense(input);
  }
}
