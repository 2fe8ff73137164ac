/**
 * The one table of the context settings (`betterEditTools.context.*`, util/settingTable.ts): the context service's
 * defaults (the CLI's too), the VS Code settings reader and package.json follow it (test/mcp/contextSettings.test.ts
 * checks them), so a value the Settings UI accepts is never silently dropped.
 */
import type { SettingLimit, SettingValue } from '../util/settingTable';

/** Keyed by the setting's name under `betterEditTools.context.`. */
export const CONTEXT_SETTINGS = {
  defaultReadMode: {
    type: 'choice',
    values: ['auto', 'full', 'structure'] as const,
    default: 'auto',
    what: 'the mode of a be-read without a range or mode',
  },
  // 10M tokens is far above any file the 64 MiB read limit lets through: the bound only refuses nonsense.
  autoFullMaxTokens: { type: 'number', min: 0, max: 10_000_000, integer: true, default: 2000, what: 'the largest file auto reads whole, in tokens' },
  pageTokens: { type: 'number', min: 500, max: 100_000, integer: true, default: 8000, what: 'the tokens of one full page' },
  overviewBudget: { type: 'number', min: 128, max: 100_000, integer: true, default: 1024, what: 'the tokens of an overview' },
} as const satisfies Record<string, SettingLimit>;

export type ContextSettingKey = keyof typeof CONTEXT_SETTINGS;
export type ContextSettingValue<K extends ContextSettingKey> = SettingValue<(typeof CONTEXT_SETTINGS)[K]>;
