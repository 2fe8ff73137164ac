/** The idle gate background work waits on: open while no call is in flight, closed from a call to its result. */
import { strict as assert } from 'node:assert';
import { idleGate } from '../../src/mcp/idleGate';
import { isTokenizerLoaded, loadTokenizer, preloadTokenizer } from '../../src/core/memory/node/tokenizer';

const call = (callId: string) => ({ sessionId: 's', callId, tool: 'be-read', args: {} });
const result = (callId: string) => ({ ...call(callId), result: { content: [] }, isError: false, durationMs: 1 });

describe('mcp/idleGate', () => {
  it('resolves at once when idle, and only after the last call in flight has answered', async () => {
    const gate = idleGate();
    await gate.whenIdle();
    gate.onToolCall(call('a'));
    gate.onToolCall(call('b'));
    let open = false;
    const waiting = gate.whenIdle().then(() => (open = true));
    gate.onToolResult(result('a'));
    await new Promise((r) => setImmediate(r));
    assert.equal(open, false, 'one call still in flight');
    gate.onToolResult(result('b'));
    await waiting;
    assert.equal(open, true);
  });

  it('a background load of the ranks waits for idle; a caller that needs them now is not kept waiting', async function () {
    this.timeout(20_000);
    if (isTokenizerLoaded('cl100k_base')) this.skip(); // loaded by an earlier test of this process
    let released = false;
    const never = new Promise<void>(() => undefined);
    const background = preloadTokenizer(() => never, 'cl100k_base').then(() => (released = true));
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(isTokenizerLoaded('cl100k_base'), false, 'nothing loaded while a call is in flight');
    await loadTokenizer('cl100k_base');
    assert.equal(isTokenizerLoaded('cl100k_base'), true);
    await background;
    assert.equal(released, true);
  });
});
