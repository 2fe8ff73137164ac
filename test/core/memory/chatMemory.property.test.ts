import assert from 'node:assert/strict';
import fc from 'fast-check';
import { ChatMemory } from '../../../src/core/memory/chatMemory';
import { getTokenizer } from '../../../src/core/memory/node/tokenizer';
import { MESSAGE_KINDS, PRIORITIES, type MemoryMessage, type MessageKind, type Priority } from '../../../src/core/memory/types';
import { memoryDeps } from './memoryDeps';

type Op =
  | { op: 'add'; kind: MessageKind; priority: Priority | undefined; pinned: boolean; tokens: number; word: string }
  | { op: 'call'; tokens: number; file: number }
  | { op: 'result'; tokens: number; which: number; error: boolean }
  | { op: 'pin' | 'unpin' | 'evict'; which: number }
  | { op: 'priority'; which: number; priority: Priority }
  | { op: 'budget'; maxTokens: number };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ op: fc.constant('add' as const), kind: fc.constantFrom(...MESSAGE_KINDS), priority: fc.option(fc.constantFrom(...PRIORITIES), { nil: undefined }), pinned: fc.boolean().map((b) => b && Math.random() < 0.15), tokens: fc.integer({ min: 0, max: 900 }), word: fc.constantFrom('alpha', 'fixBug', 'read_file', 'retry later') }) },
  { weight: 3, arbitrary: fc.record({ op: fc.constant('call' as const), tokens: fc.integer({ min: 1, max: 200 }), file: fc.integer({ min: 0, max: 5 }) }) },
  { weight: 3, arbitrary: fc.record({ op: fc.constant('result' as const), tokens: fc.integer({ min: 0, max: 1500 }), which: fc.nat(), error: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constantFrom('pin' as const, 'unpin' as const, 'evict' as const), which: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('priority' as const), which: fc.nat(), priority: fc.constantFrom(...PRIORITIES) }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('budget' as const), maxTokens: fc.integer({ min: 800, max: 6000 }) }) },
);

