import assert from 'node:assert/strict';
import { ChatMemory, DEFAULT_MEMORY_OPTIONS } from '../../../src/core/memory/chatMemory';
import type { Summarizer } from '../../../src/core/memory/summarizer';
import { getTokenizer } from '../../../src/core/memory/node/tokenizer';
import { parseFileReference, referencesFromArgs } from '../../../src/core/memory/references';
import type { MemoryChange, NewMessage } from '../../../src/core/memory/types';
import { memoryDeps } from './memoryDeps';

/** A summarizer that writes nothing: budget arithmetic in these tests is then exact. */
const silent: Summarizer = { lineFor: () => '', condense: () => [] };
const clock = { t: 1_000, now() { return this.t++; } };

/** usable = 1000 − 0 = 1000; target after a slide = 900. */
function small(extra: Partial<ConstructorParameters<typeof ChatMemory>[0]> = {}): ChatMemory {
  return new ChatMemory({ maxTokens: 1000, reserveRatio: 0, recentKeep: 2, ...extra }, { ...memoryDeps, summarizer: silent, clock });
}
const msg = (kind: NewMessage['kind'], tokens: number, extra: Partial<NewMessage> = {}): NewMessage => ({
  kind,
  content: `${kind} ${tokens}`,
  tokens,
  ...extra,
});
const ids = (m: ChatMemory): string[] => m.visibleMessages().map((x) => x.id);

