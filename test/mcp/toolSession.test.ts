/**
 * The in-process tools of a chat turn (src/mcp/toolSession.ts): the agents' call pipeline over real services in a
 * temp workspace, each call/result pair in the session's memory as soon as the call resolves (no observer queue to
 * wait on, no MCP server or transport).
 */
import assert from 'node:assert/strict';
import { MemoryRegistry } from '../../src/core/memory/node/registry';
import { createServices, type Services } from '../../src/mcp/services';
import { openToolSession, TURN_CLIENT } from '../../src/mcp/toolSession';
import { toolTable } from '../../src/mcp/tools/index';
import { memoryDeps } from '../core/memory/memoryDeps';
import { tmpWorkspace, type Workspace } from './helpers';

describe('mcp/toolSession (a chat turn calls the pipeline in process)', () => {
  let ws: Workspace;
  let services: Services;
  let registry: MemoryRegistry;
  beforeEach(async () => {
    ws = await tmpWorkspace();
    await ws.write('a.ts', 'one\ntwo\nthree\n');
    registry = new MemoryRegistry({ deps: memoryDeps });
    services = await createServices({ roots: [ws.root], chipDir: ws.chipDir, historyDir: ws.historyDir, memory: registry });
  });
  afterEach(async () => {
    await services.close();
    await registry.dispose();
    await ws.dispose();
  });

  it('lists the whole tool table with JSON schemas, as tools/list does', async () => {
    const tools = openToolSession({ deps: services.deps, memory: (id) => registry.get(id), sessionId: 'chat-1' });
    const specs = await tools.list();
    assert.deepEqual(specs.map((s) => s.name), toolTable.map((t) => t.name));
    const read = specs.find((s) => s.name === 'be-read')!;
    assert.equal(read.inputSchema.type, 'object');
    assert.ok(read.description.length > 20);
  });

  it('the call and its result are in the memory when call() resolves, paired, with the text the model got', async () => {
    const tools = openToolSession({ deps: services.deps, memory: (id) => registry.get(id), sessionId: 'chat-1' });
    const r = await tools.call('be-read', { file: `${ws.file('a.ts')}:1-2` });
    assert.equal(r.isError, false);
    assert.match(r.text, /two/);
    const msgs = registry.get('chat-1').visibleMessages();
    assert.deepEqual(msgs.map((m) => `${m.kind}:${m.tool}`), ['tool_call:be-read', 'tool_result:be-read']);
    assert.equal(msgs[0]!.pairId, msgs[1]!.id);
    assert.equal(msgs[1]!.content, r.text, 'the memory holds what the model was given');
    assert.equal(msgs[1]!.status, 'ok');
  });

  it('a failed edit is recorded as an error, its arguments saved as a chip, the edit author is the participant', async () => {
    const tools = openToolSession({ deps: services.deps, memory: (id) => registry.get(id), sessionId: 'chat-2' });
    const bad = await tools.call('be-replace', { file: `${ws.file('a.ts')}:90-91`, content: 'x\n' });
    assert.equal(bad.isError, true);
    assert.match(bad.text, /chip:\/\//);
    const last = registry.get('chat-2').visibleMessages().at(-1)!;
    assert.equal(last.status, 'error');
    const ok = await tools.call('be-insert', { file: `${ws.file('a.ts')}:0`, content: 'zero\n' });
    assert.equal(ok.isError, false, ok.text);
    const status = await tools.call('be-trx', { action: 'status' });
    assert.match(status.text, new RegExp(TURN_CLIENT));
  });

  it('an unknown tool is an error in the memory too (the model must see what it asked for)', async () => {
    const tools = openToolSession({ deps: services.deps, memory: (id) => registry.get(id), sessionId: 'chat-3' });
    const r = await tools.call('be-nope', {});
    assert.equal(r.isError, true);
    const msgs = registry.get('chat-3').visibleMessages();
    assert.deepEqual(msgs.map((m) => `${m.kind}:${m.status ?? ''}`), ['tool_call:', 'tool_result:error']);
  });

  it('asks for the memory at each call: a session the registry dropped is recreated, nothing thrown', async () => {
    const tools = openToolSession({ deps: services.deps, memory: (id) => registry.get(id), sessionId: 'chat-4' });
    await tools.call('be-read', { file: `${ws.file('a.ts')}:1` });
    await registry.delete('chat-4');
    await tools.call('be-read', { file: `${ws.file('a.ts')}:2` });
    assert.equal(registry.get('chat-4').visibleMessages().length, 2);
  });
});