describe('core/memory/ChatMemory properties', () => {
  const tokenizer = getTokenizer();

  it('for random streams: budget or overflow, pairs intact, pinned/high/recent survive, totals add up, JSON round trip', function () {
    this.timeout(120_000);
    fc.assert(
      fc.property(
        fc.array(opArb, { minLength: 1, maxLength: 120 }),
        fc.integer({ min: 1000, max: 5000 }),
        fc.integer({ min: 0, max: 6 }),
        (ops, maxTokens, recentKeep) => {
          let t = 0;
          const m = new ChatMemory({ maxTokens, reserveRatio: 0.15, recentKeep, summaryEvery: 1500 }, { ...memoryDeps, clock: { now: () => ++t } });
          const added: string[] = [];
          const explicitlyEvicted = new Set<string>();
          const openCalls: string[] = [];
          const pairs: [string, string][] = [];
          let n = 0;
          const pick = (which: number): MemoryMessage | undefined => {
            const visible = m.visibleMessages();
            return visible.length ? visible[which % visible.length] : undefined;
          };
          for (const op of ops) {
            const before = new Set(m.visibleMessages().map((x) => x.id));
            const pinnedBefore = m.visibleMessages().filter((x) => x.pinned).map((x) => x.id);
            let unpinned: string | undefined;
            let entered: MemoryMessage | undefined;
            switch (op.op) {
              case 'add':
                entered = m.add({ kind: op.kind, priority: op.priority, pinned: op.pinned, content: `${op.word} ${n++}`, tokens: op.tokens });
                break;
              case 'call': {
                entered = m.add({ kind: 'tool_call', tool: 'be-read', content: `be-read f${op.file}.ts:1-9`, tokens: op.tokens, references: [{ path: `f${op.file}.ts`, start: 1, end: 9 }] });
                openCalls.push(entered.id);
                break;
              }
              case 'result': {
                const call = openCalls.length ? openCalls.splice(op.which % openCalls.length, 1)[0] : undefined;
                const callVisible = call !== undefined && m.get(call) !== undefined;
                entered = m.add({ kind: 'tool_result', tool: 'be-read', content: `out ${n++}`, tokens: op.tokens, status: op.error ? 'error' : 'ok', ...(callVisible ? { pairId: call } : {}) });
                if (callVisible) pairs.push([call!, entered.id]);
                break;
              }
              case 'pin':
              case 'unpin': {
                const target = pick(op.which);
                if (target && op.op === 'pin') m.pin(target.id);
                if (target && op.op === 'unpin') {
                  unpinned = target.id;
                  m.unpin(target.id);
                }
                break;
              }
              case 'evict': {
                const target = pick(op.which);
                const partner = target?.pairId ? m.get(target.pairId) : undefined;
                if (target && !target.pinned && !partner?.pinned) for (const id of m.evict(target.id)) explicitlyEvicted.add(id);
                break;
              }
              case 'priority': {
                const target = pick(op.which);
                if (target) m.setPriority(target.id, op.priority);
                break;
              }
              case 'budget':
                m.setBudget({ maxTokens: op.maxTokens });
                break;
            }
            if (entered) added.push(entered.id);
            const visible = m.visibleMessages();
            const visibleIds = new Set(visible.map((x) => x.id));
            const s = m.stats();

            // totals equal the sum of the parts
            const sum = (xs: MemoryMessage[]): number => xs.reduce((a, x) => a + x.tokens, 0);
            assert.equal(s.messageTokens, sum(visible));
            for (const p of PRIORITIES) assert.equal(s.byPriority[p], sum(visible.filter((x) => x.priority === p)));
            for (const k of MESSAGE_KINDS) assert.equal(s.byKind[k], sum(visible.filter((x) => x.kind === k)));
            assert.equal(s.summaryTokens, tokenizer.count(m.summary()));
            assert.equal(s.usedTokens, s.messageTokens + s.summaryTokens);
            assert.equal(s.messages, visible.length);

            // newest recentKeep (not explicitly evicted) survive an add
            if (entered) {
              const recent = recentKeep > 0 ? added.filter((id) => !explicitlyEvicted.has(id)).slice(-recentKeep) : [];
              // (a message evicted earlier does not come back into the recent set after an explicit evict)
              for (const id of recent) if (before.has(id) || id === entered.id) assert.ok(visibleIds.has(id), `recent ${id} was evicted`);
            }
            // pinned and high-priority messages that were visible are still visible (no automatic eviction)
            for (const id of before) {
              const msg = m.get(id);
              if (!msg && !explicitlyEvicted.has(id)) {
                // it left automatically: it must have been evictable
                const fp = m.fingerprints().find((f) => f.id === id);
                assert.ok(fp, `evicted ${id} has a fingerprint`);
                assert.notEqual(fp!.priority, 'high', `high-priority ${id} was evicted`);
              }
            }
            // pinned messages survive every operation (explicit evict refuses them; only an unpin frees one)
            for (const id of pinnedBefore) if (id !== unpinned) assert.ok(visibleIds.has(id), `pinned ${id} left the window`);
            // no tool pair split
            for (const [c, r] of pairs) assert.equal(visibleIds.has(c), visibleIds.has(r), `pair ${c}/${r} split`);
            for (const x of visible) if (x.pairId) assert.equal(m.get(x.pairId)?.pairId, x.id);
            // budget invariant, or overflow with only unevictable messages
            if (!s.overflow) {
              assert.ok(s.usedTokens <= s.usableTokens, `${s.usedTokens} > ${s.usableTokens}`);
            } else {
              // the message that just entered is kept even when it alone exceeds the budget (then: overflow)
              const newest = new Set(visible.slice(-Math.max(recentKeep, 1)).map((x) => x.id));
              const keep = (x: MemoryMessage): boolean => x.pinned || x.priority === 'high' || newest.has(x.id);
              for (const x of visible) {
                const partner = x.pairId ? m.get(x.pairId) : undefined;
                assert.ok(keep(x) || (partner && keep(partner)), `overflow with an evictable message visible: ${x.id} (${x.priority}, ${x.kind})`);
              }
            }
          }
          // pinned messages that were pinned never left: checked through fingerprints above (never high);
          const back = ChatMemory.fromJSON(JSON.parse(JSON.stringify(m.toJSON())), memoryDeps);
          assert.deepEqual(back.toJSON(), m.toJSON());
        },
      ),
      { numRuns: Number(process.env.MEMORY_PROPERTY_RUNS ?? 300) },
    );
  });

  it('message times follow the order of adding, within a millisecond too and after a JSON round trip; never before the time given', () => {
    fc.assert(
      fc.property(
        // the clock's readings (it may stand still or step back) and an optional earlier time given with each add
        fc.array(fc.record({ clock: fc.integer({ min: 0, max: 5 }), given: fc.option(fc.integer({ min: 0, max: 5 }), { nil: undefined }) }), { minLength: 1, maxLength: 40 }),
        fc.integer({ min: 1, max: 39 }),
        (adds, cut) => {
          let now = 0;
          const clock = { now: () => now };
          let memory = new ChatMemory({ maxTokens: 100_000 }, { ...memoryDeps, clock });
          for (const [i, a] of adds.entries()) {
            if (i === cut) memory = ChatMemory.fromJSON(memory.toJSON(), { ...memoryDeps, clock });
            now = 1_000 + a.clock;
            const before = memory.visibleMessages().at(-1)?.time ?? -Infinity;
            const m = memory.add({ kind: 'note', content: `n${i}`, tokens: 1, ...(a.given !== undefined ? { time: now - a.given } : {}) });
            assert.ok(m.time > before, `message ${i} at ${m.time}, after ${before}`);
            const wanted = a.given !== undefined ? now - a.given : now;
            assert.ok(m.time >= wanted && (m.time === wanted || m.time === before + 0.001), `message ${i}: ${m.time}, asked ${wanted}, before ${before}`);
          }
        },
      ),
    );
  });
});