describe('core/memory/ChatMemory', () => {
  it('has the seed defaults (40k, 15% reserve, keep 6, summary every 10k, goal pinned, 90% target)', () => {
    const m = new ChatMemory({}, memoryDeps);
    assert.equal(m.options.maxTokens, 40_000);
    assert.equal(m.options.reserveRatio, 0.15);
    assert.equal(m.options.recentKeep, 6);
    assert.equal(m.options.summaryEvery, 10_000);
    assert.deepEqual(m.options.pinnedGroups, ['goal']);
    assert.equal(m.options.targetFill, 0.9);
    assert.equal(m.usableTokens, 34_000);
    assert.equal(DEFAULT_MEMORY_OPTIONS.encoding, 'o200k_base');
  });

  it('counts each message exactly once, with the tokenizer, and caches the count', () => {
    const tok = getTokenizer();
    let calls = 0;
    const counting = { encoding: tok.encoding, count: (t: string) => (calls++, tok.count(t)), countAsync: tok.countAsync.bind(tok) };
    const m = new ChatMemory({}, { tokenizerFor: () => counting, summarizer: silent });
    const a = m.add({ kind: 'user_query', content: 'hello world' });
    assert.equal(a.tokens, 2);
    assert.equal(calls, 1);
    m.stats();
    m.visibleMessages();
    m.assemble('next');
    assert.equal(calls, 1);
  });

  it('slides before a message enters: the window fits after every add, down to the 90% target', () => {
    const m = small();
    for (let i = 0; i < 9; i++) m.add(msg('assistant', 100)); // 900
    assert.equal(m.stats().usedTokens, 900);
    m.add(msg('assistant', 150)); // 1050 > 1000 → slide to ≤ 900 − 150 = 750 before entering
    const s = m.stats();
    assert.ok(s.usedTokens <= 900, `used ${s.usedTokens}`);
    assert.equal(s.usedTokens, 850);
    assert.equal(s.evictions, 2);
    assert.deepEqual(ids(m).slice(0, 2), ['m3', 'm4']);
    assert.equal(s.overflow, false);
  });

  it('evicts low before medium, and oldest first within a priority', () => {
    const m = small();
    m.add(msg('note', 300, { id: 'old-medium' })); // medium
    m.add(msg('assistant', 300, { id: 'low-a' })); // low
    m.add(msg('assistant', 300, { id: 'low-b' }));
    m.add(msg('note', 50, { id: 'r1' }));
    m.add(msg('note', 50, { id: 'r2' }));
    m.add(msg('note', 200, { id: 'new' })); // 1200 → ≤ 700 before entering: the oldest low goes
    assert.deepEqual(ids(m), ['old-medium', 'low-b', 'r1', 'r2', 'new']);
    m.add(msg('note', 200, { id: 'new2' })); // 1100 → ≤ 700: the other low goes before the older medium
    assert.deepEqual(ids(m), ['old-medium', 'r1', 'r2', 'new', 'new2']);
    m.add(msg('note', 300, { id: 'new3' })); // 1100 → ≤ 600: now the oldest medium goes
    assert.deepEqual(ids(m), ['r1', 'r2', 'new', 'new2', 'new3']);
  });

  it('evicts tool_result before the other kinds of the same priority', () => {
    const m = small();
    m.add(msg('assistant', 300, { id: 'low-prose' })); // older low
    m.add(msg('tool_result', 300, { id: 'low-result' })); // newer low tool_result
    m.add(msg('note', 300, { id: 'med' }));
    m.add(msg('note', 10, { id: 'r1' }));
    m.add(msg('note', 100, { id: 'new' })); // 1010 → target 900−100 = 800: one eviction of 300 suffices
    assert.equal(m.get('low-result'), undefined, 'tool_result goes first');
    assert.ok(m.get('low-prose'));
  });

  it('never evicts high-priority or pinned messages, even when they are the oldest', () => {
    const m = small();
    m.add(msg('system', 200, { id: 'sys' })); // high by default
    m.add(msg('note', 200, { id: 'goal', group: 'goal' })); // pinned via the goal group
    m.add(msg('assistant', 200, { id: 'pinned-low', pinned: true }));
    for (let i = 0; i < 10; i++) m.add(msg('assistant', 150));
    assert.ok(m.get('sys') && m.get('goal') && m.get('pinned-low'));
    assert.equal(m.get('goal')!.pinned, true);
    assert.ok(m.stats().usedTokens <= 1000);
  });

  it('evicts medium messages only beyond the recentKeep newest', () => {
    const m = small({ recentKeep: 3 });
    for (let i = 1; i <= 3; i++) m.add(msg('note', 300, { id: `n${i}` }));
    m.add(msg('note', 300, { id: 'n4' })); // 1200: only n1 (beyond the 2 newest existing + incoming) may go
    assert.deepEqual(ids(m), ['n2', 'n3', 'n4']);
    assert.equal(m.stats().overflow, false);
    m.add(msg('note', 500, { id: 'n5' })); // n2 may go, n3 and n4 stay: 300+300+500 = 1100 > 1000 → overflow
    assert.deepEqual(ids(m), ['n3', 'n4', 'n5']);
    const s = m.stats();
    assert.equal(s.overflow, true);
    assert.ok(s.warnings.some((w) => w.includes('over budget')));
  });

  it('keeps a tool_call and its tool_result together (both leave, or both stay)', () => {
    const m = small();
    m.add(msg('tool_call', 100, { id: 'c1', tool: 'be-read' }));
    m.add(msg('tool_result', 400, { id: 'r1', pairId: 'c1', tool: 'be-read' }));
    m.add(msg('assistant', 300, { id: 'prose' }));
    m.add(msg('note', 50));
    m.add(msg('note', 300)); // 1150 → the low tool_result goes first and takes its call with it
    assert.equal(m.get('r1'), undefined);
    assert.equal(m.get('c1'), undefined);
    assert.ok(m.get('prose'));
    assert.deepEqual(m.fingerprints().map((f) => f.id), ['c1', 'r1']);
  });

  it('keeps a tool_result whose tool_call is pinned (the unit is protected)', () => {
    const m = small();
    m.add(msg('tool_call', 100, { id: 'c1', tool: 'be-read', pinned: true }));
    m.add(msg('tool_result', 400, { id: 'r1', pairId: 'c1' }));
    m.add(msg('assistant', 300, { id: 'prose' }));
    m.add(msg('note', 50));
    m.add(msg('note', 300));
    assert.ok(m.get('r1') && m.get('c1'));
    assert.equal(m.get('prose'), undefined);
    m.unpin('c1'); // now the pair can go when room is needed
    m.add(msg('note', 400));
    assert.equal(m.get('r1'), undefined);
    assert.equal(m.get('c1'), undefined);
  });

  it('does not split a pair whose result is still recent', () => {
    const m = small({ recentKeep: 2 });
    m.add(msg('note', 100, { id: 'older' }));
    m.add(msg('tool_call', 400, { id: 'c1' }));
    m.add(msg('tool_result', 300, { id: 'r1', pairId: 'c1' }));
    m.add(msg('note', 300, { id: 'new' })); // c1 is beyond recent but r1 is recent → skip c1, evict `older`
    assert.ok(m.get('c1') && m.get('r1'));
    assert.equal(m.get('older'), undefined);
  });

  it('warns when pinned/high messages exceed 5% of the usable budget (seed 4.2)', () => {
    const m = small();
    m.add(msg('note', 40, { pinned: true }));
    assert.equal(m.stats().warnings.length, 0);
    m.add(msg('user_query', 20, { priority: 'high' }));
    const w = m.stats().warnings;
    assert.equal(w.length, 1);
    assert.match(w[0]!, /trim the constraints/);
    assert.equal(m.stats().protectedTokens, 60);
  });

  it('leaves fingerprints (kind, tool, files and ranges, status, identifiers) and a summary that counts against the budget', () => {
    const m = new ChatMemory({ maxTokens: 2000, reserveRatio: 0, recentKeep: 1 }, { ...memoryDeps, clock });
    const code = 'export function computeTotals(items) {\n  const runningTotal = items.reduce(sumPrices, 0);\n  return runningTotal;\n}\n'.repeat(8);
    m.add({ kind: 'tool_call', id: 'c', tool: 'be-read', content: 'be-read {"file":"src/totals.ts:5-40"}', references: referencesFromArgs({ file: 'src/totals.ts:5-40' }) });
    m.add({ kind: 'tool_result', id: 'r', tool: 'be-read', pairId: 'c', status: 'error', content: `invalid range\n${code}`, references: [{ path: 'src/totals.ts', start: 5, end: 40 }] });
    for (let i = 0; i < 30; i++) m.add({ kind: 'assistant', content: `step ${i}: ${'thinking about the totals module. '.repeat(10)}` });
    const fp = m.fingerprints().find((f) => f.id === 'r')!;
    assert.equal(fp.kind, 'tool_result');
    assert.equal(fp.tool, 'be-read');
    assert.equal(fp.status, 'error');
    assert.deepEqual(fp.files, [{ path: 'src/totals.ts', start: 5, end: 40 }]);
    assert.ok(fp.identifiers.includes('computeTotals'), fp.identifiers.join(','));
    const summary = m.summary();
    assert.match(summary, /be-read src\/totals\.ts:5-40 → error: invalid range/);
    const s = m.stats();
    assert.equal(s.summaryTokens, getTokenizer().count(summary), 'summary tokens are exact');
    assert.equal(s.usedTokens, s.messageTokens + s.summaryTokens);
    assert.ok(s.usedTokens <= s.usableTokens);
  });

  it('condenses the summary every summaryEvery evicted tokens, keeping aggregates', () => {
    const m = new ChatMemory({ maxTokens: 3000, reserveRatio: 0, recentKeep: 1, summaryEvery: 2000 }, { ...memoryDeps, clock });
    for (let i = 0; i < 60; i++) {
      m.add({ kind: 'tool_call', id: `c${i}`, tool: 'be-read', content: `be-read a${i % 3}.ts:1-9 ${'x '.repeat(60)}`, references: [{ path: `a${i % 3}.ts`, start: 1, end: 9 }] });
      m.add({ kind: 'tool_result', id: `r${i}`, pairId: `c${i}`, tool: 'be-read', content: 'line of output\n'.repeat(40) });
    }
    const summary = m.summary();
    assert.match(summary, /^- earlier: \d+ messages evicted \(\d+ tokens\); files: a\d\.ts ×\d+/);
    assert.match(summary, /tools: be-read ×\d+/);
    assert.ok(m.stats().summaryTokens <= m.summaryCap);
  });

  it('assembles the prompt in the seed order: system (+summary, +external context), history, query', () => {
    const m = small();
    m.add(msg('user_query', 10, { content: 'fix the bug' }));
    m.add(msg('assistant', 10, { content: 'looking' }));
    const p = m.assemble('now add a test', 'repo map: src/a.ts');
    assert.equal(p[0]!.role, 'system');
    assert.match(p[0]!.content, /\[External context\]\nrepo map: src\/a\.ts/);
    assert.deepEqual(p.slice(1).map((x) => x.content), ['fix the bug', 'looking', 'now add a test']);
    assert.equal(p.at(-1)!.role, 'user');
  });

  it('emits deltas: added, evicted ids with fingerprints, updated, budget', () => {
    const m = small();
    const events: MemoryChange[] = [];
    m.onDidChange((e) => events.push(e));
    for (let i = 0; i < 6; i++) m.add(msg('assistant', 200, { id: `a${i}` }));
    const slid = events.find((e) => e.evicted?.length)!;
    assert.deepEqual(slid.added!.map((x) => x.id), ['a5']);
    assert.deepEqual(slid.evicted, ['a0', 'a1']);
    assert.equal(slid.fingerprints!.length, 2);
    m.pin('a5');
    assert.equal(events.at(-1)!.updated![0]!.pinned, true);
    m.setBudget({ maxTokens: 500 });
    const last = events.at(-1)!;
    assert.equal(last.budgetChanged, true);
    assert.ok(last.stats.usedTokens <= 500);
  });

  it('explicit operations: set priority, evict (with the pair), refuse pinned, unknown ids', () => {
    const m = small();
    m.add(msg('tool_call', 10, { id: 'c' }));
    m.add(msg('tool_result', 10, { id: 'r', pairId: 'c' }));
    m.add(msg('note', 10, { id: 'n', pinned: true }));
    assert.equal(m.setPriority('c', 'high').priority, 'high');
    assert.equal(m.stats().byPriority.high, 10);
    assert.deepEqual(m.evict('r').sort(), ['c', 'r']);
    assert.throws(() => m.evict('n'), /pinned; unpin it first/);
    assert.throws(() => m.pin('nope'), /not in the window/);
    assert.throws(() => m.add(msg('note', 1, { id: 'n' })), /already in the window/);
  });

  it('round-trips through JSON (messages, pins, pairs, summary, fingerprints, counters)', () => {
    const m = new ChatMemory({ maxTokens: 1500, reserveRatio: 0.1, recentKeep: 2 }, { ...memoryDeps, clock });
    m.add({ kind: 'note', content: 'never use an ORM', group: 'goal' });
    for (let i = 0; i < 20; i++) {
      m.add({ kind: 'tool_call', id: `c${i}`, tool: 'be-read', content: `read f${i}.ts:1-20`, references: [{ path: `f${i}.ts`, start: 1, end: 20 }] });
      m.add({ kind: 'tool_result', id: `r${i}`, pairId: `c${i}`, content: 'const value = computeThing();\n'.repeat(10) });
    }
    const json = JSON.parse(JSON.stringify(m.toJSON()));
    const back = ChatMemory.fromJSON(json, { ...memoryDeps, clock });
    assert.deepEqual(back.toJSON(), m.toJSON());
    assert.deepEqual(back.stats(), m.stats());
    // and it keeps working the same way
    const next = { kind: 'assistant' as const, content: 'more text '.repeat(200) };
    m.add(next);
    back.add(next);
    assert.deepEqual(ids(back), ids(m));
  });

  it("a restore takes the summary lines' saved counts, and counts the lines of an older state, another encoding or a bad count", () => {
    const m = new ChatMemory({ maxTokens: 1500, reserveRatio: 0.1, recentKeep: 2 }, { ...memoryDeps, clock });
    for (let i = 0; i < 20; i++) {
      m.add({ kind: 'tool_call', id: `c${i}`, tool: 'be-read', content: `read f${i}.ts:1-20`, references: [{ path: `f${i}.ts`, start: 1, end: 20 }] });
      m.add({ kind: 'tool_result', id: `r${i}`, pairId: `c${i}`, content: 'const value = computeThing();\n'.repeat(10) });
    }
    const saved = JSON.parse(JSON.stringify(m.toJSON())) as ReturnType<ChatMemory['toJSON']>;
    assert.ok(saved.summaryLines.length > 2, 'the window evicted into a summary');
    assert.equal(saved.summaryTokens?.length, saved.summaryLines.length);
    // every count the tokenizer is asked for while a state loads
    const counted: string[] = [];
    const counting = {
      tokenizerFor: (encoding: Parameters<typeof memoryDeps.tokenizerFor>[0]) => {
        const t = memoryDeps.tokenizerFor(encoding);
        return new Proxy(t, { get: (o, k) => (k === 'count' ? (text: string) => (counted.push(text), t.count(text)) : Reflect.get(o, k)) });
      },
    };
    const load = (json: typeof saved) => {
      counted.length = 0;
      const back = ChatMemory.fromJSON(json, { ...counting, clock });
      return { back, counted: counted.filter((t) => t.startsWith('- ')).length };
    };
    const plain = load(saved);
    assert.equal(plain.counted, 0);
    assert.equal(plain.back.stats().summaryTokens, m.stats().summaryTokens);
    // saved before the counts were: each line counted, to the same total
    const { summaryTokens: _dropped, ...older } = saved;
    const old = load(older as typeof saved);
    assert.equal(old.counted, saved.summaryLines.length);
    assert.equal(old.back.stats().summaryTokens, m.stats().summaryTokens);
    // counted in another encoding than the memory's: every line counted again (the saved counts left alone)
    counted.length = 0;
    const foreign = { ...saved, options: { ...saved.options, encoding: 'cl100k_base' as const }, summaryTokens: saved.summaryTokens!.map(() => 999) };
    const recounted = ChatMemory.fromJSON(foreign, { ...counting, clock }, { encoding: 'o200k_base' });
    assert.equal(counted.filter((t) => t.startsWith('- ')).length, saved.summaryLines.length);
    assert.equal(recounted.stats().summaryTokens, m.stats().summaryTokens);
    // a count that is no count (negative, a fraction, text), or a list of another length: those lines counted
    const bad = [...saved.summaryTokens!];
    bad[0] = -1;
    bad[1] = 2.5;
    (bad as unknown[])[2] = '7';
    const repaired = load({ ...saved, summaryTokens: bad });
    assert.equal(repaired.counted, 3);
    assert.equal(repaired.back.stats().summaryTokens, m.stats().summaryTokens);
    assert.equal(load({ ...saved, summaryTokens: saved.summaryTokens!.slice(1) }).counted, saved.summaryLines.length);
  });

  it('drops orphan tool links when loading a state (sanitize on load)', () => {
    const m = small();
    m.add(msg('tool_call', 10, { id: 'c' }));
    m.add(msg('tool_result', 10, { id: 'r', pairId: 'c' }));
    const json = m.toJSON();
    json.messages = json.messages.filter((x) => x.id !== 'c');
    const back = ChatMemory.fromJSON(json, { ...memoryDeps, summarizer: silent });
    assert.equal(back.get('r')!.pairId, undefined);
  });

  it('appends in constant time: 100,000 pre-counted messages, cost per append flat', function () {
    this.timeout(60_000);
    const m = new ChatMemory({}, { ...memoryDeps, summarizer: silent });
    const kinds: NewMessage['kind'][] = ['tool_call', 'tool_result', 'assistant', 'note', 'assistant_code', 'user_query'];
    // Median per-append time over a window of appends (medians ignore GC pauses and a loaded machine).
    const time = (from: number, n: number): number => {
      const samples = new Float64Array(n);
      for (let i = from; i < from + n; i++) {
        const t0 = performance.now();
        m.add({ kind: kinds[i % kinds.length]!, content: 'x', tokens: 50 + (i % 400) });
        samples[i - from] = performance.now() - t0;
      }
      return samples.sort()[n >> 1]!;
    };
    time(0, 2_000); // warm-up
    const early = time(2_000, 5_000);
    time(7_000, 88_000);
    const late = time(95_000, 5_000);
    assert.ok(m.size < 1000, `window holds ${m.size} messages`);
    assert.ok(late < early * 3 + 0.005, `per append: ${(early * 1000).toFixed(1)} µs early vs ${(late * 1000).toFixed(1)} µs late`);
  });
});

describe('core/memory/references', () => {
  it('parses the path:N, path:S-E and path:ALL grammar', () => {
    assert.deepEqual(parseFileReference('src/a.ts:5-10'), { path: 'src/a.ts', start: 5, end: 10 });
    assert.deepEqual(parseFileReference('a.go:7'), { path: 'a.go', start: 7, end: 7 });
    assert.deepEqual(parseFileReference('a.go:ALL'), { path: 'a.go', all: true });
    assert.equal(parseFileReference('no range'), undefined);
  });

  it('extracts references from tool arguments (nested, path keys, deduplicated), ignoring look-alikes', () => {
    const refs = referencesFromArgs({ file: 'src/a.ts:5-10', edits: [{ path: 'lib/b.py' }, { file: 'src/a.ts:5-10' }], time: '12:30', note: 'see c.ts:3' });
    assert.deepEqual(refs, [{ path: 'src/a.ts', start: 5, end: 10 }, { path: 'lib/b.py' }]);
  });
});
