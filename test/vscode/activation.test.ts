/**
 * activate() and its composers (src/vscode/extension.ts, src/vscode/activation/) through the vscode double, with
 * the real core on temp folders: what it registers against package.json, the memory following the workspace
 * folders, settings reaching their composers, and chips from another process reaching the tree.
 */
import { double } from './double/install';
import assert from 'node:assert/strict';
import { promises as fs, readFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { ChipStore } from '../../src/core/chips/node/store';
import { ChipSigner } from '../../src/core/chips/node/integrity';
import { chipKeyFile } from '../../src/mcp/services';
import { activate, deactivate, type ExtensionApi } from '../../src/vscode/extension';
import { memoryDirOf } from '../../src/vscode/activation/memory';
import { until } from '../until';

const REPO = path.resolve(__dirname, '..', '..');
const pkg = JSON.parse(readFileSync(path.join(REPO, 'package.json'), 'utf8')) as {
  contributes: { commands: { command: string }[]; views: Record<string, { id: string }[]>; chatParticipants: { id: string }[] };
};

describe('vscode/extension activate() and its composers (through the vscode double)', function () {
  this.timeout(60_000);
  let base: string;
  let storage: string;
  let a: string;
  let b: string;
  let context: vscode.ExtensionContext;
  let api: ExtensionApi;

  beforeEach(async () => {
    double.reset();
    base = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'bet-activate-')));
    storage = path.join(base, 'storage');
    a = path.join(base, 'a');
    b = path.join(base, 'b');
    await fs.mkdir(a);
    await fs.mkdir(b);
    await fs.writeFile(path.join(a, 'x.ts'), 'export const x = 1;\n');
    await fs.writeFile(path.join(b, 'y.ts'), 'export const y = 2;\n');
    double.setFolders([a], false);
    context = {
      subscriptions: [],
      globalStorageUri: vscode.Uri.file(storage),
      extensionPath: REPO,
      extensionUri: vscode.Uri.file(REPO),
      extension: { packageJSON: { version: '9.9.9' } },
    } as unknown as vscode.ExtensionContext;
    api = await activate(context);
  });
  afterEach(async () => {
    await deactivate();
    for (const d of context.subscriptions.splice(0)) d.dispose();
    await fs.rm(base, { recursive: true, force: true });
  });

  it('registers every contributed command, view, the participant, the MCP provider and the status bar', () => {
    const missing = pkg.contributes.commands.map((c) => c.command).filter((id) => !double.commands.has(id));
    assert.deepEqual(missing, [], 'contributed commands without a handler');
    const views = [...double.recorded.treeViews.map((v) => v.id), ...double.recorded.webviewProviders.map((v) => v.id)].sort();
    assert.deepEqual(views, pkg.contributes.views.betterEdit!.map((v) => v.id).sort());
    assert.deepEqual(double.recorded.participants.map((p) => p.id), pkg.contributes.chatParticipants.map((p) => p.id));
    assert.ok(api.participant);
    assert.equal(double.recorded.mcpProviders.length, 1);
    assert.equal(double.recorded.statusBarItems.filter((i) => i.visible).length, 1);
    assert.equal(api.hostState(), 'stopped', 'the server starts when VS Code resolves it, not at activation');
  });

  it('the memory follows the workspace folders: another folder set gets its own memory, the old one is closed', async () => {
    assert.equal(api.memory.dir, memoryDirOf(storage, [a]));
    const before = api.memory;
    before.get('s1').add({ kind: 'note', content: 'in a' });
    double.setFolders([b]);
    await until(() => api.memory.dir === memoryDirOf(storage, [b]), 'the memory of b');
    assert.notEqual(api.memory, before);
    assert.equal(api.memory.has('s1'), false, 'the sessions of a stay with a');
    assert.equal(api.recall.dir, path.join(memoryDirOf(storage, [b]), 'recall'));
    double.setFolders([a]);
    await until(() => api.memory.dir === memoryDirOf(storage, [a]), 'the memory of a again');
    assert.equal(api.memory.get('s1').visibleMessages()[0]?.content, 'in a', 'a\'s memory was saved and reopened');
  });

  it('settings reach their composers: chip settings recompose, memory budgets apply to live sessions, the server can be disabled', async () => {
    const chips = api.chips();
    double.setSettings({ 'betterEditTools.chips.capacity': 5 });
    await until(() => api.chips() !== chips, 'a recomposition');
    const session = api.memory.get('s2');
    double.setSettings({ 'betterEditTools.memory.maxTokens': 5000 });
    await until(() => session.options.maxTokens === 5000, 'the new budget');
    double.setSettings({ 'betterEditTools.server.enabled': false });
    await until(() => api.hostState() === 'disabled', 'the server disabled');
  });

  it('a chip another process saves in the shared folder reaches the tree (the store\'s watch)', async () => {
    let count = 0;
    api.tree.onDidChangeCount((n) => (count = n));
    const dir = api.chipDir();
    const other = await ChipStore.open({ dir, signer: await ChipSigner.fromKeyFile(chipKeyFile(dir)) });
    await other.saveContent('be-delete', 'export const x = 1;\n', { file: path.join(a, 'x.ts'), range: { start: 1, end: 1 } });
    await until(() => count === 1, 'the tree to count the chip');
    assert.equal((await api.tree.getChildren()).length, 1);
  });
});
