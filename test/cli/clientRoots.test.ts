/**
 * The project folders from the client's MCP roots (src/cli/clientRoots.ts): which roots count, and the gate that
 * holds the workspace requests until the roots are composed (or answers them with what to do). The whole path, from
 * an unpacked Agent Plugin with a real SDK client that advertises roots, is in test/packaging/plugins.test.ts.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { GatedTransport, NO_CLIENT_ROOTS, rootsFromClient } from '../../src/cli/clientRoots';
import { awaitsClientRoots } from '../../src/cli/roots';

describe('cli/clientRoots', () => {
  let base = '';
  before(() => (base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'bet-croots-')))));
  after(() => fs.rmSync(base, { recursive: true, force: true }));

  it('awaits the client only in the plugin folder with no --root', () => {
    const plugin = path.join(base, 'plugin');
    fs.mkdirSync(path.join(plugin, 'server'), { recursive: true });
    assert.equal(awaitsClientRoots({ roots: [] }, plugin, plugin), true);
    assert.equal(awaitsClientRoots({ roots: [] }, path.join(plugin, 'server'), plugin), true);
    assert.equal(awaitsClientRoots({ roots: ['x'] }, plugin, plugin), false, '--root wins');
    assert.equal(awaitsClientRoots({ roots: [] }, base, plugin), false, 'started in the project');
    assert.equal(awaitsClientRoots({ roots: [] }, plugin, undefined), false, 'no Agent Plugins host');
  });

  it('takes the file: roots as real directories, skips other schemes, refuses none or a missing folder', () => {
    const a = path.join(base, 'a b');
    fs.mkdirSync(a);
    fs.symlinkSync(a, path.join(base, 'link'));
    assert.deepEqual(rootsFromClient([{ uri: 'https://example.com/repo' }, { uri: pathToFileURL(path.join(base, 'link')).href }]), [a]);
    assert.throws(() => rootsFromClient([{ uri: 'https://example.com/repo' }]), /hold no local folder \(https:\/\/example\.com\/repo\); Add "--root"/);
    assert.throws(() => rootsFromClient([]), /hold no local folder \(none\)/);
    assert.throws(() => rootsFromClient([{ uri: pathToFileURL(path.join(base, 'gone')).href }]), /does not exist/);
    assert.throws(() => rootsFromClient([{ uri: 'file:///' }]), /file system root/);
    assert.deepEqual(rootsFromClient([{ uri: 'file:///' }], true), ['/']);
  });

  /** A gate over one end of an in-memory pair; what the server side receives and what the client side gets back. */
  async function gated() {
    const [clientEnd, serverEnd] = InMemoryTransport.createLinkedPair();
    const gate = new GatedTransport(serverEnd);
    const toServer: JSONRPCMessage[] = [];
    const toClient: JSONRPCMessage[] = [];
    gate.onmessage = (m) => toServer.push(m);
    clientEnd.onmessage = (m) => toClient.push(m);
    await gate.start();
    await clientEnd.start();
    const tick = () => new Promise((r) => setImmediate(r));
    return { gate, clientEnd, toServer, toClient, tick };
  }
  const call = (id: number, method: string): JSONRPCMessage => ({ jsonrpc: '2.0', id, method, params: {} });

  it('holds tools/call and resources/read until open(), in order; everything else passes at once', async () => {
    const { gate, clientEnd, toServer, tick } = await gated();
    await clientEnd.send(call(1, 'tools/call'));
    await clientEnd.send(call(2, 'tools/list'));
    await clientEnd.send(call(3, 'resources/read'));
    await clientEnd.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    await clientEnd.send({ jsonrpc: '2.0', id: 'r1', result: { roots: [] } }); // the client's answer to roots/list
    await tick();
    assert.deepEqual(toServer.map((m) => ('method' in m ? m.method : 'response')), ['tools/list', 'notifications/initialized', 'response']);
    gate.open();
    assert.deepEqual(toServer.slice(3).map((m) => ('id' in m ? m.id : undefined)), [1, 3]);
    // the roots change: held again until the new ones are composed, once calls 1 and 3 (old roots) are answered
    let drained = false;
    const held = gate.hold().then(() => (drained = true));
    await clientEnd.send(call(4, 'tools/call'));
    await tick();
    assert.equal(toServer.length, 5);
    await gate.send({ jsonrpc: '2.0', id: 1, result: { content: [] } });
    await tick();
    assert.equal(drained, false, 'call 3 is still running on the old roots');
    await gate.send({ jsonrpc: '2.0', id: 3, result: { contents: [] } });
    await held;
    assert.equal(drained, true);
    gate.open();
    assert.equal(toServer.length, 6);
    assert.equal(await Promise.race([gate.hold().then(() => 'drained'), new Promise((r) => setTimeout(() => r('waiting'), 50))]), 'waiting', 'call 4 runs');
    await gate.send({ jsonrpc: '2.0', id: 4, result: { content: [] } });
  });

  it('a held request the client cancels is dropped: it never runs, its cancellation still passes', async () => {
    const { gate, clientEnd, toServer, tick } = await gated();
    await clientEnd.send(call(1, 'tools/call'));
    await clientEnd.send(call(2, 'tools/call'));
    await clientEnd.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1, reason: 'no' } });
    await tick();
    gate.open();
    assert.deepEqual(toServer.map((m) => ('id' in m ? m.id : 'method' in m ? m.method : undefined)), ['notifications/cancelled', 2]);
  });

  it('fail(): a held tool call gets an error result with the message, a resource read a JSON-RPC error; later ones too', async () => {
    const { gate, clientEnd, toServer, toClient, tick } = await gated();
    await clientEnd.send(call(1, 'tools/call'));
    await clientEnd.send(call(2, 'resources/read'));
    await tick();
    gate.fail(NO_CLIENT_ROOTS);
    await clientEnd.send(call(3, 'tools/call'));
    await tick();
    assert.equal(toServer.length, 0, 'the server never sees them');
    const byId = new Map(toClient.map((m) => ['id' in m ? m.id : undefined, m] as const));
    for (const id of [1, 3]) {
      const r = byId.get(id) as unknown as { result: { isError: boolean; content: { text: string }[] } };
      assert.equal(r.result.isError, true);
      assert.match(r.result.content[0].text, /offers no MCP roots\. Add "--root"/);
    }
    const e = byId.get(2) as unknown as { error: { code: number; message: string } };
    assert.equal(e.error.code, -32603);
    assert.match(e.error.message, /offers no MCP roots/);
  });
});
