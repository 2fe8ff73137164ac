/** One table for the memory settings: package.json, the settings reader and ChatMemory follow it. */
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { ChatMemory } from '../../../src/core/memory/chatMemory';
import type { ChatMemoryOptions } from '../../../src/core/memory/memoryOptions';
import { MEMORY_SETTINGS, memorySettingProblem, type MemorySettingKey } from '../../../src/core/memory/limits';
import { memorySettings, type SettingGetter } from '../../../src/vscode/settings';
import { memoryDeps } from './memoryDeps';
import { assertContributedAsTable } from '../../settingsContributed';

const PREFIX = 'betterEditTools.memory.';
const keys = Object.keys(MEMORY_SETTINGS) as MemorySettingKey[];
const numberKeys = keys.filter((k) => MEMORY_SETTINGS[k].type === 'number') as ('maxTokens' | 'reserveRatio' | 'recentKeep')[];
const only = (key: string, value: unknown): SettingGetter => ((k: string, fallback: unknown) => (k === key ? value : fallback)) as SettingGetter;
/** The ChatMemory option each setting sets, and what the reader gives for it. */
const OPTION: Record<'maxTokens' | 'reserveRatio' | 'recentKeep' | 'tokenizer', keyof ChatMemoryOptions> = {
  maxTokens: 'maxTokens',
  reserveRatio: 'reserveRatio',
  recentKeep: 'recentKeep',
  tokenizer: 'encoding',
};
const read = (key: MemorySettingKey, value: unknown): unknown => {
  const s = memorySettings(only(`memory.${key}`, value));
  return key === 'lmSummary' ? s.lmSummary : s.options[OPTION[key] as keyof typeof s.options];
};

describe('memory/limits', () => {
  it('package.json contributes exactly the table\'s memory settings, each with its type, bounds or values, and default', () => {
    assertContributedAsTable(PREFIX, MEMORY_SETTINGS);
  });

  it('every value the Settings UI accepts makes a working session (both bounds included, every choice)', () => {
    for (const key of keys) {
      const l = MEMORY_SETTINGS[key];
      const values: unknown[] = l.type === 'number' ? [l.min, l.max, l.default] : l.type === 'choice' ? [...l.values] : [true, false];
      for (const value of values) {
        assert.equal(read(key, value), value, `${key}=${String(value)} is taken by the settings reader`);
        const options = memorySettings(only(`memory.${key}`, value)).options;
        const m = new ChatMemory(options, memoryDeps);
        m.add({ kind: 'user_query', content: 'hello' });
        assert.equal(m.stats().maxTokens, options.maxTokens);
      }
    }
  });

  it('the reader and ChatMemory agree on every value: accepted by both, or refused by both (property)', () => {
    const optionKeys = keys.filter((k): k is keyof typeof OPTION => k in OPTION);
    const anyValue = fc.oneof(
      fc.double({ min: -2, max: 2e7, noNaN: false }),
      fc.integer({ min: -5, max: 2000 }),
      fc.constantFrom('o200k_base', 'cl100k_base', 'p50k_base', '', 'O200K_BASE'),
      fc.boolean(),
      fc.constant(null),
    );
    fc.assert(
      fc.property(fc.constantFrom(...optionKeys), anyValue, (key, value) => {
        const taken = read(key, value) === value;
        let constructed = true;
        try {
          new ChatMemory({ [OPTION[key]]: value }, memoryDeps);
        } catch {
          constructed = false;
        }
        assert.equal(taken || value === MEMORY_SETTINGS[key].default, constructed, `${key}=${String(value)}`);
        assert.equal(memorySettingProblem(key, value) === undefined, constructed);
      }),
      { numRuns: 400 },
    );
  });

  it('lmSummary: only true turns it on; anything else is the default', () => {
    for (const v of [true, false, 'true', 1, null, undefined]) assert.equal(read('lmSummary', v), v === true);
  });

  it('an out-of-range value is a clear error naming the range (or the allowed values)', () => {
    assert.throws(() => new ChatMemory({ reserveRatio: 0.95 }, memoryDeps), /reserveRatio \(the share of the budget kept for the reply\) must be a number from 0 to 0\.9; got 0\.95/);
    assert.throws(() => new ChatMemory({ maxTokens: 99 }, memoryDeps), /maxTokens .* must be an integer from 100 to 10000000; got 99/);
    assert.throws(() => new ChatMemory({ encoding: 'p50k_base' as never }, memoryDeps), /encoding \(the encoding that counts tokens\) must be one of o200k_base, cl100k_base; got "p50k_base"/);
    assert.throws(() => new ChatMemory({}, memoryDeps).setBudget({ recentKeep: 1.5 }), /recentKeep .* must be an integer from 0 to 1000; got 1\.5/);
    assert.equal(read('reserveRatio', 0.95), MEMORY_SETTINGS.reserveRatio.default);
    assert.equal(read('tokenizer', 'p50k_base'), MEMORY_SETTINGS.tokenizer.default);
  });

  it('every number setting is one the budget can take at runtime (setBudget follows the same table)', () => {
    for (const key of numberKeys) {
      const l = MEMORY_SETTINGS[key];
      const m = new ChatMemory({}, memoryDeps);
      m.setBudget({ [key]: l.max });
      assert.equal(m.options[key], l.max);
      assert.throws(() => m.setBudget({ [key]: l.max + 1 }), new RegExp(`${key} .* must be`));
    }
  });
});
