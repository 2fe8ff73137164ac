import assert from 'node:assert/strict';
import fc from 'fast-check';
import { ChatMemory } from '../../../src/core/memory/chatMemory';
import { getTokenizer } from '../../../src/core/memory/node/tokenizer';
import {
  assemblePrompt,
  CONTEXT_HEADER,
  MESSAGE_OVERHEAD_TOKENS,
  renderPrompt,
  SUMMARY_HEADER,
  type AssembledPrompt,
  type PromptInput,
} from '../../../src/core/memory/promptAssembly';
import { memoryDeps } from './memoryDeps';

const tok = getTokenizer('o200k_base');
const count = (t: string) => tok.count(t);
const clock = { t: 1, now() { return this.t++; } };

function memory(): ChatMemory {
  return new ChatMemory({ maxTokens: 100_000, reserveRatio: 0, recentKeep: 2 }, { ...memoryDeps, clock });
}

function input(extra: Partial<PromptInput> = {}): PromptInput {
  return { systemPrompt: 'You are a coding agent.', toolTokens: 120, maxInputTokens: 2000, reserveTokens: 300, count, ...extra };
}

function addPair(m: ChatMemory, file: string, result: string, status: 'ok' | 'error' = 'ok'): [string, string] {
  const call = m.add({ kind: 'tool_call', tool: 'be-read', content: `be-read ${JSON.stringify({ file })}`, references: [{ path: file }] });
  const res = m.add({ kind: 'tool_result', tool: 'be-read', status, content: result, references: [{ path: file }], pairId: call.id });
  return [call.id, res.id];
}

/** The total as a provider would count it, computed from the messages independently of the assembler. */
function recount(p: AssembledPrompt, toolTokens: number): number {
  let total = toolTokens;
  for (const msg of p.messages) {
    total += MESSAGE_OVERHEAD_TOKENS;
    for (const part of msg.parts) {
      if (part.type === 'text') {
        // the system message is counted section by section (system, summary, context): same text, same cut points
        total += msg.section === 'system' ? 0 : count(part.text);
      } else if (part.type === 'tool_call') total += count(`${part.name} ${JSON.stringify(part.input)}`);
      else total += count(part.text);
    }
  }
  return total + p.tokens.system + p.tokens.summary + p.tokens.context;
}

/** Every tool call part is followed at once by the result with the same callId. */
function assertPairsAdjacent(p: AssembledPrompt): void {
  p.messages.forEach((msg, i) => {
    for (const part of msg.parts) {
      if (part.type === 'tool_call') {
        const next = p.messages[i + 1]?.parts[0];
        assert.ok(next && next.type === 'tool_result' && next.callId === part.callId, `call ${part.callId} not followed by its result`);
      }
      if (part.type === 'tool_result') {
        const prev = p.messages[i - 1]?.parts[0];
        assert.ok(prev && prev.type === 'tool_call' && prev.callId === part.callId, `result ${part.callId} without its call before it`);
      }
    }
  });
}

