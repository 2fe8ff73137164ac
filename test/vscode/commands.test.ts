/**
 * The extension's commands (src/vscode/commands.ts and the commands composer) through the vscode double, over real
 * services in a temp workspace: chips inserted and restored into the editor's file, the clear confirmation, the
 * filter, the copied client configs, server info and restart, replay of a failed call, and the composer's list.
 */
import { double, testLog } from './double/install';
import assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { createServices, type Services } from '../../src/mcp/services';
import { ChipTreeProvider } from '../../src/vscode/chipTree';
import type { CommandContext } from '../../src/vscode/commandContext';
import { registerCommands, replayFromDocument, replayToolOf } from '../../src/vscode/commands';
import { McpHostController } from '../../src/vscode/mcpHost';
import { UiTools } from '../../src/vscode/uiTools';
import { COMMAND_MODULES, composeCommands, replayOnSave, type CommandModule } from '../../src/vscode/activation/commands';
import type { Shell } from '../../src/vscode/activation/shell';

const run = (id: string, ...args: unknown[]) => vscode.commands.executeCommand(id, ...args) as Promise<unknown>;

describe('vscode/commands (through the vscode double)', () => {
  let base: string;
  let root: string;
  let services: Services;
  let ctx: CommandContext;
  let disposables: vscode.Disposable[];
  let hostStarts = 0;

  beforeEach(async () => {
    double.reset();
    base = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'bet-commands-')));
    root = path.join(base, 'ws');
    await fs.mkdir(root);
    await fs.writeFile(path.join(root, 'a.ts'), 'one\ntwo\nthree\n');
    services = await createServices({ roots: [root], chipDir: path.join(base, 'chips'), historyDir: path.join(base, 'history') });
    double.setFolders([root], false);
    hostStarts = 0;
    const host = new McpHostController(async () => ({ url: `http://127.0.0.1:${5000 + ++hostStarts}/mcp`, port: 5000 + hostStarts, token: 't', close: () => undefined }), () => true, testLog());
    const tree = new ChipTreeProvider(services.chips);
    const tools = new UiTools(services.deps);
    ctx = {
      tools,
      services: () => ({ deps: services.deps, chips: services.chips }),
      host,
      tree,
      log: testLog(),
      extensionPath: base,
      globalStorage: vscode.Uri.file(path.join(base, 'storage')),
      roots: () => [root],
      chipDir: () => path.join(base, 'chips'),
      lastTextEditor: () => double.activeEditor as unknown as vscode.TextEditor | undefined,
    };
    disposables = [...registerCommands(ctx), ...replayOnSave(ctx), host, tree];
  });
  afterEach(async () => {
    for (const d of disposables) d.dispose();
    await services.close();
    await fs.rm(base, { recursive: true, force: true });
  });

  it('Restore Last Deleted Text puts deleted lines back where they were', async () => {
    await ctx.tools.call('be-delete', { file: `${path.join(root, 'a.ts')}:2` });
    assert.equal(await fs.readFile(path.join(root, 'a.ts'), 'utf8'), 'one\nthree\n');
    assert.equal(await run('betterEditTools.restoreLastDeleted'), true);
    assert.equal(await fs.readFile(path.join(root, 'a.ts'), 'utf8'), 'one\ntwo\nthree\n');
  });

  it('Restore with no deleted text says so', async () => {
    assert.equal(await run('betterEditTools.restoreLastDeleted'), false);
    assert.deepEqual(double.recorded.messages.map((m) => m.text), ['No deleted text to restore.']);
  });

  it('Insert at cursor puts a chip\'s text at the cursor line of the editor\'s file', async () => {
    const del = await ctx.tools.call('be-delete', { file: `${path.join(root, 'a.ts')}:1` });
    await fs.writeFile(path.join(root, 'b.ts'), 'x\ny\n');
    await double.open(path.join(root, 'b.ts'), { visible: true });
    double.activeEditor!.selection = new vscode.Selection(1, 0, 1, 0);
    const chip = (await services.chips.list()).find((c) => c.id === del.chip_id)!;
    assert.equal(await run('betterEditTools.chips.insertAtCursor', chip), true);
    assert.equal(await fs.readFile(path.join(root, 'b.ts'), 'utf8'), 'x\none\ny\n'); // (these services write to disk)
  });

  it('Insert at cursor without a file editor warns and changes nothing', async () => {
    const del = await ctx.tools.call('be-delete', { file: `${path.join(root, 'a.ts')}:1` });
    const chip = (await services.chips.list()).find((c) => c.id === del.chip_id)!;
    assert.equal(await run('betterEditTools.chips.insertAtCursor', chip), false);
    assert.match(double.recorded.messages[0]!.text, /Open a file and place the cursor/);
  });

  it('Clear Chips asks first: cancelled keeps them, confirmed deletes them all', async () => {
    await ctx.tools.call('be-delete', { file: `${path.join(root, 'a.ts')}:1` });
    await ctx.tools.call('be-delete', { file: `${path.join(root, 'a.ts')}:1` });
    double.answers.push(undefined);
    assert.equal(await run('betterEditTools.chips.clear'), 0);
    assert.equal((await services.chips.list()).length, 2);
    assert.match(double.recorded.messages[0]!.text, /Delete all 2 chips\?/);
    double.answers.push('Clear');
    assert.equal(await run('betterEditTools.chips.clear'), 2);
    assert.equal((await services.chips.list()).length, 0);
  });

  it('Filter sets the tree\'s filter from the input box; Escape leaves it', async () => {
    double.answers.push('two');
    await run('betterEditTools.chips.filter');
    assert.equal(ctx.tree.filter, 'two');
    assert.ok(double.recorded.executed.some((e) => e.command === 'setContext' && e.args[0] === 'betterEditTools.chipsFiltered' && e.args[1] === true));
    double.answers.push(undefined);
    await run('betterEditTools.chips.filter');
    assert.equal(ctx.tree.filter, 'two');
  });

  it('Copy MCP Config puts a stdio launch of the folders on the clipboard', async () => {
    const line = (await run('betterEditTools.copyConfig.claudeCode')) as string;
    assert.match(line, /^claude mcp add --transport stdio better-edit-tools -- /);
    assert.ok(line.includes(root));
    assert.equal(double.recorded.clipboard, line);
    const json = JSON.parse((await run('betterEditTools.copyConfig.cursor')) as string);
    assert.ok(json.mcpServers['better-edit-tools'].args.includes(root));
  });

  it('Server Info starts an idle server and reports it; Restart gives a new URL', async () => {
    const info = (await run('betterEditTools.showServerInfo')) as { state: string; url: string; roots: string[]; tools: string[] };
    assert.equal(info.state, 'running');
    assert.equal(info.url, 'http://127.0.0.1:5001/mcp');
    assert.deepEqual(info.roots, [root]);
    assert.ok(info.tools.includes('be-read'));
    assert.equal(await run('betterEditTools.restartServer'), 'http://127.0.0.1:5002/mcp');
  });

  it('Replay: bad JSON is refused with a message; saving the edited arguments runs the tool', async () => {
    const failed = await ctx.tools.call('be-replace', { file: `${path.join(root, 'a.ts')}:90-91`, content: 'never\n' }).catch((e: Error) => e);
    assert.ok(failed instanceof Error);
    const chip = (await services.chips.list()).find((c) => c.err_msg)!;
    const replayDir = path.join(base, 'storage', 'replay');
    await fs.mkdir(replayDir, { recursive: true });
    const file = path.join(replayDir, `${chip.tool}-${chip.id}.json`);
    await fs.writeFile(file, '{ not json');
    const doc = await double.open(file);
    assert.equal(replayToolOf(ctx, doc.uri as unknown as vscode.Uri), 'be-replace');
    assert.equal(replayToolOf(ctx, vscode.Uri.file(path.join(root, `be-replace-${chip.id}.json`))), undefined, 'only files of the replay folder');
    assert.equal(await replayFromDocument(ctx, 'be-replace', doc as unknown as vscode.TextDocument), false);
    assert.match(double.recorded.messages.at(-1)!.text, /not valid JSON/);
    doc.replaceAll(JSON.stringify({ file: `${path.join(root, 'a.ts')}:2`, content: 'TWO\n' }));
    await doc.save(); // replayOnSave runs the tool
    await new Promise((r) => setTimeout(r, 200));
    assert.equal(await fs.readFile(path.join(root, 'a.ts'), 'utf8'), 'one\nTWO\nthree\n');
    assert.equal(double.recorded.messages.at(-1)!.text, 'be-replace succeeded.');
  });

  it('the composer registers every module of its list; a new module is one more entry', () => {
    for (const d of disposables.splice(0, disposables.length - 2)) d.dispose(); // the commands registered above
    const owned: vscode.Disposable[] = [];
    const shell = { own: (...d: vscode.Disposable[]) => owned.push(...d) } as unknown as Shell;
    const extra: CommandModule = () => [vscode.commands.registerCommand('betterEditTools.test.extra', () => 'extra')];
    composeCommands(shell, ctx, [...COMMAND_MODULES, extra]);
    assert.ok(double.commands.has('betterEditTools.test.extra'));
    assert.ok(double.commands.has('betterEditTools.chips.clear'));
    for (const d of owned) d.dispose();
    assert.equal(double.commands.size, 0, 'all of them go with the extension');
  });
});
