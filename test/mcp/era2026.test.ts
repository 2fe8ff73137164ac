/**
 * MCP 2026-07-28 beside 2025-11-25 against the same built CLI, over stdio and over `--http`: the SDK v2 client in
 * a 2026 session (pinned, and `auto`, which probes server/discover) and in a 2025 session, and the v1 client; in
 * each a be-read and an edit with its viewed_code_id.
 */
import assert from 'node:assert/strict';
import { Client as ClientV2, StreamableHTTPClientTransport as HttpV2 } from '@modelcontextprotocol/client';
import { StdioClientTransport as StdioV2 } from '@modelcontextprotocol/client/stdio';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as StdioV1 } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport as HttpV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { buildCli, childEnv, cliArgs, startHttpCli, tmpWorkspace, type Workspace } from './helpers';

type Mode = 'legacy' | 'auto' | { pin: string };
interface Any {
  callTool(p: { name: string; arguments: Record<string, unknown> }): Promise<unknown>;
  listTools(): Promise<{ tools: { name: string }[] }>;
  close(): Promise<void>;
}
const TOKEN = 'e2026e2026e2026e2026e2026e2026ab';

const CLIENTS: { label: string; v: 1 | 2; mode?: Mode; era: 'modern' | 'legacy' }[] = [
  { label: 'SDK v2, pinned to 2026-07-28', v: 2, mode: { pin: '2026-07-28' }, era: 'modern' },
  { label: 'SDK v2, auto (probes server/discover)', v: 2, mode: 'auto', era: 'modern' },
  { label: 'SDK v2, 2025 (legacy)', v: 2, mode: 'legacy', era: 'legacy' },
  { label: 'SDK v1', v: 1, era: 'legacy' },
];

async function editRound(client: Any, file: string): Promise<void> {
  const names = (await client.listTools()).tools.map((t) => t.name);
  assert.ok(names.includes('be-read') && names.includes('be-replace'), names.join(','));
  const read = (await client.callTool({ name: 'be-read', arguments: { file } })) as { structuredContent: Record<string, any>; isError?: boolean };
  assert.ok(!read.isError, JSON.stringify(read));
  assert.match(read.structuredContent.content, /return 1/);
  const id = read.structuredContent.viewed_code_id as string;
  assert.ok(id, 'be-read gives a viewed_code_id');
  const edit = (await client.callTool({ name: 'be-replace', arguments: { file: `${file}:2`, content: '  return 2;\n', viewed_code_id: id } })) as { isError?: boolean };
  assert.ok(!edit.isError, JSON.stringify(edit));
}

describe('MCP 2026-07-28 and 2025-11-25 on the same server, real SDK clients', function () {
  this.timeout(120000);
  let ws: Workspace;
  let stopHttp: (() => Promise<void>) | undefined;
  let url = '';
  before(async () => {
    await buildCli();
    ws = await tmpWorkspace();
    const h = await startHttpCli(ws, TOKEN);
    stopHttp = h.stop;
    url = h.url;
  });
  after(async () => {
    await stopHttp?.();
    await ws.dispose();
  });

  for (const c of CLIENTS) {
    for (const over of ['stdio', 'http'] as const) {
      it(`${c.label} over ${over}: ${c.era === 'modern' ? '2026-07-28' : '2025-11-25'}, a be-read and an edit`, async () => {
        const file = `${c.v}-${typeof c.mode === 'object' ? 'pin' : c.mode ?? 'v1'}-${over}.ts`;
        await ws.write(file, 'function f() {\n  return 1;\n}\n');
        const stdioParams = { command: process.execPath, args: cliArgs(ws), env: childEnv(ws), cwd: ws.root, stderr: 'pipe' as const };
        const headers = { Authorization: `Bearer ${TOKEN}` };
        let client: Any;
        if (c.v === 2) {
          const v2 = new ClientV2({ name: 'era-test', version: '2.0.0' }, { versionNegotiation: { mode: c.mode! } });
          await v2.connect(over === 'stdio' ? new StdioV2(stdioParams) : new HttpV2(new URL(url), { requestInit: { headers } }));
          assert.equal(v2.getProtocolEra(), c.era);
          assert.equal(v2.getNegotiatedProtocolVersion(), c.era === 'modern' ? '2026-07-28' : '2025-11-25');
          assert.equal(v2.getServerVersion()?.name, 'better-edit-tools');
          client = v2 as unknown as Any;
        } else {
          const v1 = new ClientV1({ name: 'era-test', version: '1.0.0' });
          await v1.connect(over === 'stdio' ? new StdioV1(stdioParams) : new HttpV1(new URL(url), { requestInit: { headers } }));
          assert.equal(v1.getServerVersion()?.name, 'better-edit-tools');
          client = v1 as unknown as Any;
        }
        try {
          await editRound(client, file);
        } finally {
          await client.close();
        }
        assert.equal((await ws.read(file)).toString(), 'function f() {\n  return 2;\n}\n');
      });
    }
  }
});
