// The Agent Edits review in the real extension host: an agent's edits (VS Code's own MCP client) are listed by
// session, a diff opens, Revert restores the file's bytes, a revert over lines changed since is refused.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ExtensionApi } from '../../../src/vscode/extension';
import type { AgentEditNode, EditNode, SessionNode } from '../../../src/vscode/agentEdits/tree';
import { EXT_ID, invokeOk as invoke, until, ws } from '../support/host';

describe('Agent Edits review', () => {
  let api: ExtensionApi;
  let file: string;
  const original = ['alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta'].join('\n') + '\n';

  before(async () => {
    api = await vscode.extensions.getExtension<ExtensionApi>(EXT_ID)!.activate();
    file = path.join(vscode.workspace.workspaceFolders![0]!.uri.fsPath, 'review-target.txt');
    fs.writeFileSync(file, original);
  });
  after(() => fs.rmSync(file, { force: true }));

  async function editNodes(of = file): Promise<{ session: SessionNode; edits: EditNode[] }[]> {
    await api.agentEdits.refresh();
    const sessions = (await api.agentEdits.tree.getChildren()) as SessionNode[];
    const out = [];
    for (const s of sessions) {
      const edits = ((await api.agentEdits.tree.getChildren(s)) as AgentEditNode[]).filter((n): n is EditNode => n.kind === 'edit' && n.item.file === of);
      if (edits.length) out.push({ session: s, edits });
    }
    return out;
  }

  it("lists an agent's edits by session (file:lines, lines ±, tool), opens a diff, and Revert restores the file exactly", async function () {
    this.timeout(120000);
    await invoke('be-replace', { file: 'review-target.txt:2', content: 'BETA' });
    await invoke('be-insert', { file: 'review-target.txt:5', content: 'five-and-a-half' });
    const groups = await until('both edits in the Agent Edits view', async () => {
      const g = await editNodes();
      return g.reduce((n, x) => n + x.edits.length, 0) === 2 ? g : undefined;
    });
    assert.equal(groups.length, 1, 'one agent session made both edits');
    const { session, edits } = groups[0]!;
    assert.match(String(api.agentEdits.tree.getTreeItem(session).label), /session/);
    const [insert, replace] = edits; // newest first
    const replaceItem = api.agentEdits.tree.getTreeItem(replace!);
    assert.equal(replaceItem.label, 'review-target.txt:2-2');
    assert.match(String(replaceItem.description), /^\+1 −1 · be-replace · /);
    assert.match(String(api.agentEdits.tree.getTreeItem(insert!).description), /^\+1 −0 · be-insert · /);

    await vscode.commands.executeCommand('betterEditTools.agentEdits.openDiff', replace);
    const tab = await until('the diff tab', () => {
      const input = vscode.window.tabGroups.activeTabGroup.activeTab?.input;
      return input instanceof vscode.TabInputTextDiff && input.original.scheme === 'better-edit-review' ? input : undefined;
    });
    assert.equal((await vscode.workspace.openTextDocument(tab.original)).getText(), original);
    assert.equal((await vscode.workspace.openTextDocument(tab.modified)).getText(), original.replace('beta', 'BETA'));
    await vscode.commands.executeCommand('workbench.action.closeActiveEditor');

    // the older edit first: reverted in today's coordinates, the newer one stays
    await vscode.commands.executeCommand('betterEditTools.agentEdits.revert', replace);
    assert.equal(fs.readFileSync(file, 'utf8'), original.replace('epsilon\n', 'epsilon\nfive-and-a-half\n'));
    await vscode.commands.executeCommand('betterEditTools.agentEdits.revert', insert);
    assert.equal(fs.readFileSync(file, 'utf8'), original, 'both reverts together restore the original bytes');
    const left = await editNodes();
    assert.deepEqual(left.flatMap((g) => g.edits.map((e) => e.item.summary)).filter((s) => !s.startsWith('revert of')), []);
  });

  it('refuses to revert an edit whose lines another edit changed since, and writes nothing', async function () {
    this.timeout(60000);
    await invoke('be-replace', { file: 'review-target.txt:3', content: 'GAMMA' });
    await invoke('be-replace', { file: 'review-target.txt:3', content: 'GAMMA!' });
    const groups = await until('the two edits', async () => {
      const g = await editNodes();
      const e = g.flatMap((x) => x.edits).filter((n) => n.item.tool === 'be-replace');
      return e.length === 2 ? e : undefined;
    });
    const older = groups[1]!;
    const before = fs.readFileSync(file);
    await vscode.commands.executeCommand('betterEditTools.agentEdits.revert', older);
    assert.deepEqual(fs.readFileSync(file), before, 'the refused revert left the file as it was');
    assert.ok((await editNodes()).flatMap((g) => g.edits).some((n) => n.item.id === older.item.id), 'the edit is still listed');
  });

  // Layer 2 (scripts/e2e/ui-smoke.mjs) opens this file in a new window: the insertion stays, marked, for it to find
  // in the DOM and revert with the mouse.
  it('marks the lines agents changed in the gutter of the open editor; Revert removes the mark of the reverted edit', async function () {
    this.timeout(120000);
    const gutterFile = ws('review-gutter.txt');
    fs.writeFileSync(gutterFile, ['one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight'].join('\n') + '\n');
    const editor = await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(gutterFile));
    const uri = editor.document.uri;
    const shown = () => api.agentEdits.marks(uri).map((r) => `${r.start.line + 1}-${r.end.line + 1}`).sort().join(' ');
    await invoke('be-replace', { file: 'review-gutter.txt:2', content: 'TWO' });
    await invoke('be-insert', { file: 'review-gutter.txt:5', content: 'five-a\nfive-b' });
    await until('both edits marked (lines 2, and 6-7)', () => shown() === '2-2 6-7' || undefined, 20000)
      .catch((e) => assert.fail(`${e}; marked: "${shown()}"`));
    const replace = (await editNodes(gutterFile)).flatMap((g) => g.edits).find((n) => n.item.tool === 'be-replace');
    assert.ok(replace, 'the be-replace is listed');
    await vscode.commands.executeCommand('betterEditTools.agentEdits.revert', replace);
    assert.equal(editor.document.lineAt(1).text, 'two', 'reverted');
    await until('only the insertion marked', () => shown() === '6-7' || undefined, 20000)
      .catch((e) => assert.fail(`${e}; marked: "${shown()}"`));
  });
});
