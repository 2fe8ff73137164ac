// Runs inside the real VS Code extension host (code-server), against the installed .vsix.
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as vscode from 'vscode';
import type { DemoResult } from '../../../src/vscode/demo';
import type { ExtensionApi } from '../../../src/vscode/extension';
import { EXT_ID, invoke, invokeOk, sleep, until, ws } from '../support/host';

let api: ExtensionApi;

describe('Better Edit Tools in a real VS Code', () => {
  before(async () => {
    const ext = vscode.extensions.getExtension<ExtensionApi>(EXT_ID);
    assert.ok(ext, `${EXT_ID} is installed`);
    api = await ext.activate();
    console.log(`VS Code ${vscode.version} (${vscode.env.appName}), ext host node ${process.version}, extension at ${ext.extensionPath}`);
  });

  it('activates and contributes its commands and the MCP provider', async () => {
    const commands = await vscode.commands.getCommands(true);
    for (const id of ['betterEditTools.recoverChip', 'betterEditTools.restoreLastDeleted', 'betterEditTools.showServerInfo',
      'betterEditTools.restartServer', 'betterEditTools.copyConfig.claudeCode', 'betterEditTools.chips.insertAtCursor',
      'betterEditTools.showTokenWindow']) {
      assert.ok(commands.includes(id), `command ${id} is registered`);
    }
    const pkg = vscode.extensions.getExtension(EXT_ID)!.packageJSON;
    assert.deepEqual(pkg.contributes.mcpServerDefinitionProviders.map((p: { id: string }) => p.id), ['betterEditTools.mcp']);
    assert.equal(typeof vscode.lm.registerMcpServerDefinitionProvider, 'function');
  });

  it("VS Code's own MCP client starts the server and the be-* tools appear in vscode.lm.tools", async function () {
    this.timeout(120000);
    // Extension-provided collections activate lazily: the List Servers picker activates them (reference §9).
    vscode.commands.executeCommand('workbench.mcp.listServer').then(undefined, () => undefined);
    await sleep(2000);
    await vscode.commands.executeCommand('workbench.action.closeQuickOpen');
    await vscode.commands.executeCommand('workbench.mcp.startServer', '*', { waitForLiveTools: true });
    const names = await until('the be-* tools', () => {
      const found = vscode.lm.tools.filter((t) => /^mcp_.*_be-[a-z-]+$/.test(t.name)).map((t) => t.name.replace(/^mcp_.*?_(be-)/, '$1'));
      return found.length >= 10 ? found : undefined;
    }, 60000);
    console.log(`tools: ${names.sort().join(', ')}`);
    for (const t of ['be-read', 'be-replace', 'be-insert', 'be-delete', 'be-write', 'be-func-range', 'be-tag-range', 'be-balance', 'be-insert-chip', 'be-trx']) {
      assert.ok(names.includes(t), `${t} is listed`);
    }
    assert.equal(api.hostState(), 'running', 'the in-process host was started through resolveMcpServerDefinition');
  });

  let deletedChipId = '';
  const notes = () => ws('src/notes.txt');
  const original = Array.from({ length: 20 }, (_, i) => `line ${i + 1}`).join('\n') + '\n';

  it('be-delete through vscode.lm.invokeTool changes the file and a chip appears in the Chips tree', async () => {
    assert.equal(fs.readFileSync(notes(), 'utf8'), original);
    const res = await invoke('be-delete', { file: 'src/notes.txt:5-7' });
    assert.equal(res.threw, false, res.text);
    const after = fs.readFileSync(notes(), 'utf8');
    assert.ok(!after.includes('line 5\n') && !after.includes('line 7\n') && after.includes('line 4\nline 8\n'), after);
    const m = /chip:\/\/([0-9a-f]{6,12})|"chip_id":"([0-9a-f]{6,12})"/.exec(res.text);
    assert.ok(m, `the result names the chip: ${res.text.slice(0, 300)}`);
    deletedChipId = m[1] ?? m[2];
    const items = await until('the chip in the tree', async () => {
      const children = await api.tree.getChildren();
      return children.some((c) => c.id === deletedChipId) ? children : undefined;
    }, 10000);
    const item = api.tree.getTreeItem(items.find((c) => c.id === deletedChipId)!);
    assert.match(String(item.label), /line 5/);
    assert.match(String(item.description), /be-delete/);
  });

  it('"Insert at cursor" puts the deleted text back at the cursor line, and one undo reverts it', async () => {
    const doc = await vscode.workspace.openTextDocument(notes());
    const editor = await vscode.window.showTextDocument(doc);
    const cursorLine = 4; // 0-based: the line that now reads "line 8"
    editor.selection = new vscode.Selection(cursorLine, 0, cursorLine, 0);
    const chip = await api.chips().get(deletedChipId);
    assert.ok(chip, 'the chip exists');
    const ok = await vscode.commands.executeCommand('betterEditTools.chips.insertAtCursor', chip);
    assert.equal(ok, true);
    assert.equal(doc.getText(), original, 'the text is back where it was deleted');
    assert.equal(doc.lineAt(cursorLine).text, 'line 5', 'the chip text starts at the cursor line');
    await until('the save after the edit', () => !doc.isDirty, 5000);
    assert.equal(fs.readFileSync(notes(), 'utf8'), original, 'saved (the editor was clean before the edit)');
    await vscode.commands.executeCommand('undo');
    assert.equal(doc.lineAt(cursorLine).text, 'line 8', 'one Ctrl+Z removes the whole insertion');
    assert.ok(!doc.getText().includes('line 6'));
    await vscode.commands.executeCommand('redo');
    assert.equal(doc.getText(), original);
    await doc.save();
  });

  it("an agent's edit to a dirty editor edits the buffer, keeps the user's unsaved change, and is one undo step", async () => {
    const file = ws('src/scratch.txt');
    const onDisk = fs.readFileSync(file, 'utf8');
    const doc = await vscode.workspace.openTextDocument(file);
    const editor = await vscode.window.showTextDocument(doc);
    await editor.edit((b) => b.insert(new vscode.Position(0, 0), 'USER '));
    assert.ok(doc.isDirty);
    const res = await invoke('be-replace', { file: 'src/scratch.txt:3', content: 'AGENT 3' });
    assert.equal(res.threw, false, res.text);
    assert.equal(doc.lineAt(0).text, 'USER scratch 1', "the user's unsaved change is kept");
    assert.equal(doc.lineAt(2).text, 'AGENT 3', "the agent's edit is in the buffer");
    assert.ok(doc.isDirty, 'not saved for the user (saveAfterEdit = whenNotDirty)');
    assert.equal(fs.readFileSync(file, 'utf8'), onDisk, 'the disk file is untouched');
    await vscode.commands.executeCommand('undo');
    assert.equal(doc.lineAt(2).text, 'scratch 3', 'one undo reverts the agent edit');
    assert.equal(doc.lineAt(0).text, 'USER scratch 1', '…and only the agent edit');
    await vscode.commands.executeCommand('workbench.action.files.revert');
  });

  it('a failed call with invalid arguments creates a chip whose id is in the error text', async () => {
    const content = 'function lost() {\n  return "this content must not be lost";\n}\n';
    const res = await invoke('be-replace', { file: 'src/notes.txt:900-905', content });
    const m = /chip:\/\/([0-9a-f]{6,12})/.exec(res.text);
    assert.ok(m, `the error names a chip: ${res.text.slice(0, 400)}`);
    const chip = await api.chips().get(m[1]);
    assert.ok(chip, 'the chip is in the store');
    assert.equal(chip.tool, 'be-replace');
    assert.ok(chip.err_msg, 'it keeps the error');
    assert.equal(api.chips().originalText(chip), content, 'it keeps the content argument');
    const children = await until('the failed-call chip in the tree', async () => {
      const c = await api.tree.getChildren();
      return c.some((x) => x.id === chip.id) ? c : undefined;
    }, 10000);
    assert.equal(children[0].id, chip.id, 'newest first');
  });

  it('Preview opens the chip as a virtual document with the language of its file; Restore Last Deleted Text puts it back in place', async () => {
    const greet = ws('src/greet.ts');
    const before = fs.readFileSync(greet, 'utf8');
    const res = await invoke('be-delete', { file: 'src/greet.ts:5-8' });
    assert.equal(res.threw, false, res.text);
    assert.ok(!fs.readFileSync(greet, 'utf8').includes('farewell'));
    const chip = (await api.tree.getChildren())[0];
    assert.match(chip.preview, /export function farewell/);
    await vscode.commands.executeCommand('betterEditTools.chips.preview', chip);
    const doc = vscode.window.activeTextEditor?.document;
    assert.ok(doc && doc.uri.scheme === 'better-edit-chip', `preview document: ${doc?.uri.toString()}`);
    assert.equal(doc.languageId, 'typescript');
    assert.match(doc.getText(), /return words\.join/);
    await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
    const restored = await vscode.commands.executeCommand('betterEditTools.restoreLastDeleted');
    assert.equal(restored, true);
    assert.equal(fs.readFileSync(greet, 'utf8'), before, 'the function is back at lines 5-8');
  });

  it('Replay opens the failed call as JSON; saving the edited arguments runs the tool again; Delete removes a chip', async () => {
    const failed = (await api.tree.getChildren()).find((c) => c.tool === 'be-replace' && c.err_msg);
    assert.ok(failed, 'the failed be-replace chip from the previous test');
    await vscode.commands.executeCommand('betterEditTools.chips.replay', failed);
    const editor = vscode.window.activeTextEditor!;
    assert.ok(editor.document.fileName.endsWith(`be-replace-${failed.id}.json`), editor.document.fileName);
    const args = JSON.parse(editor.document.getText());
    assert.equal(args.file, 'src/notes.txt:900-905');
    args.file = 'src/notes.txt:20';
    await editor.edit((b) => b.replace(new vscode.Range(0, 0, editor.document.lineCount, 0), JSON.stringify(args, null, 2)));
    await editor.document.save();
    await until('the replayed edit', () => fs.readFileSync(notes(), 'utf8').includes('this content must not be lost'), 10000);
    await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
    const victim = await api.chips().saveContent('be-delete', 'to be deleted\n');
    await until('the new chip in the tree', async () => (await api.tree.getChildren()).some((c) => c.id === victim.chip.id), 5000);
    await vscode.commands.executeCommand('betterEditTools.chips.delete', victim.chip);
    assert.equal(await api.chips().get(victim.chip.id), undefined);
    // Leave notes.txt as layer 2 expects it.
    fs.writeFileSync(notes(), original);
  });

  it("VS Code's MCP session is recorded in ChatMemory (tool calls and results)", () => {
    const sessions = api.memory.sessions().filter((s) => !s.sessionId.startsWith('vscode-ui'));
    assert.ok(sessions.length >= 1, 'an MCP session from VS Code');
    assert.ok(sessions[0].messages >= 6, `calls and results were recorded: ${JSON.stringify(sessions[0])}`);
    assert.ok(sessions[0].usedTokens > 0);
  });

  it('context modes work from the packaged bundle: be-read structure (tree-sitter from dist/wasm) and be-overview', async () => {
    // Python: no Python extension in this VS Code, so the symbols can only come from the bundled grammar.
    const structure = await invoke('be-read', { file: 'src/math.py', mode: 'structure' });
    assert.equal(structure.threw, false, structure.text);
    assert.match(structure.text, /^\d+ lines, \d+ tokens \(structure\)(?: next: be-read \{.*\})?$/m);
    assert.match(structure.text, /\badd\b/);
    assert.match(structure.text, /\bmul\b/);
    console.log(`structure of math.py: ${structure.text.slice(0, 400)}`);
    assert.doesNotMatch(structure.text, /indent/i, `tree-sitter, not the indentation fallback: ${structure.text.slice(0, 300)}`);
    const overview = await invoke('be-overview', { budget: 512 });
    assert.equal(overview.threw, false, overview.text);
    assert.match(overview.text, / \d+ files, \d+ lines \(\d+ shown, /);
    assert.match(overview.text, /greet\.ts/);
  });

  it('context settings are honoured: be-read of a big file is structure under "auto", full under defaultReadMode "full"; the file watcher updates the overview', async function () {
    this.timeout(90000);
    const big = ws('src/big.ts');
    const body = Array.from({ length: 400 }, (_, i) => `export function compute${i}(order: { amount: number }): number {\n  return order.amount * ${i + 1} + ${i};\n}\n`).join('\n');
    fs.writeFileSync(big, body);
    const config = vscode.workspace.getConfiguration('betterEditTools');
    const auto = await invoke('be-read', { file: 'src/big.ts' });
    assert.equal(auto.threw, false, auto.text);
    assert.match(auto.text, /^\d+ lines, \d+ tokens \(structure\)(?: next: be-read \{.*\})?$/m, `auto: a big file answers with its structure: ${auto.text.slice(0, 200)}`);
    // VS Code's file watcher invalidated the new file: a warm overview finds it.
    const overview = await until('big.ts in the overview', async () => {
      const r = await invoke('be-overview', { budget: 2048, query: 'compute big' });
      return !r.threw && /big\.ts/.test(r.text) ? r : undefined;
    }, 20000);
    assert.match(overview.text, / \d+ files, \d+ lines \(\d+ shown, /);
    await config.update('context.defaultReadMode', 'full', vscode.ConfigurationTarget.Global);
    try {
      const full = await until('be-read in full mode', async () => {
        const r = await invoke('be-read', { file: 'src/big.ts' });
        return /^(?:\d+-\d+\/\d+ )?id=[\w.]+/m.test(r.text) ? r : undefined;
      }, 15000);
      assert.equal(full.threw, false, full.text);
      assert.match(full.text, /compute0/);
      console.log(`be-read under defaultReadMode=full: ${full.text.slice(0, 160)}`);
    } finally {
      await config.update('context.defaultReadMode', undefined, vscode.ConfigurationTarget.Global);
    }
    const back = await until('be-read back to auto', async () => {
      const r = await invoke('be-read', { file: 'src/big.ts' });
      return /^\d+ lines, \d+ tokens \(structure\)(?: next: be-read \{.*\})?$/m.test(r.text) ? r : undefined;
    }, 15000);
    assert.equal(back.threw, false);
  });

  it('memory settings apply live: memory.maxTokens changes the budget of the open sessions', async function () {
    this.timeout(30000);
    const config = vscode.workspace.getConfiguration('betterEditTools');
    const session = api.memory.sessions().find((s) => !s.sessionId.startsWith('vscode-ui'));
    assert.ok(session);
    await config.update('memory.maxTokens', 20000, vscode.ConfigurationTarget.Global);
    try {
      await until('the new budget', () => api.memory.peek(session.sessionId)?.stats().maxTokens === 20000 || undefined, 10000);
    } finally {
      await config.update('memory.maxTokens', undefined, vscode.ConfigurationTarget.Global);
    }
    await until('the default budget again', () => api.memory.peek(session.sessionId)?.stats().maxTokens === 40000 || undefined, 10000);
  });

  it("replies are sized for Visual Studio Code from the settings, and follow a change without a restart", async function () {
    this.timeout(60000);
    fs.writeFileSync(ws('src/wide.ts'), Array.from({ length: 3000 }, (_, i) => `export const value${i} = compute(${i}, "${'x'.repeat(i % 50)}");`).join('\n') + '\n');
    const ours = vscode.workspace.getConfiguration('betterEditTools');
    const pageLength = async () => (await invokeOk('be-read', { file: 'src/wide.ts', mode: 'full' })).length;
    // Copilot's default threshold (8192 characters of the text)
    const first = await pageLength();
    assert.ok(first <= 8192 && first > 4000, `a page within Copilot's 8192: ${first}`);
    await ours.update('replyMaxChars', 20000, vscode.ConfigurationTarget.Global);
    try {
      const wider = await until('a wider page', async () => { const n = await pageLength(); return n > 8192 ? n : undefined; }, 15000);
      assert.ok(wider <= 20000, `within the override: ${wider}`);
    } finally {
      await ours.update('replyMaxChars', undefined, vscode.ConfigurationTarget.Global);
    }
    await until('the default again', async () => ((await pageLength()) <= 8192 ? true : undefined), 15000);
    // No limit (replyMaxChars 0): be-read's own page, what a spill-disabled Copilot gets below
    await ours.update('replyMaxChars', 0, vscode.ConfigurationTarget.Global);
    let unlimited: number;
    try {
      unlimited = await until('an unlimited page', async () => { const n = await pageLength(); return n > 8192 ? n : undefined; }, 15000);
    } finally {
      await ours.update('replyMaxChars', undefined, vscode.ConfigurationTarget.Global);
    }
    await until('the default again', async () => ((await pageLength()) <= 8192 ? true : undefined), 15000);
    // Copilot's own two settings: registered by Copilot Chat where the build bundles it, else by the copilot-settings
    // fixture (test/e2e/copilot-settings, installed by scripts/e2e/ci-e2e.sh) with Copilot's defaults. VS Code's MCP
    // client sends the product name (`code-server` here), which takes the Visual Studio Code profile.
    console.log(`MCP client: ${vscode.env.appName}; Copilot Chat ${vscode.extensions.getExtension('GitHub.copilot-chat') ? 'built in' : 'absent'}; fixture ${vscode.extensions.getExtension('better-edit-tools-tests.copilot-settings') ? 'installed' : 'absent'}`);
    const copilot = () => vscode.workspace.getConfiguration('github.copilot.chat.agent');
    const threshold = 'largeToolResultsToDisk.thresholdBytes';
    const enabled = 'largeToolResultsToDisk.enabled';
    assert.equal(copilot().inspect(threshold)?.defaultValue, 8192, `${threshold} is not registered: the copilot-settings fixture is not installed`);
    assert.equal(copilot().inspect(enabled)?.defaultValue, true, `${enabled} is not registered: the copilot-settings fixture is not installed`);
    try {
      await copilot().update(threshold, 4096, vscode.ConfigurationTarget.Global);
      const smaller = await until('a page within 4096', async () => { const n = await pageLength(); return n <= 4096 ? n : undefined; }, 15000);
      assert.ok(smaller > 2000, `a page near 4096, not an empty one: ${smaller}`);
      // Spill off: Copilot keeps a long result inline, so no limit applies (hostProfiles.ts replyLimitFor)
      await copilot().update(enabled, false, vscode.ConfigurationTarget.Global);
      const free = await until('an unlimited page with spill off', async () => { const n = await pageLength(); return n > 8192 ? n : undefined; }, 15000);
      assert.equal(free, unlimited, 'spill off gives the same page as no limit');
      await copilot().update(enabled, undefined, vscode.ConfigurationTarget.Global);
      await until('4096 again with spill on', async () => ((await pageLength()) <= 4096 ? true : undefined), 15000);
    } finally {
      await copilot().update(threshold, undefined, vscode.ConfigurationTarget.Global);
      await copilot().update(enabled, undefined, vscode.ConfigurationTarget.Global);
    }
    const back = await until("Copilot's 8192 again", async () => { const n = await pageLength(); return n > 4096 && n <= 8192 ? n : undefined; }, 15000);
    assert.equal(back, first, 'the first page again after the reset');
  });

  it('chips are files in globalStorage, so every window and a restarted extension host see them', async () => {
    const dir = api.chipDir();
    assert.ok(dir.includes('globalStorage'), dir);
    const files = fs.readdirSync(dir).filter((f) => f.startsWith('chip-'));
    assert.ok(files.some((f) => f.includes(deletedChipId)), `${deletedChipId} is on disk in ${dir}: ${files.join(', ')}`);
  });

  it('Restart MCP Server gives a new port, and VS Code reconnects through resolveMcpServerDefinition', async function () {
    this.timeout(120000);
    const before = api.hostUrl();
    const url = await vscode.commands.executeCommand<string>('betterEditTools.restartServer');
    assert.ok(url && url !== before, `${before} -> ${url}`);
    await vscode.commands.executeCommand('workbench.mcp.startServer', '*', { waitForLiveTools: true });
    const res = await until('a call after the restart', async () => {
      const r = await invoke('be-read', { file: 'src/greet.ts:1-3' });
      return r.threw || !r.text.includes('greet') ? undefined : r;
    }, 60000);
    assert.match(res.text, /Hello/);
  });

  it('the stdio config for other clients names the stable launcher in globalStorage (not the versioned folder) and the workspace root', async () => {
    const text = await vscode.commands.executeCommand<string>('betterEditTools.copyConfig.cursor');
    const cfg = JSON.parse(text);
    const s = cfg.mcpServers['better-edit-tools'];
    assert.equal(s.command, 'node');
    assert.equal(s.args[0], api.cliLauncher);
    assert.ok(fs.existsSync(s.args[0]) && !s.args[0].includes(vscode.extensions.getExtension(EXT_ID)!.extensionPath), s.args[0]);
    // the host's own Node (code-server) or Electron as Node (desktop VS Code) runs it like `node` would
    const version = execFileSync(process.execPath, [s.args[0], '--version'], { env: { ...process.env, ELECTRON_RUN_AS_NODE: '1' }, encoding: 'utf8' });
    assert.match(version, /^better-edit-tools \d+\.\d+\.\d+\n$/);
    assert.deepEqual(s.args.slice(1), ['--root', vscode.workspace.workspaceFolders![0].uri.fsPath, '--chip-dir', api.chipDir()]);
  });
  it('Run Demo drives the real MCP server over HTTP: chips from a failed large call and a deletion, Insert at Cursor into the open file, the session in memory', async function () {
    this.timeout(120000);
    const r = await vscode.commands.executeCommand<DemoResult | undefined>('betterEditTools.runDemo', { confirm: false, stepMs: 0 });
    assert.ok(r, 'the demo ran');
    console.log(`demo: ${JSON.stringify(r)}`);
    assert.equal(r.file, ws('better-edit-demo.ts'));
    // The failed call and the deletion are chips in the tree, newest first.
    const children = await until('both demo chips in the tree', async () => {
      const c = await api.tree.getChildren();
      return c.some((x) => x.id === r.failedChipId) && c.some((x) => x.id === r.deletedChipId) ? c : undefined;
    }, 10000);
    const failed = children.find((c) => c.id === r.failedChipId)!;
    assert.equal(failed.tool, 'be-replace');
    assert.ok(failed.err_msg, 'the failed call kept its error');
    assert.match(children.find((c) => c.id === r.deletedChipId)!.preview, /legacyTax/);
    // Insert at Cursor put the failed call's content at the cursor line of the open editor, legacyTax() is gone.
    const editor = vscode.window.visibleTextEditors.find((e) => e.document.uri.fsPath === r.file);
    assert.ok(editor, 'the demo file is open');
    const lines = editor.document.getText().split('\n');
    assert.equal(lines[r.insertedAtLine - 1], '/** VAT by country, rounded to cents. */', lines.join('\n'));
    assert.match(lines[r.insertedAtLine], /^export function taxFor\(order: Order, country: string\): number \{$/);
    assert.ok(!lines.some((l) => l.includes('legacyTax')), 'the deleted function is gone');
    // The preview of the failed call's content is TypeScript (the chip names its target by a relative path).
    await vscode.commands.executeCommand('betterEditTools.chips.preview', failed);
    const preview = vscode.window.activeTextEditor?.document;
    assert.ok(preview && preview.uri.scheme === 'better-edit-chip', preview?.uri.toString());
    assert.equal(preview.languageId, 'typescript', preview.uri.toString());
    await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
    // The session went through the HTTP host: its calls and results are in ChatMemory (the Token Window's source).
    const memory = api.memory.peek(r.sessionId);
    assert.ok(memory, `session ${r.sessionId} is in the registry`);
    // In the window or, evicted by the small demo budget, among the fingerprints.
    const kinds = [...memory.visibleMessages(), ...memory.fingerprints()].map((m) => `${m.kind} ${m.tool ?? ''}`.trim());
    for (const k of ['tool_call be-write', 'tool_call be-replace', 'tool_result be-replace', 'tool_call be-delete', 'tool_call be-read']) {
      assert.ok(kinds.includes(k), `${k} recorded: ${kinds.join(', ')}`);
    }
    const stats = memory.stats();
    assert.equal(stats.maxTokens, 1000, 'the demo budget');
    assert.ok(stats.usedTokens > 500 && stats.evictions >= 1, `the window filled and slid: ${JSON.stringify(stats)}`);
    assert.ok(memory.fingerprints().length >= 1);
    assert.ok(r.steps.length >= 7, r.steps.join(' | '));
  });
});
