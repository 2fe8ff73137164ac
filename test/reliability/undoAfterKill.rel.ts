/**
 * The undo record of an acknowledged edit survives the server's death: a real dist/cli.js over stdio makes an edit
 * (be-replace, be-insert or be-delete, 4 KiB and 1 MiB files), is killed with SIGKILL the moment its reply arrives,
 * and a new server on the same folders rolls that edit back. The snapshot is written whole (temp + rename) before
 * the reply, without an fsync of its own: a killed process never loses it; a power loss may lose the newest ones,
 * and the rollback then has nothing to undo for that edit (its hash check refuses a wrong one), never a torn file.
 * Run: npm run build && npx mocha --config test/reliability/.mocharc.json test/reliability/undoAfterKill.rel.ts
 */
import { strict as assert } from 'node:assert';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { figure } from './figures';
import { stdioClient, textOf, tmpWorkspace, type Workspace } from '../mcp/helpers';

const ROUNDS = 12;

function body(bytes: number): string {
  const lines: string[] = [];
  let size = 0;
  for (let n = 1; size < bytes; n++) {
    const l = `const value_${n} = compute(${n});\n`;
    lines.push(l);
    size += l.length;
  }
  return lines.join('');
}

describe('reliability: the undo record of an acknowledged edit survives a SIGKILL right after the reply', function () {
  let ws: Workspace;
  beforeEach(async () => (ws = await tmpWorkspace()));
  afterEach(async () => ws.dispose());

  it(`${ROUNDS * 2} edits acknowledged then killed: a new server rolls each one back to the bytes before it`, async () => {
    let restored = 0;
    let total = 0;
    for (const size of [4 * 1024, 1024 * 1024]) {
      const original = body(size);
      await ws.write('f.ts', original);
      const mid = Math.floor(original.split('\n').length / 2);
      for (let i = 0; i < ROUNDS; i++) {
        const before = await ws.read('f.ts');
        const server = await stdioClient(ws);
        const calls = [
          { name: 'be-replace', arguments: { file: `f.ts:${mid}`, content: `const replaced_${i} = ${i};\n` } },
          { name: 'be-insert', arguments: { file: `f.ts:${mid}`, content: `// inserted ${i}\n` } },
          { name: 'be-delete', arguments: { file: `f.ts:${mid + 1}` } },
        ];
        const call = calls[i % calls.length]!;
        const r = (await server.client.callTool(call)) as CallToolResult;
        // killed the moment the reply is in: nothing after the reply may be needed for the undo
        process.kill(server.pid!, 'SIGKILL');
        assert.notEqual(r.isError, true, textOf(r));
        assert.ok(!(await ws.read('f.ts')).equals(before), 'the edit landed');
        await server.close().catch(() => undefined);
        const next = await stdioClient(ws);
        try {
          const rb = (await next.client.callTool({ name: 'be-trx', arguments: { action: 'rollback' } })) as CallToolResult;
          assert.notEqual(rb.isError, true, textOf(rb));
          total++;
          if ((await ws.read('f.ts')).equals(before)) restored++;
          else assert.fail(`round ${i} (${call.name}, ${size} bytes): the rollback did not restore the file: ${textOf(rb)}`);
        } finally {
          await next.close();
        }
      }
    }
    figure('undo after kill: acknowledged edits rolled back after a SIGKILL right after the reply', `${restored} of ${total}`, `${total} of ${total}`);
    assert.equal(restored, total);
  });
});
