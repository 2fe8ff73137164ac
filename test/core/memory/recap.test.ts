/** The be-memory window recap is bounded by a token budget however many messages are pinned. */
import assert from 'node:assert/strict';
import { ChatMemory } from '../../../src/core/memory/chatMemory';
import { buildWindowRecap, DEFAULT_RECAP_TOKENS, listPins } from '../../../src/core/memory/recap';
import { getTokenizer } from '../../../src/core/memory/node/tokenizer';
import { memoryDeps } from './memoryDeps';

const tokens = (value: unknown) => getTokenizer('o200k_base').count(JSON.stringify(value));

function memoryWithPins(n: number): ChatMemory {
  const m = new ChatMemory({ maxTokens: 10_000_000 }, memoryDeps);
  m.add({ kind: 'user_query', content: 'Goal: port the parser to the new AST; keep the public API.', pinned: true, group: 'goal' });
  for (let i = 1; i < n; i++) {
    m.add({ kind: 'note', content: `constraint ${i}: never touch generated file gen/${i}.ts; ${'detail '.repeat(20)}`, pinned: i % 2 === 0, priority: 'high' });
  }
  m.add({ kind: 'note', content: 'an unpinned low note', priority: 'low' });
  return m;
}

describe('core/memory/recap', () => {
  it('with 4,000 pins the recap stays within its token budget, leads with the oldest pin, and says what it left out', async () => {
    const m = memoryWithPins(4000);
    const recap = await buildWindowRecap(m, { recent: 8 });
    const size = tokens(recap);
    assert.ok(size <= DEFAULT_RECAP_TOKENS, `${size} tokens`);
    assert.ok(JSON.stringify(recap).length < 25_000, `${JSON.stringify(recap).length} chars`);
    assert.ok(recap.pinned.length > 5);
    assert.match(recap.pinned[0]!.text, /^Goal: port the parser/);
    // explicit pins first, then high priority
    const pinnedIds = new Set(m.visibleMessages().filter((x) => x.pinned).map((x) => x.id));
    const firstHighOnly = recap.pinned.findIndex((p) => !pinnedIds.has(p.id));
    if (firstHighOnly !== -1) assert.ok(recap.pinned.slice(firstHighOnly).every((p) => !pinnedIds.has(p.id)));
    assert.equal(recap.pinned_omitted!.count, 4000 - recap.pinned.length);
    assert.equal(recap.pinned_omitted!.first_ids.length, 10);
    assert.deepEqual(recap.pinned_omitted!.list_with, { action: 'pins', offset: recap.pinned.length });
    // a larger budget shows more
    const wide = await buildWindowRecap(m, { recent: 8, budgetTokens: 20_000 });
    assert.ok(wide.pinned.length > recap.pinned.length);
    assert.ok(tokens(wide) <= 20_000);
  });

  it('few pins: all of them, no omission note', async () => {
    const m = memoryWithPins(3);
    const recap = await buildWindowRecap(m, { recent: 8 });
    assert.equal(recap.pinned.length, 3);
    assert.equal(recap.pinned_omitted, undefined);
    assert.equal(recap.recent.length, 4);
  });

  it('pins pages through every pinned message exactly once, each page within the budget', async () => {
    const m = memoryWithPins(600);
    const seen: string[] = [];
    let offset: number | undefined = 0;
    let pages = 0;
    while (offset !== undefined && pages < 1000) {
      const page = await listPins(m, { offset, budgetTokens: 1000 });
      assert.ok(tokens(page) <= 1000 + 50, `page of ${tokens(page)} tokens`);
      seen.push(...page.pinned.map((p) => p.id));
      offset = page.next_offset;
      pages++;
    }
    assert.equal(seen.length, 600);
    assert.equal(new Set(seen).size, 600);
    assert.ok(pages > 1);
  });
});
