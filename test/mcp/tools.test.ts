/** The tools through real SDK clients: over stdio (dist/cli.js) and over the loopback HTTP host. */
import assert from 'node:assert/strict';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { call, httpSetup, stdioClient, tmpWorkspace, TOOL_NAMES, type Connected, type Workspace } from './helpers';


async function assertListing(client: Client, names = TOOL_NAMES): Promise<void> {
  const { tools } = await client.listTools();
  // other modules may append tools (be-memory, be-overview); ours come first, in upstream order
  assert.deepEqual(tools.map((t) => t.name).slice(0, names.length), names);
  for (const t of tools) {
    assert.ok((t.description ?? '').length > 30, `${t.name} description`);
    assert.equal(t.inputSchema.type, 'object');
    assert.ok(Object.keys(t.inputSchema.properties ?? {}).length > 0, `${t.name} has properties`);
  }
  const byName = new Map(tools.map((t) => [t.name.replace(/^(be-)?/, 'be-'), t]));
  assert.deepEqual(byName.get('be-read')!.inputSchema.required, ['file']);
  assert.equal(byName.get('be-read')!.annotations?.readOnlyHint, true);
  // pin writes the overview into chat memory: be-overview is not read-only
  assert.equal(byName.get('be-overview')!.annotations?.readOnlyHint, false);
  assert.equal(byName.get('be-delete')!.annotations?.destructiveHint, true);
  assert.equal(byName.get('be-write')!.annotations?.idempotentHint, true);
  assert.match(byName.get('be-insert')!.description!, /after line N.*:0/);
}

