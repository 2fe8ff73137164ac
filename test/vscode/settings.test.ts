/** The extension's memory/context settings, the switching summarizer and the Token Window chart seed (pure logic). */
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { ChatMemory } from '../../src/core/memory/chatMemory';
import { ExtractiveSummarizer, type CondenseInput, type Summarizer } from '../../src/core/memory/summarizer';
import { allowWriteSetting, contextSettings, memorySettings, SwitchingSummarizer, type SettingGetter } from '../../src/vscode/settings';
import { ChartHistory, seedChart } from '../../src/vscode/tokenWindow/views';
import { memoryDeps } from '../core/memory/memoryDeps';

const getter = (values: Record<string, unknown>): SettingGetter => ((key: string, fallback: unknown) => (key in values ? values[key] : fallback)) as SettingGetter;

describe('vscode/settings', () => {
  it('defaults match the documented ones', () => {
    assert.deepEqual(memorySettings(getter({})), {
      options: { maxTokens: 40_000, reserveRatio: 0.15, recentKeep: 6, encoding: 'o200k_base' },
      lmSummary: false,
    });
    assert.deepEqual(contextSettings(getter({})), { defaultMode: 'auto', autoThresholdTokens: 2000, pageTokens: 8000, overviewBudget: 1024 });
  });

  it('takes valid values', () => {
    const m = memorySettings(getter({ 'memory.maxTokens': 8000, 'memory.reserveRatio': 0.2, 'memory.recentKeep': 3, 'memory.tokenizer': 'cl100k_base', 'memory.lmSummary': true }));
    assert.deepEqual(m, { options: { maxTokens: 8000, reserveRatio: 0.2, recentKeep: 3, encoding: 'cl100k_base' }, lmSummary: true });
    const c = contextSettings(getter({ 'context.defaultReadMode': 'full', 'context.autoFullMaxTokens': 500, 'context.pageTokens': 4000, 'context.overviewBudget': 2048 }));
    assert.deepEqual(c, { defaultMode: 'full', autoThresholdTokens: 500, pageTokens: 4000, overviewBudget: 2048 });
  });

  it('falls back to the default for a wrong value instead of throwing', () => {
    const m = memorySettings(getter({ 'memory.maxTokens': '40k', 'memory.reserveRatio': 2, 'memory.recentKeep': 1.5, 'memory.tokenizer': 'p50k', 'memory.lmSummary': 'yes' }));
    assert.deepEqual(m, { options: { maxTokens: 40_000, reserveRatio: 0.15, recentKeep: 6, encoding: 'o200k_base' }, lmSummary: false });
    const c = contextSettings(getter({ 'context.defaultReadMode': 'overview', 'context.pageTokens': 10, 'context.overviewBudget': NaN }));
    assert.equal(c.defaultMode, 'auto');
    assert.equal(c.pageTokens, 8000);
    assert.equal(c.overviewBudget, 1024);
  });

  it('allowWrite: a list of globs; anything else, negations and comments count as none', () => {
    assert.deepEqual(allowWriteSetting(getter({})), []);
    assert.deepEqual(allowWriteSetting(getter({ allowWrite: [' .git/info/exclude ', '.git/hooks/**'] })), ['.git/info/exclude', '.git/hooks/**']);
    assert.deepEqual(allowWriteSetting(getter({ allowWrite: '.git/' })), []);
    assert.deepEqual(allowWriteSetting(getter({ allowWrite: ['', 3, '!.git/config', '# x', '.git/description'] })), ['.git/description']);
  });

  it('SwitchingSummarizer follows the setting on every call', async () => {
    let useModel = false;
    let modelCalls = 0;
    const model: Summarizer = {
      lineFor: () => 'model line',
      condense: async () => {
        modelCalls++;
        return ['condensed by the model'];
      },
    };
    const s = new SwitchingSummarizer(new ExtractiveSummarizer(), () => model, () => useModel);
    const input: CondenseInput = {
      lines: ['a.ts:1-2 read', 'b.ts:3-4 replace'],
      aggregate: { messages: 2, tokens: 20, errors: 0, files: { 'a.ts': 1 }, tools: { 'be-read': 1 } },
      maxTokens: 100,
      count: (t) => t.length,
    };
    const extractive = await s.condense(input);
    assert.ok(Array.isArray(extractive) && extractive.length > 0);
    assert.equal(modelCalls, 0);
    useModel = true;
    assert.deepEqual(await s.condense(input), ['condensed by the model']);
    assert.equal(modelCalls, 1);
  });
});

describe('vscode/tokenWindow seedChart', () => {
  it('rebuilds a restored session: one point per message, ends at usedTokens', () => {
    let now = 1000;
    const memory = new ChatMemory({ maxTokens: 100_000 }, { ...memoryDeps, clock: { now: () => (now += 10) } });
    for (let i = 0; i < 12; i++) memory.add({ kind: i % 2 ? 'tool_result' : 'tool_call', tool: 'be-read', content: `message ${i} `.repeat(5 + i) });
    const restored = ChatMemory.fromJSON(memory.toJSON(), memoryDeps);
    const points = seedChart(restored.visibleMessages(), restored.fingerprints(), restored.stats().usedTokens);
    assert.equal(points.length, 13, 'the empty start, then one point per message');
    assert.equal(points[0]!.used, 0);
    assert.equal(points.at(-1)!.used, restored.stats().usedTokens);
    for (let i = 1; i < points.length; i++) assert.ok(points[i]!.used > points[i - 1]!.used && (i === 1 || points[i]!.t > points[i - 1]!.t));
    assert.ok(points.every((p) => p.evicted === 0));
  });

  it('marks evictions and ends at the live value after slides (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: 400 }), { minLength: 1, maxLength: 60 }), (sizes) => {
        let now = 0;
        const memory = new ChatMemory({ maxTokens: 2000, recentKeep: 2 }, { ...memoryDeps, clock: { now: () => (now += 5) } });
        for (const n of sizes) memory.add({ kind: 'note', priority: 'low', content: 'word '.repeat(n) });
        const stats = memory.stats();
        const points = seedChart(memory.visibleMessages(), memory.fingerprints(), stats.usedTokens);
        assert.equal(points.at(-1)!.used, stats.usedTokens);
        assert.equal(points.reduce((n, p) => n + p.evicted, 0), memory.fingerprints().length);
        assert.ok(points.every((p) => p.used >= 0));
        for (let i = 1; i < points.length; i++) assert.ok(points[i]!.t >= points[i - 1]!.t);
      }),
      { numRuns: 40 },
    );
  });

  it('an empty memory has no points; ChartHistory.seed fills only an empty history', () => {
    assert.deepEqual(seedChart([], [], 0), []);
    assert.deepEqual(seedChart([{ time: 7, tokens: 30 }], [], 30), [{ t: 7, used: 0, evicted: 0 }, { t: 7, used: 30, evicted: 0 }]);
    const h = new ChartHistory();
    h.seed('s', [{ t: 1, used: 5, evicted: 0 }]);
    h.seed('s', [{ t: 2, used: 9, evicted: 0 }]);
    assert.deepEqual(h.get('s'), [{ t: 1, used: 5, evicted: 0 }]);
    assert.equal(h.has('s'), true);
    assert.equal(h.has('other'), false);
  });
});
