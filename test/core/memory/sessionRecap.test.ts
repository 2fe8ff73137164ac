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
    assert.match(text, /- \[m\d+\] be-replace src\/f1\.ts:30 → landed\n- \[m\d+\] be-replace src\/f0\.ts:29 → landed\n- \[m\d+\] be-replace src\/f6\.ts:28 → REFUSED, nothing written: conflict: stale viewed_code_id/);
  });
});

describe('core/memory/sessionRecap: only what happened', () => {
  const edit = (m: ChatMemory, tool: string, file: string, ok: boolean) => {
    const c = m.add({ kind: 'tool_call', tool, content: `${tool} {"file":"${file}"}`, references: [{ path: file }] });
    m.add({ kind: 'tool_result', tool, status: ok ? 'ok' : 'error', pairId: c.id, content: ok ? 'ok' : `refused: ${file} is not writable` });
  };

  for (const evicted of [false, true]) {
    it(`refused edits (binary, .git, outside the roots) are refusals, never edits${evicted ? ' (after they left the window)' : ''}`, () => {
      const m = new ChatMemory({ maxTokens: evicted ? 400 : 100_000, reserveRatio: 0, recentKeep: 1 }, memoryDeps);
      edit(m, 'be-replace', 'icon.png', false);
      edit(m, 'be-write', '.git/hooks/pre-commit', false);
      edit(m, 'be-write', '/etc/outside-the-roots.conf', false);
      edit(m, 'be-replace', 'src/landed.ts', true);
      for (let i = 0; i < (evicted ? 20 : 0); i++) m.add({ kind: 'note', content: `filler ${i} ${'z'.repeat(300)}` });
      if (evicted) assert.ok(m.fingerprints().length >= 8, 'the edits left the window');
      const text = renderSessionRecap(m, { sessionId: 's', lastActivity: 0, budgetTokens: 3000, count });
      for (const p of ['icon\\.png', '\\.git\\/hooks\\/pre-commit', '\\/etc\\/outside-the-roots\\.conf']) {
        assert.match(text, new RegExp(`be-\\w+ ${p} → REFUSED, nothing written`));
        assert.doesNotMatch(text, new RegExp(`${p}[^\\n]*(→ landed|edited)`));
      }
      assert.match(text, /Files changed by this session \(edits that landed\):\nsrc\/landed\.ts \(×1\)\n/);
      assert.match(text, /Edits refused \(nothing was written to these paths\):\n.*icon\.png \(×1\)/);
      assert.doesNotMatch(text, /edited ×/);
    });
  }

  for (const evicted of [false, true]) {
    it(`a preview is a preview, never an edit; be-trx names its action, a status call is none${evicted ? ' (after it left the window: from its fingerprints)' : ''}`, () => {
      const m = new ChatMemory({ maxTokens: evicted ? 400 : 100_000, reserveRatio: 0, recentKeep: 1 }, memoryDeps);
      const c = m.add({ kind: 'tool_call', tool: 'be-replace', content: 'be-replace {"file":"src/p.ts:1","content":"x","preview":true}', references: [{ path: 'src/p.ts', start: 1, end: 1 }] });
      m.add({ kind: 'tool_result', tool: 'be-replace', status: 'ok', pairId: c.id, content: 'src/p.ts: lines 1-1 (file now has 2 lines) (preview: not written)\n@@ -1 +1 @@' });
      edit(m, 'be-replace', 'src/landed.ts', true);
      for (const action of ['status', 'rollback']) {
        const t = m.add({ kind: 'tool_call', tool: 'be-trx', content: `be-trx {"action":"${action}"}` });
        m.add({ kind: 'tool_result', tool: 'be-trx', status: 'ok', pairId: t.id, content: '{"status":"ok"}' });
      }
      for (let i = 0; i < (evicted ? 20 : 0); i++) m.add({ kind: 'note', content: `filler ${i} ${'z'.repeat(300)}` });
      if (evicted) assert.ok(m.fingerprints().some((f) => f.id === c.id), 'the preview left the window');
      const text = renderSessionRecap(m, { sessionId: 's', lastActivity: 0, budgetTokens: 3000, count });
      assert.match(text, /be-replace src\/p\.ts:1 → preview only, nothing written/);
      // be-trx says what it did; a status call only reads and is no edit call
      assert.match(text, /\] be-trx rollback → done\n/);
      assert.doesNotMatch(text, /be-trx( status)? → /);
      assert.match(text, /Files changed by this session \(edits that landed\):\nsrc\/landed\.ts \(×1\)\n/);
    });
  }

  it("another session's edits are listed apart, by author; this session's client is named", () => {
    const m = new ChatMemory({ maxTokens: 100_000, reserveRatio: 0 }, memoryDeps);
    edit(m, 'be-replace', 'src/mine.ts', true);
    const text = renderSessionRecap(m, {
      sessionId: 'me',
      lastActivity: 0,
      count,
      client: 'claude-code',
      otherEdits: [
        { file: 'src/theirs.ts', tool: 'be-write', session: 'other-1', client: 'codex', time: 1_000 },
        { file: 'src/theirs2.ts', tool: 'be-replace', session: 'other-2', time: 2_000 },
      ],
    });
    assert.match(text, /Edit calls by claude-code, this session \(newest first\):\n- \[m1\] be-replace src\/mine\.ts → landed/);
    assert.match(text, /Files changed by claude-code, this session \(edits that landed\):\nsrc\/mine\.ts \(×1\)\n/);
    assert.match(
      text,
      /Edits other sessions landed in this workspace \(files newest first, by author\):\n- src\/theirs2\.ts — by session other-2, newest at 1970-01-01T00:00:02Z\n- src\/theirs\.ts — by codex \(session other-1\), newest at 1970/,
    );
    assert.doesNotMatch(text, /Files changed by[^\n]*\n[^\n]*theirs/);
    // grouped by author: a file once with its count, newest first, a few files to a line
    const again = renderSessionRecap(m, {
      sessionId: 'me',
      lastActivity: 0,
      count,
      otherEdits: [
        ...[1, 2, 3].map((i) => ({ file: 'src/theirs.ts', tool: 'be-insert', session: 'other-1', time: i * 1_000 })),
        ...[4, 5, 6, 7, 8, 9, 10].map((i) => ({ file: `src/f${i}.ts`, tool: 'be-write', session: 'other-1', time: i * 1_000 })),
      ],
    });
    assert.match(again, /\n- src\/f10\.ts, src\/f9\.ts, src\/f8\.ts, src\/f7\.ts, src\/f6\.ts, src\/f5\.ts — by session other-1, newest at 1970-01-01T00:00:10Z\n- src\/f4\.ts, src\/theirs\.ts \(×3\) — by session other-1, older\n/);
    assert.equal(again.match(/src\/theirs\.ts/g)?.length, 1);
  });
});