describe('core/memory/promptAssembly', () => {
  it('orders system → summary → external context → window → the new query, with exact token counts', () => {
    const m = memory();
    m.add({ kind: 'note', content: 'Do not modify migration files.', pinned: true, priority: 'high' });
    for (let i = 0; i < 12; i++) addPair(m, `src/f${i}.ts`, `export function f${i}() {\n  return ${i};\n}\n`.repeat(8));
    m.add({ kind: 'user_query', content: 'Now rename f11 to g11.' });
    const p = assemblePrompt(m, input({ externalContext: 'Pinned files: src/f1.ts', maxInputTokens: 1500, reserveTokens: 200 }));
    const system = p.messages[0]!;
    assert.equal(system.section, 'system');
    const text = (system.parts[0] as { text: string }).text;
    const iSys = text.indexOf('You are a coding agent.');
    const iSum = text.indexOf(SUMMARY_HEADER);
    const iCtx = text.indexOf(CONTEXT_HEADER);
    assert.ok(iSys === 0 && iSum > iSys && iCtx > iSum, 'system, then summary, then context');
    assert.match(text, /\[m\d+,m\d+\] be-read src\/f0\.ts → ok/, 'summary lines name the evicted ids');
    // the pinned constraint survives the slide; the query is the last message
    const window = p.messages.slice(1);
    assert.equal((window[0]!.parts[0] as { text: string }).text, 'Do not modify migration files.');
    assert.equal((window.at(-1)!.parts[0] as { text: string }).text, 'Now rename f11 to g11.');
    assertPairsAdjacent(p);
    // exact: the assembler's total equals an independent recount, and fits the limit (max − reserve)
    assert.equal(p.tokens.total, recount(p, 120));
    assert.equal(p.limit, 1300);
    assert.ok(p.tokens.total <= p.limit, `${p.tokens.total} > ${p.limit}`);
    assert.ok(m.stats().evictions > 0, 'the window slid');
    assert.equal(m.options.reserveRatio, 0, 'the reserve is taken by the assembler, not twice');
  });

  it('gives the window exactly what the fixed parts leave (budget = limit − system − context − tools − framing)', () => {
    const m = memory();
    m.add({ kind: 'user_query', content: 'hello' });
    const inp = input({ externalContext: 'ctx', maxInputTokens: 3000, reserveTokens: 500, toolTokens: 400 });
    assemblePrompt(m, inp);
    const fixed = count(inp.systemPrompt) + count(`\n\n${CONTEXT_HEADER}\nctx`) + 400 + (1 + 2) * MESSAGE_OVERHEAD_TOKENS + count(`\n\n${SUMMARY_HEADER}\n`);
    assert.equal(m.options.maxTokens, 2500 - fixed);
  });

  it('keeps the reserve free: a larger reserve slides more out, never over max − reserve', () => {
    const totals: number[] = [];
    for (const reserve of [100, 600, 1100]) {
      const m = memory();
      for (let i = 0; i < 20; i++) addPair(m, `src/r${i}.ts`, 'const value = compute(input, options);\n'.repeat(10));
      const p = assemblePrompt(m, input({ maxInputTokens: 2000, reserveTokens: reserve }));
      assert.ok(p.tokens.total <= 2000 - reserve);
      totals.push(p.tokens.total);
    }
    assert.ok(totals[0]! > totals[1]! && totals[1]! > totals[2]!, totals.join(' > '));
  });

  it('on overflow (recent messages alone too large) evicts the oldest unpinned units explicitly, keeping pins and the query', () => {
    const m = new ChatMemory({ maxTokens: 100_000, reserveRatio: 0, recentKeep: 50 }, { ...memoryDeps, clock });
    const pin = m.add({ kind: 'note', content: 'Keep the public API stable.', pinned: true });
    const pairs = Array.from({ length: 6 }, (_, i) => addPair(m, `src/o${i}.ts`, 'line of a large result\n'.repeat(60)));
    const q = m.add({ kind: 'user_query', content: 'What changed?' });
    const p = assemblePrompt(m, input({ maxInputTokens: 1200, reserveTokens: 100, keep: [q.id] }));
    assert.ok(p.tokens.total <= 1100);
    assert.ok(p.forcedOut.length >= 2 && p.forcedOut.length % 2 === 0, 'whole pairs leave');
    assert.deepEqual(p.forcedOut.slice(0, 2), pairs[0], 'oldest first');
    assert.ok(m.get(pin.id) && m.get(q.id));
    assertPairsAdjacent(p);
  });

  it("clips this turn's tool result that alone is too large (head and tail, recall hint) instead of losing it", () => {
    const m = memory();
    addPair(m, 'src/old.ts', 'old result line\n'.repeat(40));
    const q = m.add({ kind: 'user_query', content: 'read the big file', priority: 'high' });
    const [, res] = addPair(m, 'src/big.ts', Array.from({ length: 600 }, (_, i) => `const v${i} = ${i};`).join('\n'));
    const p = assemblePrompt(m, input({ maxInputTokens: 1500, reserveTokens: 200, keep: [q.id] }));
    assert.ok(p.tokens.total <= 1300, String(p.tokens.total));
    assert.deepEqual(p.clipped, [res]);
    const shown = p.messages.map((x) => x.parts[0]!).find((x) => x.type === 'tool_result' && x.callId !== undefined && x.text.includes('const v0 = 0;'));
    assert.ok(shown && shown.type === 'tool_result');
    assert.match(shown.text, new RegExp(`characters clipped to fit the model; be-memory \\{"action":"recall","id":"${res}"\\}`));
    assert.match(shown.text, /const v599 = 599;$/, 'the tail is kept');
    assert.ok(m.get(res), 'the whole result stays in the window (recallable once it leaves)');
    assert.equal(p.tokens.total, recount(p, 120));
  });

  it('refuses to send when pins and the query alone exceed the limit, naming them', () => {
    const m = memory();
    m.add({ kind: 'note', content: 'constraint '.repeat(900), pinned: true });
    const q = m.add({ kind: 'user_query', content: 'go' });
    assert.throws(() => assemblePrompt(m, input({ maxInputTokens: 800, reserveTokens: 100, keep: [q.id] })), (e: Error) => /m1 \d+t.*do not fit.*Nothing was sent/s.test(e.message));
  });

  it('renders a lone half of a pair as text (no dangling tool call id)', () => {
    const m = memory();
    m.add({ kind: 'tool_call', tool: 'be-read', content: 'be-read {"file":"a.ts"}' });
    const p = renderPrompt(m, input());
    assert.equal(p.messages[1]!.parts[0]!.type, 'text');
  });

  it('property: any session and budget → under max − reserve, pairs adjacent, pins present, query last', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ kind: fc.constantFrom('pair', 'note', 'query', 'answer'), size: fc.integer({ min: 1, max: 120 }) }), { minLength: 1, maxLength: 40 }),
        fc.integer({ min: 1500, max: 6000 }),
        fc.integer({ min: 0, max: 400 }),
        (steps, maxInput, reserve) => {
          const m = new ChatMemory({ maxTokens: 100_000, reserveRatio: 0, recentKeep: 4 }, { ...memoryDeps, clock });
          const pin = m.add({ kind: 'note', content: 'Pinned: never edit generated files.', pinned: true });
          steps.forEach((s, i) => {
            const text = `word${i} `.repeat(s.size);
            if (s.kind === 'pair') addPair(m, `src/p${i}.ts`, text, i % 5 === 0 ? 'error' : 'ok');
            else if (s.kind === 'note') m.add({ kind: 'note', content: text });
            else if (s.kind === 'answer') m.add({ kind: 'assistant', content: text });
            else m.add({ kind: 'user_query', content: text });
            // every request: assemble against the model's limit
            assemblePrompt(m, input({ maxInputTokens: maxInput, reserveTokens: reserve }));
          });
          const q = m.add({ kind: 'user_query', content: 'final question', priority: 'high' });
          const p = assemblePrompt(m, input({ maxInputTokens: maxInput, reserveTokens: reserve, keep: [q.id] }));
          assert.ok(p.tokens.total <= maxInput - reserve);
          assert.equal(p.tokens.total, recount(p, 120));
          assertPairsAdjacent(p);
          assert.ok(p.messages.some((x) => x.ids.includes(pin.id)));
          assert.deepEqual(p.messages.at(-1)!.ids, [q.id]);
        },
      ),
      { numRuns: 40 },
    );
  });
});
