/**
 * The extension's memory and context settings, read through a getter (VS Code's WorkspaceConfiguration.get) and
 * checked here, so a hand-edited settings.json with a wrong value falls back to the default instead of throwing
 * inside the extension host. Pure: no vscode import, unit-tested in test/vscode.
 */
import type { ContextSettings } from '../core/context/node/service';
import { CONTEXT_SETTINGS, type ContextSettingKey, type ContextSettingValue } from '../core/context/settingsTable';
import type { ChatMemoryOptions } from '../core/memory/chatMemory';
import { memorySettingOrDefault, type MemorySettingKey, type MemorySettingValue } from '../core/memory/limits';
import { settingOrDefault, type NumberLimit } from '../core/util/settingTable';
import { COPILOT_THRESHOLD_DEFAULT, replyLimitFor, type CopilotSpill, type ReplyLimitSource, type ReplyMaxChars } from '../mcp/hostProfiles';
import type { CondenseInput, Summarizer } from '../core/memory/summarizer';
import type { Fingerprint, MemoryMessage } from '../core/memory/types';

/** `get(key, default)` under the `betterEditTools` section. */
export type SettingGetter = <T>(key: string, fallback: T) => T;

export interface MemorySettings {
  options: Pick<ChatMemoryOptions, 'maxTokens' | 'reserveRatio' | 'recentKeep' | 'encoding'>;
  lmSummary: boolean;
}

export type ContextModeSettings = Pick<ContextSettings, 'defaultMode' | 'autoThresholdTokens' | 'pageTokens' | 'overviewBudget'>;

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

/** `context.<key>` when the settings table (src/core/context/settingsTable.ts) allows it, else the table's default. */
function contextSetting<K extends ContextSettingKey>(get: SettingGetter, key: K): ContextSettingValue<K> {
  return settingOrDefault(CONTEXT_SETTINGS[key], get<unknown>(`context.${key}`, undefined)) as ContextSettingValue<K>;
}

export function contextSettings(get: SettingGetter): ContextModeSettings {
  return {
    defaultMode: contextSetting(get, 'defaultReadMode'),
    autoThresholdTokens: contextSetting(get, 'autoFullMaxTokens'),
    pageTokens: contextSetting(get, 'pageTokens'),
    overviewBudget: contextSetting(get, 'overviewBudget'),
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

/**
 * `replyMaxChars`: -1 (the default) sizes replies to the client's host profile, 0 sets no limit, N is the longest
 * reply in characters (at least MIN_REPLY_CHARS). Named beside `reply` rather than under it: VS Code cannot hold
 * both `reply` (a string) and `reply.maxChars` in one settings tree.
 */
export const REPLY_MAX_CHARS_SETTING: NumberLimit = {
  type: 'number',
  min: -1,
  max: 10_000_000,
  integer: true,
  default: -1,
  what: 'the longest reply in characters (-1: the host profile, 0: no limit)',
};

export function replyMaxCharsSetting(get: SettingGetter): ReplyMaxChars {
  const v = settingOrDefault(REPLY_MAX_CHARS_SETTING, get<unknown>('replyMaxChars', undefined)) as number;
  return v === -1 ? 'auto' : v === 0 ? 'none' : v;
}

/** Copilot's spill settings under `github.copilot.chat.agent` (its defaults when Copilot Chat is not installed). */
export function copilotSpillSettings(get: SettingGetter): CopilotSpill {
  const enabled = get<unknown>('largeToolResultsToDisk.enabled', true);
  const threshold = get<unknown>('largeToolResultsToDisk.thresholdBytes', COPILOT_THRESHOLD_DEFAULT);
  return {
    enabled: enabled !== false,
    thresholdBytes: typeof threshold === 'number' && Number.isFinite(threshold) && threshold > 0 ? threshold : COPILOT_THRESHOLD_DEFAULT,
  };
}

/**
 * The in-process server's reply limit: our override and Copilot's two settings read at each call, so a change
 * applies to the next reply of every open session, without a restart.
 */
export function liveReplyLimit(ours: SettingGetter, copilot: SettingGetter): ReplyLimitSource {
  return (client) => replyLimitFor(client, { override: replyMaxCharsSetting(ours), copilot: copilotSpillSettings(copilot) });
}