describe('core/memory/sessionRecap: rolled back is not landed', () => {
  const call = (m: ChatMemory, tool: string, args: string, refs: string[], reply: string, status: 'ok' | 'error' = 'ok') => {
    const c = m.add({ kind: 'tool_call', tool, content: `${tool} ${args}`, references: refs.map((p) => ({ path: p })) });
    m.add({ kind: 'tool_result', tool, status, pairId: c.id, content: reply });
    return c;
  };
  const changed = (text: string) => /Files changed by this session \(edits that landed\):\n(.*)\n/.exec(text)?.[1];

  it("this session's rollback: the edit it undid is rolled back, its file not changed; the rollback says what it put back", () => {
    const m = new ChatMemory({ maxTokens: 100_000, reserveRatio: 0 }, memoryDeps);
    call(m, 'be-replace', '{"file":"src/a.ts:1"}', ['src/a.ts'], 'src/a.ts: lines 1-1');
    call(m, 'be-replace', '{"file":"src/b.ts:1"}', ['src/b.ts'], 'src/b.ts: lines 1-1');
    call(m, 'be-insert', '{"file":"src/b.ts:3"}', ['src/b.ts'], 'src/b.ts: lines 4-4');
    call(m, 'be-trx', '{"action":"rollback","step":2}', [], '{"status":"ok","rolled_back":2,"restored":[{"id":"e2","file":"/ws/src/b.ts","action":"restored"},{"id":"e1","file":"/ws/src/a.ts","action":"restored"}]}');
    const text = renderSessionRecap(m, { sessionId: 's', lastActivity: 0, count });
    assert.match(text, /- \[m7\] be-trx rollback → undid 2 edits: src\/b\.ts, src\/a\.ts\n- \[m5\] be-insert src\/b\.ts → rolled back \(landed, undone since\)\n- \[m3\] be-replace src\/b\.ts → landed\n- \[m1\] be-replace src\/a\.ts → rolled back/);
    assert.equal(changed(text), 'src/b.ts (×1)');
    assert.match(text, /Edits rolled back \(no edit of this session is left in these\):\nsrc\/a\.ts \(×1\)\n/);
    assert.doesNotMatch(text, /Files read, not edited/);
    call(m, 'be-trx', '{"action":"rollback","step":1}', [], '{"status":"ok","rolled_back":0,"restored":[]}');
    assert.match(renderSessionRecap(m, { sessionId: 's', lastActivity: 0, count }), /- \[m9\] be-trx rollback → nothing undone\n/);
  });

  it("another session's rollback, known from the landed-edit log, undoes this session's edit (by file and time); an edit of theirs undone is not ours", () => {
    const m = new ChatMemory({ maxTokens: 100_000, reserveRatio: 0 }, memoryDeps);
    const first = call(m, 'be-replace', '{"file":"src/a.ts:1"}', ['src/a.ts'], 'src/a.ts: lines 1-1');
    const second = call(m, 'be-replace', '{"file":"src/a.ts:2"}', ['src/a.ts'], 'src/a.ts: lines 2-2');
    call(m, 'be-replace', '{"file":"src/c.ts:1"}', ['src/c.ts'], 'src/c.ts: lines 1-1');
    const text = renderSessionRecap(m, {
      sessionId: 's',
      lastActivity: 0,
      count,
      // the first edit of a.ts is still in the history: the undone one is the second (recorded in the same ms or not)
      kept: [{ id: 'e1', file: 'src/a.ts', time: first.time }],
      undone: [
        { id: 'e2', file: 'src/a.ts', tool: 'be-replace', session: 's', time: second.time, undoneAt: second.time + 5 },
        { id: 'x9', file: 'src/c.ts', tool: 'be-write', session: 'other', time: second.time, undoneAt: second.time + 6 },
      ],
    });
    assert.match(text, new RegExp(`- \\[${second.id}\\] be-replace src/a\\.ts → rolled back \\(landed, undone since\\)\\n`));
    assert.match(text, new RegExp(`- \\[${first.id}\\] be-replace src/a\\.ts → landed\\n`));
    assert.match(text, /be-replace src\/c\.ts → landed/);
    assert.equal(changed(text), 'src/a.ts (×1), src/c.ts (×1)');
  });

  it('property: the files changed are the edits no rollback undid, however edits and rollbacks interleave', () => {
    const files = ['src/a.ts', 'src/b.ts', 'src/c.ts'];
    const step = fc.oneof(fc.record({ edit: fc.integer({ min: 0, max: 2 }) }), fc.record({ rollback: fc.integer({ min: 1, max: 3 }) }));
    fc.assert(
      fc.property(fc.array(step, { maxLength: 30 }), (steps) => {
        const m = new ChatMemory({ maxTokens: 1_000_000, reserveRatio: 0 }, memoryDeps);
        // the model: the history's stack of snapshots (a rollback undoes the newest first), and each call's fate
        const stack: { id: string; file: string; call: string }[] = [];
        const undone = new Set<string>();
        let n = 0;
        for (const st of steps) {
          if ('edit' in st) {
            const file = files[st.edit]!;
            const c = call(m, 'be-insert', `{"file":"${file}:1"}`, [file], `${file}: lines 2-2`);
            stack.push({ id: `e${++n}`, file, call: c.id });
          } else {
            const back = stack.splice(Math.max(0, stack.length - st.rollback)).reverse();
            for (const b of back) undone.add(b.call);
            const restored = back.map((b) => ({ id: b.id, file: `/ws/${b.file}`, action: 'restored' }));
            call(m, 'be-trx', `{"action":"rollback","step":${st.rollback}}`, [], JSON.stringify({ status: 'ok', rolled_back: back.length, restored }));
          }
        }
        const text = renderSessionRecap(m, { sessionId: 's', lastActivity: 0, budgetTokens: 100_000, count });
        const want = new Map<string, number>();
        for (const e of stack) want.set(e.file, (want.get(e.file) ?? 0) + 1);
        const got = new Map((changed(text)?.split(', ') ?? []).map((x) => /^(\S+) \(×(\d+)\)$/.exec(x)!).map((x) => [x[1]!, Number(x[2])]));
        assert.deepEqual(got, want, text);
        for (const [, id, outcome] of text.matchAll(/^- \[(m\d+)\] be-insert \S+ → (.*)$/gm)) {
          assert.equal(outcome, undone.has(id!) ? 'rolled back (landed, undone since)' : 'landed', `${id}\n${text}`);
        }
      }),
      { numRuns: 60 },
    );
  });

  it('a preview-only write of a new file is neither read nor edited', () => {
    const m = new ChatMemory({ maxTokens: 100_000, reserveRatio: 0 }, memoryDeps);
    call(m, 'be-write', '{"file":"src/new.ts","content":"x","preview":true}', ['src/new.ts'], 'src/new.ts: created, 1 lines, 1 bytes (preview: not written)');
    call(m, 'be-read', '{"file":"src/read.ts:ALL"}', ['src/read.ts'], '1 export const r = 1;');
    const text = renderSessionRecap(m, { sessionId: 's', lastActivity: 0, count });
    assert.match(text, /be-write src\/new\.ts → preview only, nothing written/);
    assert.match(text, /Files read, not edited:\nsrc\/read\.ts\n/);
    assert.doesNotMatch(text, /Files (read|changed)[^\n]*\n[^\n]*new\.ts/);
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
