/** The UI's tool calls take the agents' tool-call path (not a second, laxer one). */
import assert from 'node:assert/strict';
import { promises as fs, realpathSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { createServer } from '../../src/mcp/server';
import { createServices, type Services } from '../../src/mcp/services';
import { ToolCallError, UiTools } from '../../src/vscode/uiTools';

describe('vscode/uiTools: commands call the tools through the agents\' call path', function () {
  this.timeout(30000);
  let base: string;
  let root: string;
  let svc: Services;
  let ui: UiTools;
  beforeEach(async () => {
    base = realpathSync(await fs.mkdtemp(path.join(os.tmpdir(), 'ui-tools-')));
    root = path.join(base, 'ws');
    await fs.mkdir(path.join(root, 'src'), { recursive: true });
    await fs.writeFile(path.join(root, 'src/a.ts'), 'export const a = 1;\nexport const b = 2;\n');
    // As in VS Code: the host reports changes itself (no watcher of ours), so only invalidations refresh the overview.
    svc = await createServices({ roots: [root], chipDir: path.join(base, 'chips'), historyDir: path.join(base, 'history'), context: { watch: false } });
    svc.context!.setWatched(true);
    ui = new UiTools(svc.deps);
  });
  afterEach(async () => {
    await ui.dispose();
    await svc.close();
    await fs.rm(base, { recursive: true, force: true });
  });

  it('a successful call returns the result object, and a write refreshes the overview', async () => {
    const before = await svc.context!.overview({});
    const del = await ui.call('be-delete', { file: 'src/a.ts:2' });
    assert.equal(typeof del.chip_id, 'string');
    const ins = await ui.call('be-insert-chip', { from: `chip://${del.chip_id}`, to: 'src/a.ts:0' });
    assert.equal(ins.source, `chip://${del.chip_id}`);
    assert.equal(await fs.readFile(path.join(root, 'src/a.ts'), 'utf8'), 'export const b = 2;\nexport const a = 1;\n');
    await ui.call('be-insert', { file: 'src/a.ts:2', content: 'export const c = 3;' });
    const after = await svc.context!.overview({});
    assert.equal(after.lines, before.lines + 1, 'the server invalidated the written file (the handler alone does not)');
  });

  it('strict arguments: an unknown argument is refused, and the failed call is kept as a chip', async () => {
    const big = 'export function lost(): string {\n  return "this text must not be lost";\n}\n';
    await assert.rejects(ui.call('be-insert', { file: 'src/a.ts:1', content: big, contnet: 'typo' }), (e: unknown) => {
      assert.ok(e instanceof ToolCallError);
      assert.match(e.message, /contnet/);
      assert.match(e.message, /arguments saved as chip:\/\/[0-9a-f]{6}/);
      return true;
    });
    const chips = await svc.chips.list();
    assert.equal(chips.length, 1);
    assert.equal(chips[0]!.args.content, big);
    assert.equal(await fs.readFile(path.join(root, 'src/a.ts'), 'utf8'), 'export const a = 1;\nexport const b = 2;\n', 'nothing written');
  });

  it('a bad argument: the command path gives the error text and the chip an agent gets', async () => {
    const server = createServer(svc.deps, { sessionId: 'agent' });
    const [a, b] = InMemoryTransport.createLinkedPair();
    await server.connect(a);
    const agent = new Client({ name: 'agent', version: '1.0.0' });
    await agent.connect(b);
    try {
      const content = 'export const kept = "the text of a failed call";\n'.repeat(4);
      // an upstream alias (old_text), a typo'd argument and a bad range together: every check on the path runs
      const bad = { file: 'src/a.ts:9-1', content, old_text: 'x', contnet: 'typo' };
      const byAgent = (await agent.callTool({ name: 'be-replace', arguments: bad })) as CallToolResult;
      assert.equal(byAgent.isError, true);
      const agentText = byAgent.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
      const byCommand = await ui.call('be-replace', bad).then(
        () => assert.fail('the command call was expected to fail'),
        (e: unknown) => (assert.ok(e instanceof ToolCallError), e.message),
      );
      const chipOf = (t: string) => /arguments saved as chip:\/\/([0-9a-f]{6,})/.exec(t)?.[1];
      const [agentChip, commandChip] = [chipOf(agentText), chipOf(byCommand)];
      assert.ok(agentChip && commandChip && agentChip !== commandChip, `each call kept its arguments: ${agentText} / ${byCommand}`);
      assert.match(agentText, /contnet/);
      assert.equal(byCommand.replace(commandChip, 'ID'), agentText.replace(agentChip, 'ID'), 'the same error text');
      const [fromAgent, fromCommand] = [await svc.chips.get(agentChip), await svc.chips.get(commandChip)];
      assert.deepEqual(
        { tool: fromCommand?.tool, args: fromCommand?.args, err: fromCommand?.err_msg },
        { tool: fromAgent?.tool, args: fromAgent?.args, err: fromAgent?.err_msg },
        'the same chip',
      );
      assert.equal(fromCommand?.args.content, content);
      assert.equal(await fs.readFile(path.join(root, 'src/a.ts'), 'utf8'), 'export const a = 1;\nexport const b = 2;\n', 'nothing written');
    } finally {
      await agent.close();
      await server.close();
    }
  });
});
