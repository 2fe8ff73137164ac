/**
 * The Agent Edits review (src/vscode/agentEdits/register.ts) through the vscode double, over real services: edits
 * listed by session, Keep and Revert through be-trx, and an edit another process records in the shared history
 * folder reaching the view through the one folder watcher.
 */
import { double, testLog } from './double/install';
import assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { createServices, type Services } from '../../src/mcp/services';
import { registerAgentEdits, type AgentEdits } from '../../src/vscode/agentEdits/register';
import { UiTools } from '../../src/vscode/uiTools';
import { until } from '../until';

describe('vscode/agentEdits (through the vscode double)', function () {
  this.timeout(30_000);
  let base: string;
  let root: string;
  let services: Services;
  let context: vscode.ExtensionContext;
  let edits: AgentEdits;
  const opts = () => ({ roots: [root], chipDir: path.join(base, 'chips'), historyDir: path.join(base, 'history') });

  beforeEach(async () => {
    double.reset();
    base = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'bet-agentedits-')));
    root = path.join(base, 'ws');
    await fs.mkdir(root);
    await fs.writeFile(path.join(root, 'a.ts'), 'one\ntwo\n');
    services = await createServices(opts());
    context = { subscriptions: [], extensionUri: vscode.Uri.file('/ext') } as unknown as vscode.ExtensionContext;
    edits = registerAgentEdits(context, { history: services.history, tools: new UiTools(services.deps), log: testLog() });
    await edits.refresh();
  });
  afterEach(async () => {
    for (const d of context.subscriptions.splice(0)) d.dispose();
    await services.close();
    await fs.rm(base, { recursive: true, force: true });
  });

  it('an edit another process records in the history folder shows up (the folder watch), with a badge', async () => {
    assert.equal(edits.tree.items.length, 0);
    const other = await createServices(opts()); // an agent's stdio server on the same folders
    await new UiTools(other.deps).call('be-insert', { file: `${path.join(root, 'a.ts')}:0`, content: 'zero\n' });
    await until(() => edits.tree.items.length === 1, 'the edit in the tree');
    const view = double.recorded.treeViews.find((v) => v.id === 'betterEditTools.agentEdits')!.view;
    await until(() => (view.badge as { value: number } | undefined)?.value === 1, 'the badge');
    await other.close();
  });

  it('Revert puts the file back through be-trx; Keep takes an edit off the list (the revert stays listed)', async () => {
    const tools = new UiTools(services.deps);
    await tools.call('be-insert', { file: `${path.join(root, 'a.ts')}:0`, content: 'zero\n' });
    await tools.call('be-insert', { file: `${path.join(root, 'a.ts')}:3`, content: 'three\n' });
    await edits.refresh();
    assert.equal(edits.tree.items.length, 2);
    const [newest, oldest] = edits.tree.items;
    await vscode.commands.executeCommand('betterEditTools.agentEdits.revert', newest!.id);
    assert.equal(await fs.readFile(path.join(root, 'a.ts'), 'utf8'), 'zero\none\ntwo\n');
    await vscode.commands.executeCommand('betterEditTools.agentEdits.keep', oldest!.id);
    // left: the revert itself, an edit of its own (it can be reverted too)
    assert.deepEqual(edits.tree.items.map((i) => [i.tool, i.summary.startsWith(`revert of ${newest!.id}`)]), [['be-trx', true]]);
    assert.ok(double.recorded.statusMessages.some((m) => m.startsWith('Kept edit')));
  });
});
