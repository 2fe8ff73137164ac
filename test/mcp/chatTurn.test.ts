/**
 * The chat-turn loop end to end below VS Code: a scripted model, the call pipeline in process over a copy of the
 * fixture repository (real edits, chips on failure), each call recorded in the memory, the recall archive on disk.
 */
import assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { runChatTurn } from '../../src/core/memory/chatTurn';
import { getTokenizer } from '../../src/core/memory/node/tokenizer';
import { runScriptedSession, PINNED, textOf, type SessionRun } from '../../bench/memorySession';
import { openToolSession } from '../../src/mcp/toolSession';
import { createServices } from '../../src/mcp/services';
import { scriptedModel } from '../../bench/scriptedAgent';

describe('core/memory chat turns over the tool pipeline (scripted model, 30 turns)', function () {
  this.timeout(120_000);
  let run: SessionRun;
  before(async () => {
    run = await runScriptedSession({ turns: 30, maxInputTokens: 4000, reserveTokens: 600 });
  });
  after(async () => run?.dispose());

  it('never sends a prompt over maxInputTokens − reserve, and the window really slid', () => {
    assert.equal(run.overflowInterrupts, 0);
    assert.ok(run.sent.length >= 55, `${run.sent.length} requests`);
    for (const [i, t] of run.promptTokens.entries()) assert.ok(t <= run.limit, `request ${i}: ${t} > ${run.limit}`);
    assert.ok(Math.max(...run.naiveTokens) > 3 * run.limit, 'the full history would have been far over');
    assert.ok(run.registry.get(run.sessionId).stats().evictions > 20);
  });

  it('puts the pinned constraint in every prompt, and tool call/result pairs adjacent', () => {
    for (const [i, p] of run.sent.entries()) {
      assert.ok(p.messages.some((m) => textOf(m).includes(PINNED)), `request ${i} lacks the pin`);
      p.messages.forEach((m, k) => {
        const part = m.parts[0]!;
        if (part.type === 'tool_call') {
          const next = p.messages[k + 1]?.parts[0];
          assert.ok(next?.type === 'tool_result' && next.callId === part.callId, `request ${i}: call ${part.callId} split from its result`);
        }
      });
    }
  });

  it('edits landed in the files, failures were recorded as errors (with a chip)', async () => {
    const landed = run.edits.filter((e) => e.ok);
    assert.ok(landed.length >= 5 && run.edits.some((e) => !e.ok));
    for (const e of landed) {
      const text = await fs.readFile(path.join(run.root, e.file), 'utf8');
      assert.match(text, new RegExp(`// reviewed in turn ${e.turn}\\n`));
    }
  });

  it('recalls an evicted tool result by id (the model calls be-memory recall with the id its summary names)', async () => {
    const memory = run.registry.get(run.sessionId);
    const fp = memory.fingerprints().reverse().find((f) => f.kind === 'tool_result' && f.tool === 'be-read')!;
    assert.ok(fp, 'a read result was evicted');
    assert.match(memory.summary(), new RegExp(`\\b${fp.id}\\b`), 'its id is named in the summary (the newest lines survive condensing)');
    const original = await run.recall.recall(run.sessionId, fp.id);
    assert.ok(original && original.content.length > 200);
    const tok = getTokenizer();
    const model = scriptedModel(4000, (t) => tok.count(t));
    const session = await openToolSessionFor(run);
    try {
      await runChatTurn(
        { sessionId: run.sessionId, memory, model, tools: session, turns: run.turns, recall: (id) => run.recall.recall(run.sessionId, id), count: (t) => tok.count(t), now: () => Date.now() },
        { prompt: `recall ${fp.id}`, systemPrompt: 'You are a coding agent.', reserveTokens: 600, sink: { text: () => undefined, progress: () => undefined } },
      );
    } finally {
      await session.close();
    }
    const second = model.sent[1]!;
    const result = second.messages.map((m) => m.parts[0]!).find((p) => p.type === 'tool_result');
    assert.ok(result && result.type === 'tool_result' && !result.isError, 'the recall answered');
    // (the answer may be shown clipped to this small model: head and tail, not valid JSON any more)
    assert.match(result.text, new RegExp(`^\\{"status":"ok","id":"${fp.id}","kind":"tool_result","tool":"be-read","result":"ok","pair_id":"m\\d+","in_window":false`));
    assert.ok(result.text.includes(JSON.stringify(original.content.slice(0, 120)).slice(1, -1)), 'the original text came back');
  });

  it('recalls by itself when the user names a file whose read slid out', async () => {
    const withRecall = run.turns.list(run.sessionId).filter((t) => t.recalled.length > 0);
    assert.ok(withRecall.length > 0, 'an "ask … <file>" turn brought an original back');
    const turn = withRecall[0]!;
    const prompt = run.sent.find((p) => textOf(p.messages[0]!).includes(`[Recalled ${turn.recalled[0]}:`));
    assert.ok(prompt, 'the recalled original is in the external context of that turn');
  });

  it('honours cancellation: a turn cancelled while the model streams sends nothing more and records no answer', async () => {
    const memory = run.registry.get(run.sessionId);
    const tok = getTokenizer();
    const abort = new AbortController();
    const sent: number[] = [];
    const model = {
      name: 'scripted/slow',
      maxInputTokens: 4000,
      async *send(messages: unknown[]) {
        sent.push(messages.length);
        yield { type: 'text' as const, text: 'partial ' };
        abort.abort(); // the user pressed Stop while the answer streamed
        yield { type: 'tool_call' as const, callId: 'c1', name: 'be-read', input: { file: 'src/main.ts:1-3' } };
      },
    };
    const session = await openToolSessionFor(run);
    const before = memory.visibleMessages().length;
    const streamed: string[] = [];
    try {
      const r = await runChatTurn(
        { sessionId: run.sessionId, memory, model, tools: session, turns: run.turns, count: (t) => tok.count(t), now: () => Date.now() },
        { prompt: 'read src/main.ts', systemPrompt: 'sys', reserveTokens: 600, signal: abort.signal, sink: { text: (t) => streamed.push(t), progress: (p) => streamed.push(p) } },
      );
      assert.equal(r.cancelled, true);
    } finally {
      await session.close();
    }
    assert.deepEqual(sent.length, 1, 'no second request');
    assert.deepEqual(streamed, ['partial '], 'the text streamed as it came; the tool was not called');
    const added = memory.visibleMessages().slice(before);
    assert.ok(!added.some((m) => m.kind === 'tool_call' && m.references.some((r) => r.path === 'src/main.ts')), 'no tool call after the cancel');
  });

  it('the turn log says what entered and what slid out, and why', () => {
    const list = run.turns.list(run.sessionId);
    assert.ok(list.length >= 30);
    const slid = list.flatMap((t) => t.slidOut);
    assert.ok(slid.length > 0);
    assert.ok(slid.every((s) => s.reason.length > 10));
    assert.ok(slid.some((s) => /window full: slid out before m\d+/.test(s.reason)));
    assert.ok(list.every((t) => t.requests.every((r) => r.tokens.total <= r.limit)));
  });
});

/** A second tool session on the run's own services (same registry and session: its calls are recorded there). */
async function openToolSessionFor(run: SessionRun) {
  const services = await createServices({ roots: [run.root], chipDir: path.join(run.root, '..', 'chips2'), historyDir: path.join(run.root, '..', 'history2'), memory: run.registry, recall: run.recall });
  const session = openToolSession({ deps: services.deps, memory: (id) => run.registry.get(id), sessionId: run.sessionId });
  return { ...session, close: async () => (await session.close(), await services.close()) };
}
