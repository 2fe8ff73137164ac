/** One limits table for the memory budget: package.json, the settings reader and ChatMemory follow it. */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import fc from 'fast-check';
import { ChatMemory } from '../../../src/core/memory/chatMemory';
import { MEMORY_LIMITS, memoryLimitProblem, type MemoryLimitKey } from '../../../src/core/memory/limits';
import { memorySettings, type SettingGetter } from '../../../src/vscode/settings';

const pkg = JSON.parse(readFileSync(path.join(__dirname, '..', '..', '..', 'package.json'), 'utf8'));
const props = pkg.contributes.configuration.properties as Record<string, { type: string; minimum?: number; maximum?: number; default?: number }>;
const keys = Object.keys(MEMORY_LIMITS) as MemoryLimitKey[];
const only = (key: string, value: unknown): SettingGetter => ((k: string, fallback: unknown) => (k === key ? value : fallback)) as SettingGetter;

describe('memory/limits', () => {
  it('package.json declares each memory option with the table\'s type, minimum, maximum and default', () => {
    for (const key of keys) {
      const p = props[`betterEditTools.memory.${key}`];
      assert.ok(p, `betterEditTools.memory.${key} is not contributed`);
      const l = MEMORY_LIMITS[key];
      assert.deepEqual(
        { type: p.type, minimum: p.minimum, maximum: p.maximum, default: p.default },
        { type: l.integer ? 'integer' : 'number', minimum: l.min, maximum: l.max, default: l.default },
        key,
      );
    }
  });

  it('every value the Settings UI accepts makes a working session (both bounds included)', () => {
    for (const key of keys) {
      const l = MEMORY_LIMITS[key];
      for (const value of [l.min, l.max, l.default]) {
        const options = memorySettings(only(`memory.${key}`, value)).options;
        assert.equal(options[key], value, `${key}=${value} is taken by the settings reader`);
        const m = new ChatMemory(options);
        m.add({ kind: 'user_query', content: 'hello' });
        assert.equal(m.stats().maxTokens, options.maxTokens);
      }
    }
  });

  it('the reader and ChatMemory agree on every value: accepted by both, or refused by both (property)', () => {
    fc.assert(
      fc.property(fc.constantFrom(...keys), fc.oneof(fc.double({ min: -2, max: 2e7, noNaN: false }), fc.integer({ min: -5, max: 2000 })), (key, value) => {
        const taken = memorySettings(only(`memory.${key}`, value)).options[key] === value;
        let constructed = true;
        try {
          new ChatMemory({ [key]: value });
        } catch {
          constructed = false;
        }
        assert.equal(taken || value === MEMORY_LIMITS[key].default, constructed, `${key}=${value}`);
        assert.equal(memoryLimitProblem(key, value) === undefined, constructed);
      }),
      { numRuns: 300 },
    );
  });

  it('an out-of-range value is a clear error naming the range', () => {
    assert.throws(() => new ChatMemory({ reserveRatio: 0.95 }), /reserveRatio \(the share of the budget kept for the reply\) must be a number from 0 to 0\.9; got 0\.95/);
    assert.throws(() => new ChatMemory({ maxTokens: 99 }), /maxTokens .* must be an integer from 100 to 10000000; got 99/);
    assert.equal(memorySettings(only('memory.reserveRatio', 0.95)).options.reserveRatio, MEMORY_LIMITS.reserveRatio.default);
  });
});
