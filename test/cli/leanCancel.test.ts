/**
 * A cancellation reaches a call the lean start began (src/mcp/leanStart.ts) after it handed the session to the SDK
 * server: the real CLI (dist/cli.js) and the MCP SDK client over stdio. The call is an edit waiting for a lock
 * record another host left on its file; a `resources/list` (which only the SDK server answers) hands the session
 * over while it waits; the client then cancels it. Nothing answers the cancelled call (the SDK server, which never
 * saw it, would have dropped the cancellation and the lean layer answered it once the lock was gone).
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { buildCli, childEnv, cliArgs, tmpWorkspace, type Workspace } from '../mcp/helpers';

describe('cli lean start: a cancellation after the hand-over to the SDK server', function () {
  this.timeout(60000);
  let ws: Workspace;
  before(async function () {
    if (process.platform === 'win32') this.skip();
    await buildCli();
    ws = await tmpWorkspace();
  });
  after(async () => ws?.dispose());

  it('stops a call the lean layer began: no answer is sent for it', async () => {
    await ws.write('a.txt', 'one\ntwo\nthree\n');
    const transport = new StdioClientTransport({ command: process.execPath, args: cliArgs(ws), env: childEnv(ws), cwd: ws.root, stderr: 'pipe' });
    let stderr = '';
    transport.stderr?.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
    const client = new Client({ name: 'lean-cancel', version: '1.0.0' });
    const errors: Error[] = [];
    client.onerror = (e) => errors.push(e);
    await client.connect(transport);
    const responses: JSONRPCMessage[] = [];
    const sent: JSONRPCMessage[] = [];
    const onmessage = transport.onmessage!;
    transport.onmessage = (m) => {
      responses.push(m);
      onmessage(m);
    };
    const send = transport.send.bind(transport);
    transport.send = (m: JSONRPCMessage) => (sent.push(m), send(m));
    try {
      // served by the lean layer: the services are composed from here on
      await client.callTool({ name: 'be-read', arguments: { file: 'a.txt' } });
      // another host's lock record: the edit waits (up to its stale bound) until it is gone
      const lock = path.join(ws.root, '.a.txt.be-lock');
      fs.writeFileSync(lock, JSON.stringify({ pid: 1, start: 0, host: `not-${os.hostname()}.example`, token: 'far', path: ws.file('a.txt'), since: Date.now() }));
      const abort = new AbortController();
      const edit = client.callTool({ name: 'be-replace', arguments: { file: 'a.txt:2', content: 'TWO' } }, undefined, { signal: abort.signal });
      edit.catch(() => undefined);
      const editId = (sent.at(-1) as { id: number }).id;
      await client.listResources(); // the lean layer hands over at this line; the SDK server answers it
      abort.abort('changed my mind');
      await assert.rejects(edit);
      fs.unlinkSync(lock);
      // an edit after it, through the SDK server: it takes the file's lock once the cancelled call let it go
      await client.callTool({ name: 'be-replace', arguments: { file: 'a.txt:3', content: 'THREE' } });
      await new Promise((r) => setTimeout(r, 300));
      assert.ok(sent.some((m) => 'method' in m && m.method === 'notifications/cancelled'), 'the client sent the cancellation');
      const answered = responses.filter((m) => 'id' in m && m.id === editId && !('method' in m));
      assert.deepEqual(answered, [], 'no answer for the cancelled call');
      assert.deepEqual(errors.map((e) => e.message), [], stderr);
    } finally {
      await client.close();
    }
  });
});
