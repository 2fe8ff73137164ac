/** Chips and history point at each other: status names a deletion's chip, rollback says so; listing filters. */
import * as assert from 'node:assert/strict';
import { call, memoryClient, tmpWorkspace, type Workspace } from './helpers';

describe('mcp: chips linked to history, filtered chip listing', () => {
  let ws: Workspace;
  let conn: Awaited<ReturnType<typeof memoryClient>>;
  beforeEach(async () => {
    ws = await tmpWorkspace();
    conn = await memoryClient(ws);
  });
  afterEach(async () => {
    await conn.close();
    await conn.services.close();
    await ws.dispose();
  });

  it('be-trx status names the chip holding each deletion; rolling the deletion back names it too', async () => {
    await ws.write('a.txt', 'one\ntwo\nthree\n');
    const del = await call(conn.client, 'be-delete', { file: 'a.txt:2' });
    assert.match(del.chip_id, /^[0-9a-f]{6}$/);
    await call(conn.client, 'be-replace', { file: 'a.txt:1', content: 'ONE' });
    const st = await call(conn.client, 'be-trx', { action: 'status' });
    const [replace, deletion] = st.snapshots;
    assert.equal(deletion.chip_id, del.chip_id);
    assert.equal(replace.chip_id, undefined);
    const back = await call(conn.client, 'be-trx', { action: 'rollback', step: 2 });
    assert.deepEqual(back.restored.map((r: { chip_id?: string }) => r.chip_id), [undefined, del.chip_id]);
    assert.equal((await ws.read('a.txt')).toString(), 'one\ntwo\nthree\n');
  });

  it('be-insert-chip lists by tool, path and text, newest first; the plain listing keeps its order', async () => {
    await ws.write('src/a.ts', 'alpha\nbeta\ngamma\n');
    await ws.write('lib/b.ts', 'delta\nepsilon\n');
    const c1 = (await call(conn.client, 'be-delete', { file: 'src/a.ts:1' })).chip_id;
    const c2 = (await call(conn.client, 'be-delete', { file: 'lib/b.ts:2' })).chip_id;
    const c3 = (await call(conn.client, 'be-delete', { file: 'src/a.ts:2' })).chip_id;
    const ids = async (args: Record<string, unknown>) => ((await call(conn.client, 'be-insert-chip', args)).items as { id: string }[]).map((i) => i.id);
    assert.deepEqual(await ids({}), [c1, c2, c3]);
    assert.deepEqual(await ids({ tool: 'be-delete' }), [c3, c2, c1]);
    assert.deepEqual(await ids({ path: 'src/' }), [c3, c1]);
    assert.deepEqual(await ids({ text: 'EPSI' }), [c2]);
    assert.deepEqual(await ids({ tool: 'be-replace' }), []);
    const item = (await call(conn.client, 'be-insert-chip', { text: 'gamma' })).items[0];
    assert.equal(item.id, c3);
    assert.equal(item.file, 'src/a.ts');
    assert.deepEqual(item.range, { start: 2, end: 2 });
  });
});
