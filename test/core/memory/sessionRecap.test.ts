import assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import fc from 'fast-check';
import { ChatMemory } from '../../../src/core/memory/chatMemory';
import { matchFingerprints } from '../../../src/core/memory/autoRecall';
import { editEvents, renderSessionRecap } from '../../../src/core/memory/sessionRecap';
import { getTokenizer } from '../../../src/core/memory/node/tokenizer';
import { TurnLog, turnsFileName } from '../../../src/core/memory/node/turnLog';
import { memoryDeps } from './memoryDeps';

const tok = getTokenizer();
const count = (t: string) => tok.count(t);

function session(pins: number, edits: number): ChatMemory {
  const m = new ChatMemory({ maxTokens: 3000, reserveRatio: 0, recentKeep: 4 }, memoryDeps);
  for (let i = 0; i < pins; i++) m.add({ kind: 'note', content: `Constraint ${i}: ${'keep the public API stable and the money in cents '.repeat(3)}`, pinned: true, priority: 'high' });
  for (let i = 0; i < edits; i++) {
    const c = m.add({ kind: 'tool_call', tool: 'be-replace', content: `be-replace {"file":"src/f${i % 7}.ts:${i + 1}"}`, references: [{ path: `src/f${i % 7}.ts`, start: i + 1, end: i + 1 }] });
    m.add({ kind: 'tool_result', tool: 'be-replace', status: i % 4 === 3 ? 'error' : 'ok', pairId: c.id, content: i % 4 === 3 ? 'conflict: stale viewed_code_id' : 'x'.repeat(400) });
  }
  return m;
}

describe('core/memory/sessionRecap (the recap a host hook prints)', () => {
  it('property: never over its budget, however many pins and edits', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 400 }), fc.integer({ min: 0, max: 60 }), fc.integer({ min: 200, max: 3000 }), (pins, edits, budget) => {
        const text = renderSessionRecap(session(pins, edits), { sessionId: 's', lastActivity: 0, budgetTokens: budget, count });
        assert.ok(count(text) <= budget, `${count(text)} > ${budget} (pins ${pins}, edits ${edits})`);
      }),
      { numRuns: 25 },
    );
  });

  it('4,000 pins: the recap stays within 2,000 tokens and says how many it left out', () => {
    const m = new ChatMemory({ maxTokens: 2_000_000, reserveRatio: 0 }, memoryDeps);
    for (let i = 0; i < 4000; i++) m.add({ kind: 'note', content: `Pinned rule ${i}: never touch generated code in module ${i}.`, pinned: true });
    const text = renderSessionRecap(m, { sessionId: 's', lastActivity: 0, count });
    assert.ok(count(text) <= 2000);
    assert.match(text, /\(\d{4} more pinned: be-memory \{"action":"pins","offset":\d+\}\)/);
  });

  it('lists edits newest first with failures marked, from the window and the evicted fingerprints', () => {
    const m = session(1, 30);
    const events = editEvents(m);
    assert.equal(events.length, 30, 'evicted (fingerprints) and visible edits, once each');
    const text = renderSessionRecap(m, { sessionId: 's', lastActivity: 0, budgetTokens: 3000, count });
    assert.match(text, /- \[m\d+\] be-replace src\/f1\.ts:30 → ok\n- \[m\d+\] be-replace src\/f0\.ts:29 → ok\n- \[m\d+\] be-replace src\/f6\.ts:28 → FAILED: conflict: stale viewed_code_id/);
  });
});

describe('core/memory/autoRecall', () => {
  it('matches fingerprints by id, file and identifier named in the query; results first', () => {
    const m = new ChatMemory({ maxTokens: 300, reserveRatio: 0, recentKeep: 0 }, memoryDeps);
    const c = m.add({ kind: 'tool_call', tool: 'be-read', content: 'be-read {"file":"src/pricing/tax.ts:ALL"}', references: [{ path: 'src/pricing/tax.ts', all: true }] });
    m.add({ kind: 'tool_result', tool: 'be-read', pairId: c.id, content: `export function computeVat(amount: number) {\n${'  return amount;\n'.repeat(40)}}` , references: [{ path: 'src/pricing/tax.ts', all: true }] });
    for (let i = 0; i < 10; i++) m.add({ kind: 'note', content: `filler ${i} ${'y'.repeat(200)}` });
    assert.ok(m.fingerprints().length >= 2);
    assert.equal(matchFingerprints('how does tax.ts compute it?', m.fingerprints())[0]?.fingerprint.id, 'm2');
    assert.equal(matchFingerprints('where is computeVat', m.fingerprints())[0]?.fingerprint.id, 'm2');
    assert.equal(matchFingerprints('show me m1 again', m.fingerprints())[0]?.fingerprint.id, 'm1');
    assert.deepEqual(matchFingerprints('unrelated question about the weather', m.fingerprints()), []);
  });
});

describe('core/memory/TurnLog persistence', () => {
  it('saves each finished turn (0600) and a new log opens with them', async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'be-turns-'));
    try {
      const log = await TurnLog.open(dir);
      const m = new ChatMemory({ maxTokens: 300, reserveRatio: 0, recentKeep: 0 }, memoryDeps);
      for (let t = 0; t < 3; t++) {
        const r = log.begin('chat-1', m, 'x/y', `q${t}`, t);
        m.add({ kind: 'user_query', content: `q${t} ${'z'.repeat(400)}` });
        r.finish();
      }
      await log.flush();
      const file = path.join(dir, turnsFileName('chat-1'));
      assert.equal((await fs.stat(file)).mode & 0o777, 0o600);
      const again = await TurnLog.open(dir);
      const turns = again.list('chat-1');
      assert.deepEqual(turns.map((t) => t.turn), [1, 2, 3]);
      assert.ok(turns[2]!.slidOut.length > 0 && /window full/.test(turns[2]!.slidOut[0]!.reason));
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  });
});