/** One successful call of every tool on real files; `p` is the tool-name prefix ('be-' or '' with --no-prefix). */
async function exerciseAll(client: Client, ws: Workspace, p = 'be-'): Promise<void> {
  const w = await call(client, `${p}write`, { file: 'src/a.ts', content: 'function f() {\n  return 1;\n}\n' });
  assert.equal(w.status, 'ok');
  assert.equal((await ws.read('src/a.ts')).toString(), 'function f() {\n  return 1;\n}\n');

  const r = await call(client, `${p}read`, { file: 'src/a.ts:1-2' });
  assert.equal(r.start, 1);
  assert.equal(r.end, 2);
  assert.equal(r.total, 3);
  assert.match(r.content, /^1\tfunction f\(\) \{\n2\t {2}return 1;$/);
  assert.ok(r.viewed_code_id);

  const rep = await call(client, `${p}replace`, { file: 'src/a.ts:2', content: '  return 2;\n', viewed_code_id: r.viewed_code_id });
  assert.equal(rep.status, 'ok');
  assert.equal((await ws.read('src/a.ts')).toString(), 'function f() {\n  return 2;\n}\n');

  const ins = await call(client, `${p}insert`, { file: 'src/a.ts:0', content: '// top\n' });
  assert.equal(ins.status, 'ok');
  assert.equal((await ws.read('src/a.ts')).toString(), '// top\nfunction f() {\n  return 2;\n}\n');

  const fr = await call(client, `${p}func-range`, { file: 'src/a.ts', line: 3 });
  assert.equal(fr.start, 2);
  assert.equal(fr.end, 4);

  await ws.write('page.html', '<div>\n  <p>\n    hi\n  </p>\n</div>\n');
  const tr = await call(client, `${p}tag-range`, { file: 'page.html', line: 3 });
  assert.deepEqual([tr.start, tr.end, tr.tag], [2, 4, 'p']);

  const bal = await call(client, `${p}balance`, { file: 'src/a.ts' });
  assert.equal(bal.status, 'all balanced');

  const del = await call(client, `${p}delete`, { file: 'src/a.ts:1' });
  assert.equal(del.status, 'ok');
  assert.equal((await ws.read('src/a.ts')).toString(), 'function f() {\n  return 2;\n}\n');
  const chipId: string = del.chip_id;
  assert.match(chipId, /^[0-9a-f]{6,12}$/);

  const got = await call(client, `${p}chip`, { action: 'get', id: chipId });
  assert.equal(got.text, '// top\n');
  assert.equal(got.chip.tool, 'be-delete');

  const back = await call(client, `${p}insert-chip`, { from: `chip://${chipId}`, to: 'src/a.ts:0' });
  assert.equal(back.status, 'ok');
  assert.equal((await ws.read('src/a.ts')).toString(), '// top\nfunction f() {\n  return 2;\n}\n');

  const st = await call(client, `${p}trx`, { action: 'status' });
  assert.equal(st.status, 'ok');
  assert.ok(st.snapshots.length >= 5, `snapshots: ${st.snapshots.length}`);
}

describe('mcp tools over stdio (dist/cli.js)', function () {
  this.timeout(120000);
  let ws: Workspace;
  let c: Connected | undefined;
  beforeEach(async () => (ws = await tmpWorkspace()));
  afterEach(async () => {
    await c?.close();
    c = undefined;
    await ws.dispose();
  });

  it('lists every tool with descriptions, schemas and annotations', async () => {
    c = await stdioClient(ws);
    await assertListing(c.client);
    assert.equal(c.client.getServerVersion()?.name, 'better-edit-tools');
  });

  it('runs one successful call of each tool on real files', async () => {
    c = await stdioClient(ws);
    await exerciseAll(c.client, ws);
  });

  it('--no-prefix lists names without be- and accepts both forms', async () => {
    c = await stdioClient(ws, ['--no-prefix']);
    await assertListing(c.client, TOOL_NAMES.map((n) => n.slice(3)));
    await exerciseAll(c.client, ws, '');
    const r = await call(c.client, 'be-read', { file: 'src/a.ts:1' });
    assert.equal(r.start, 1);
  });

  it('--lang zh gives Chinese descriptions for every tool', async () => {
    c = await stdioClient(ws, ['--lang', 'zh']);
    const { tools } = await c.client.listTools();
    assert.ok(tools.length >= TOOL_NAMES.length);
    for (const t of tools) assert.match(t.description ?? '', /[\u4e00-\u9fff]/, `${t.name} is in Chinese`);
    assert.match(tools.find((t) => t.name === 'be-delete')!.description!, /删除/);
  });
});

describe('mcp tools over the loopback HTTP host', function () {
  this.timeout(60000);
  let ws: Workspace;
  beforeEach(async () => (ws = await tmpWorkspace()));
  afterEach(async () => ws.dispose());

  it('lists the tools and runs one successful call of each', async () => {
    const h = await httpSetup(ws);
    try {
      const c = await h.connect();
      await assertListing(c.client);
      await exerciseAll(c.client, ws);
      await c.close();
    } finally {
      await h.host.close();
    }
  });

  it('keeps sessions apart and tells observers when a session closes', async () => {
    const closed: string[] = [];
    const calls: string[] = [];
    const h = await httpSetup(ws, {
      observers: [
        {
          onToolCall: (e) => calls.push(`${e.sessionId}:${e.tool}`),
          onToolResult: () => {},
          onSessionClosed: (id) => closed.push(id),
        },
      ],
    });
    try {
      const a = await h.connect();
      const b = await h.connect();
      assert.equal(h.host.sessions.size, 2);
      await ws.write('x.txt', 'x\n');
      await call(a.client, 'be-read', { file: 'x.txt' });
      await call(b.client, 'be-read', { file: 'x.txt' });
      const ids = [...h.host.sessions.keys()];
      assert.deepEqual(calls.sort(), ids.map((id) => `${id}:be-read`).sort());
      await a.close();
      assert.equal(h.host.sessions.size, 1);
      assert.equal(closed.length, 1);
      assert.ok(ids.includes(closed[0]));
      await b.close();
      assert.equal(closed.length, 2);
    } finally {
      await h.host.close();
    }
  });
});
