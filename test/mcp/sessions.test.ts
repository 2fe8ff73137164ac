/** Agents sharing a workspace: two MCP sessions (each its own server and services, one history) see each other. */
import * as assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { FileStore } from '../../src/core/files/fileStore';
import { NodeFileStore } from '../../src/core/files/nodeFileStore';
import { createServer } from '../../src/mcp/server';
import { createServices } from '../../src/mcp/services';
import { call, callError, tmpWorkspace, type Workspace } from './helpers';

async function session(ws: Workspace, sessionId: string, clientName: string, files?: FileStore) {
  const services = await createServices({ roots: [ws.root], chipDir: ws.chipDir, historyDir: ws.historyDir, files, context: false });
  const server = createServer(services.deps, { sessionId, reply: 'json' }); // the test reads result fields
  const [a, b] = InMemoryTransport.createLinkedPair();
  await server.connect(a);
  const client = new Client({ name: clientName, version: '1.0.0' });
  await client.connect(b);
  return { client, services, close: async () => { await client.close(); await server.close(); await services.close(); } };
}

describe('mcp: sessions that share a workspace', () => {
  let ws: Workspace;
  const open: { close(): Promise<void> }[] = [];
  beforeEach(async () => (ws = await tmpWorkspace()));
  afterEach(async () => {
    for (const s of open.splice(0)) await s.close();
    await ws.dispose();
  });

  it("a write refused because another session changed the file names that session and its edit", async () => {
    const file = await ws.write('a.txt', 'one\ntwo\nthree\n');
    const alice = await session(ws, 'alice-session', 'agent-alice');
    open.push(alice);
    // Bob's store lets Alice's edit land between Bob's read and Bob's write (as a concurrent server would)
    let cut = true;
    const disk = new NodeFileStore();
    const bobFiles: FileStore = Object.assign(Object.create(disk) as FileStore, {
      writeParts: undefined,
      async write(abs: string, bytes: Uint8Array, opts?: Parameters<FileStore['write']>[2]) {
        if (cut && abs === file) {
          cut = false;
          await call(alice.client, 'be-replace', { file: 'a.txt:3', content: 'THREE' });
        }
        return disk.write(abs, bytes, opts);
      },
    });
    const bob = await session(ws, 'bob-session', 'agent-bob', bobFiles);
    open.push(bob);
    const text = await callError(bob.client, 'be-replace', { file: 'a.txt:1', content: 'ONE' });
    assert.match(text, /was changed by someone else since it was read/);
    assert.match(text, /changed by agent-alice \(session alice-session\): be-replace, be-replace on a\.txt lines 3-3 at .* \(edit [0-9a-f]{6}\)/);
    assert.equal((await ws.read('a.txt')).toString(), 'one\ntwo\nTHREE\n', "Bob's refused edit wrote nothing");
  });

  it('be-trx status names who made each edit and lists the other sessions\' edits on my files; revert undoes one edit', async () => {
    await ws.write('a.txt', 'one\ntwo\nthree\n');
    await ws.write('b.txt', 'x\n');
    const alice = await session(ws, 'alice-session', 'agent-alice');
    const bob = await session(ws, 'bob-session', 'agent-bob');
    open.push(alice, bob);
    const a1 = await call(alice.client, 'be-replace', { file: 'a.txt:1', content: 'ONE' });
    const b1 = await call(bob.client, 'be-replace', { file: 'a.txt:3', content: 'THREE' });
    await call(bob.client, 'be-replace', { file: 'b.txt:1', content: 'X' });
    const st = await call(alice.client, 'be-trx', { action: 'status' });
    assert.equal(st.snapshots.find((s: { id: string }) => s.id === a1.event_id).by, 'agent-alice (session alice-session)');
    assert.deepEqual(st.other_sessions.map((o: { id: string; by: string }) => [o.id, o.by]), [[b1.event_id, 'agent-bob (session bob-session)']]);
    // Alice reverts her own older edit; Bob's newer one on other lines stays
    await call(alice.client, 'be-trx', { action: 'revert', id: a1.event_id });
    assert.equal((await ws.read('a.txt')).toString(), 'one\ntwo\nTHREE\n');
    const refused = await callError(alice.client, 'be-trx', { action: 'revert', id: a1.event_id });
    assert.match(refused, /No edit [0-9a-f]{6} in this workspace's history/);
  });
});

