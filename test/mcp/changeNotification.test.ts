/**
 * Every write the tools make reaches the context service, whichever argument named the file: the overview is fresh
 * right after be-insert-chip (writes to `to`), be-trx rollback (writes the files of the undone step) and be-apply.
 * The server runs as the VS Code host runs it: the host reports changes (no watcher of ours, and here none at all),
 * so a warm overview re-reads only what was announced. Real server, SDK client, real files.
 */
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { createServer } from '../../src/mcp/server';
import { createServices, type Services } from '../../src/mcp/services';
import { call, tmpWorkspace, type Workspace } from './helpers';

const A = 'export const a = 1;\nexport const b = 2;\n';
const B = 'export function f(): number {\n  return 1;\n}\n';

describe('mcp change notification: the overview sees every write', function () {
  this.timeout(30_000);
  let ws: Workspace;
  let services: Services;
  let client: Client;
  let closeAll: () => Promise<void>;

  beforeEach(async () => {
    ws = await tmpWorkspace();
    await ws.write('src/a.ts', A);
    await ws.write('src/b.ts', B);
    services = await createServices({ roots: [ws.root], chipDir: ws.chipDir, historyDir: ws.historyDir, context: { watch: false } });
    services.context!.setWatched(true); // changes arrive as announcements only (as in VS Code, before its watcher fires)
    const server = createServer(services.deps, { sessionId: 'notify', reply: 'json' });
    const [a, b] = InMemoryTransport.createLinkedPair();
    await server.connect(a);
    client = new Client({ name: 'test', version: '1.0.0' });
    await client.connect(b);
    closeAll = async () => {
      await client.close();
      await server.close();
      await services.close();
    };
  });

  afterEach(async () => {
    await closeAll();
    await ws.dispose();
  });

  const lines = async () => (await call(client, 'be-overview', {})).lines as number;

  it('be-insert-chip into `to`: the target file is re-read', async () => {
    const before = await lines(); // warm map: 5 lines
    const del = await call(client, 'be-delete', { file: 'src/a.ts:2' });
    assert.equal(await lines(), before - 1);
    await call(client, 'be-insert-chip', { from: `chip://${del.chip_id}`, to: 'src/b.ts:0' });
    assert.equal((await ws.read('src/b.ts')).toString(), `export const b = 2;\n${B}`);
    assert.equal(await lines(), before, 'the overview counts the line be-insert-chip added to src/b.ts');
  });

  it('be-trx rollback: the restored file is re-read', async () => {
    const before = await lines();
    await call(client, 'be-insert', { file: 'src/b.ts:3', content: 'export const c = 3;\nexport const d = 4;\n' });
    assert.equal(await lines(), before + 2);
    await call(client, 'be-trx', { action: 'rollback', step: 1 });
    assert.equal((await ws.read('src/b.ts')).toString(), B);
    assert.equal(await lines(), before, 'the overview no longer counts the rolled-back lines');
  });

  it('be-trx rollback of a created file: the removed file leaves the overview', async () => {
    const before = await call(client, 'be-overview', {});
    await call(client, 'be-write', { file: 'src/new.ts', content: 'export const n = 1;\n' });
    assert.equal((await call(client, 'be-overview', {})).files, before.files + 1);
    await call(client, 'be-trx', { action: 'rollback', step: 1 });
    const after = await call(client, 'be-overview', {});
    assert.equal(after.files, before.files, 'the overview no longer lists the removed file');
    assert.equal(after.lines, before.lines);
  });

  it('be-apply across two files: both are re-read', async () => {
    const before = await lines();
    await call(client, 'be-apply', {
      edits: [
        { file: 'src/a.ts:0', op: 'insert', content: 'export const z = 0;\n' },
        { file: 'src/b.ts:0', op: 'insert', content: '// one\n// two\n' },
      ],
    });
    assert.equal(await lines(), before + 3);
  });
});
