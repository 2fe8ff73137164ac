/**
 * Agents that share a workspace, as users run them: two stdio servers (dist/cli.js, separate processes) with real MCP
 * SDK clients of different names, the same workspace and the same history and chip directories.
 *  - an edit refused because the other agent changed the file says which session changed it and what changed;
 *  - `be-trx status` lists the other session's edits of the files this session edited;
 *  - a be-apply batch over more files than the history keeps (31 > 30) is one step: the other process's
 *    `be-trx rollback` step 1 undoes all of it.
 */
import { strict as assert } from 'node:assert';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { buildCli, call, callError, childEnv, cliArgs, tmpWorkspace, type Workspace } from './helpers';

interface Agent {
  client: Client;
  close(): Promise<void>;
}

async function agent(ws: Workspace, name: string): Promise<Agent> {
  const transport = new StdioClientTransport({ command: process.execPath, args: cliArgs(ws, ['--no-memory']), env: childEnv(ws), cwd: ws.root, stderr: 'pipe' });
  const client = new Client({ name, version: '1.0.0' });
  await client.connect(transport);
  return { client, close: () => client.close() };
}

const lines = (n: number, tag: string) => Array.from({ length: n }, (_, i) => `${tag} line ${i + 1}\n`).join('');

describe('mcp: two agents in one workspace (two stdio server processes)', function () {
  this.timeout(120_000);
  let ws: Workspace;
  let a: Agent;
  let b: Agent;

  before(async () => {
    await buildCli();
    ws = await tmpWorkspace();
    [a, b] = await Promise.all([agent(ws, 'agent-a'), agent(ws, 'agent-b')]);
  });
  after(async () => {
    await Promise.all([a?.close(), b?.close()]);
    await ws?.dispose();
  });

  it('a refused edit names the session that changed the file and what it changed; be-trx status lists the other session', async () => {
    await ws.write('shared.txt', lines(10, 'old'));
    await call(a.client, 'be-replace', { file: `${ws.file('shared.txt')}:9`, content: 'a edited line 9\n' });
    const read = await call(a.client, 'be-read', { file: ws.file('shared.txt') });
    const viewed = read.viewed_code_id as string;
    assert.ok(viewed, 'be-read gives a viewed_code_id');

    await call(b.client, 'be-replace', { file: `${ws.file('shared.txt')}:3`, content: 'b rewrote line 3\n' });
    const refused = await callError(a.client, 'be-replace', { file: `${ws.file('shared.txt')}:3`, content: 'a wants line 3\n', viewed_code_id: viewed });
    assert.match(refused, /changed since it was read/, refused);
    assert.match(refused, /-3\told line 3\n\+3\tb rewrote line 3/, `what changed: ${refused}`);
    assert.match(refused, /agent-b \(session [0-9a-z-]+\)/, `which session: ${refused}`);
    assert.match(refused, /be-replace/, `with which tool: ${refused}`);
    assert.ok((await ws.read('shared.txt')).toString().includes('b rewrote line 3\n'), "nothing of a's refused edit was written");

    const batch = await callError(a.client, 'be-apply', { edits: [{ file: `${ws.file('shared.txt')}:3`, content: 'a wants line 3\n', viewed_code_id: viewed }] });
    assert.match(batch, /-3\told line 3\n\+3\tb rewrote line 3[\s\S]*agent-b \(session /, `be-apply too: ${batch}`);

    const statusA = await call(a.client, 'be-trx', { action: 'status' });
    const othersA = statusA.other_sessions as { by: string; file: string; summary: string }[] | undefined;
    assert.equal(othersA?.length, 1, JSON.stringify(statusA));
    assert.match(othersA![0]!.by, /^agent-b \(session /);
    assert.equal(othersA![0]!.file, ws.file('shared.txt'));
    assert.match(othersA![0]!.summary, /line 3|lines 3/);
    const statusB = await call(b.client, 'be-trx', { action: 'status' });
    const othersB = statusB.other_sessions as { by: string }[] | undefined;
    assert.equal(othersB?.length, 1, JSON.stringify(statusB));
    assert.match(othersB![0]!.by, /^agent-a \(session /, 'and the other way round');
    await call(a.client, 'be-trx', { action: 'commit' });
  });

  it('a be-apply batch over 31 files by one agent is one step: the other agent\'s rollback step 1 undoes all of it', async () => {
    const names = Array.from({ length: 31 }, (_, i) => `batch/f${String(i).padStart(2, '0')}.txt`);
    for (const n of names) await ws.write(n, lines(3, n));
    await call(b.client, 'be-replace', { file: `${ws.file(names[0]!)}:1`, content: 'b first\n' });
    const before = await Promise.all(names.map((n) => ws.read(n)));
    const applied = await call(a.client, 'be-apply', { edits: names.map((n) => ({ file: `${ws.file(n)}:2`, content: 'a batch\n' })) });
    assert.equal(applied.files, 31);
    const rb = await call(b.client, 'be-trx', { action: 'rollback', step: 1 });
    assert.equal(rb.rolled_back, 31, JSON.stringify(rb).slice(0, 400));
    const after = await Promise.all(names.map((n) => ws.read(n)));
    assert.deepEqual(after.map(String), before.map(String), 'every file of the batch is back, the single edit before it kept');
    assert.equal((await ws.read(names[0]!)).toString().split('\n')[0], 'b first');
  });
});
