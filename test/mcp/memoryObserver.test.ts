import assert from 'node:assert/strict';
import { MemoryRegistry } from '../../src/core/memory/node/registry';
import { excerptArgs, memoryObserver } from '../../src/mcp/memoryObserver';
import { memoryDeps } from '../core/memory/memoryDeps';

describe('mcp/memoryObserver (off the call path)', () => {
  it('keeps a head+tail excerpt of large string arguments with their size', () => {
    const big = 'x'.repeat(5_000_000);
    const out = excerptArgs({ file: 'a.ts:3', content: big, nested: [{ content: big }] }) as Record<string, unknown>;
    assert.equal(out.file, 'a.ts:3');
    assert.ok((out.content as string).length < 2_200);
    assert.match(out.content as string, /5000000 characters in all/);
    assert.ok(JSON.stringify(out).length < 5_000);
  });

  it('a be-memory call waits for the calls recorded before it, even while records wait for an idle moment', async () => {
    const registry = new MemoryRegistry({ deps: memoryDeps });
    // records that would wait for ever (a background load that never ends, a server never idle)
    const obs = memoryObserver(registry, { beforeRecord: () => new Promise<void>(() => undefined) });
    obs.onToolCall({ sessionId: 's', callId: 'c1', tool: 'be-read', args: { file: 'b.ts:1' } });
    obs.onToolResult({ sessionId: 's', callId: 'c1', tool: 'be-read', args: { file: 'b.ts:1' }, result: { content: [{ type: 'text', text: 'ok' }] }, isError: false, durationMs: 1 });
    assert.equal(obs.beforeCall?.({ sessionId: 's', tool: 'be-read' }), undefined, 'another tool waits for nothing');
    await new Promise((r) => setTimeout(r, 20)); // the record is now waiting for its idle moment
    await obs.beforeCall?.({ sessionId: 's', tool: 'be-memory' });
    assert.deepEqual(registry.get('s').visibleMessages().map((m) => `${m.kind}:${m.tool}`), ['tool_call:be-read', 'tool_result:be-read']);
  });

  it('records nothing during the call, then the call and its result in order once settled', async () => {
    const registry = new MemoryRegistry({ deps: memoryDeps });
    const obs = memoryObserver(registry);
    const big = 'line\n'.repeat(2_000_000); // 10 MB
    obs.onToolCall({ sessionId: 's', callId: 'c1', tool: 'be-replace', args: { file: 'a.ts:1', content: big } });
    obs.onToolResult({ sessionId: 's', callId: 'c1', tool: 'be-replace', args: { file: 'a.ts:1', content: big }, result: { content: [{ type: 'text', text: big }] }, isError: false, durationMs: 1 });
    obs.onToolCall({ sessionId: 's', callId: 'c2', tool: 'be-read', args: { file: 'b.ts:1' } });
    obs.onToolResult({ sessionId: 's', callId: 'c2', tool: 'be-read', args: { file: 'b.ts:1' }, result: { content: [{ type: 'text', text: 'ok' }] }, isError: false, durationMs: 1 });
    assert.equal(registry.has('s'), false, 'nothing is recorded synchronously');
    await obs.settled();
    const msgs = registry.get('s').visibleMessages();
    assert.deepEqual(msgs.map((m) => `${m.kind}:${m.tool}`), ['tool_call:be-replace', 'tool_result:be-replace', 'tool_call:be-read', 'tool_result:be-read']);
    assert.ok(msgs.every((m) => m.content.length < 10_000), 'no message holds the 10 MB text');
    assert.equal(msgs[0]!.pairId, msgs[1]!.id);
    assert.deepEqual(msgs[0]!.references, [{ path: 'a.ts', start: 1, end: 1 }]);
  });

  it('records a call at the time it ended, not when its record was added (the first waits for the tokenizer)', async () => {
    const registry = new MemoryRegistry({ deps: memoryDeps });
    let clock = 1_000_000;
    // the record waits for a background load: 400 ms pass on the clock before it is added
    const obs = memoryObserver(registry, { now: () => clock, beforeRecord: () => new Promise<void>((r) => setTimeout(() => r(), 10)) });
    obs.onToolCall({ sessionId: 's', callId: 'c1', tool: 'be-read', args: { file: 'b.ts:1' } });
    obs.onToolResult({ sessionId: 's', callId: 'c1', tool: 'be-read', args: { file: 'b.ts:1' }, result: { content: [{ type: 'text', text: 'ok' }] }, isError: false, durationMs: 25 });
    clock += 400;
    await obs.settled();
    const [call, result] = registry.get('s').visibleMessages();
    assert.equal(call!.time, 1_000_000, 'the call when it ended: after any snapshot it took, which the recap matches by');
    assert.ok(result!.time > call!.time && result!.time < 1_000_001, `the result in the same millisecond, after its call: ${result!.time}`);
  });
});
