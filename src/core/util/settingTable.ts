/**
 * A settings table: each setting's type, bounds or allowed values, and default, in one place that the code
 * validating it, the VS Code settings reader and package.json's contributes.configuration all follow (the tests
 * check package.json against each table). Used by the memory settings (memory/limits.ts) and the context settings
 * (context/settingsTable.ts).
 */

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

/** The value a setting holds: a number, one of its choices, or a boolean. */
export type SettingValue<L> = L extends { type: 'number' } ? number : L extends { type: 'choice'; values: readonly (infer T)[] } ? T : boolean;

/** Undefined when `value` is allowed by `l`; otherwise what is wrong and what is expected, naming it `label`. */
export function settingProblem(l: SettingLimit, value: unknown, label: string): string | undefined {
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

/** `value` when `l` allows it, else the default: what a hand-edited settings.json falls back to. */
export function settingOrDefault<L extends SettingLimit>(l: L, value: unknown): SettingValue<L> {
  return (settingProblem(l, value, 'value') === undefined ? value : l.default) as SettingValue<L>;
}
