// The commands that put our server into the workspace .mcp.json for the Agent Host harnesses, run in the real
// extension host (code-server) against the installed .vsix. `{ confirm: false }` skips the modal preview.
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import type { AgentHostResult } from '../../../src/vscode/agentHostCommand';
import * as vscode from 'vscode';
import { activate, ws } from '../support/host';

const REGISTER = 'betterEditTools.registerForAgentHost';
const REMOVE = 'betterEditTools.unregisterForAgentHost';
const run = async (id: string) => (await vscode.commands.executeCommand<AgentHostResult | undefined>(id, { confirm: false }))!;

describe('Agent Host harnesses: .mcp.json', () => {
  let launcher = '';
  let chipDir = '';
  const file = () => ws('.mcp.json');
  before(async () => {
    const api = await activate();
    launcher = api.cliLauncher;
    chipDir = api.chipDir();
  });
  after(() => fs.rmSync(file(), { force: true }));

  it('both commands are contributed with titles', async () => {
    const pkg = vscode.extensions.getExtension('better-edit-tools.better-edit-tools')!.packageJSON;
    for (const id of [REGISTER, REMOVE]) {
      const c = pkg.contributes.commands.find((x: { command: string }) => x.command === id);
      assert.ok(c && c.title, `${id} has a title`);
    }
    const all = await vscode.commands.getCommands(true);
    assert.ok(all.includes(REGISTER) && all.includes(REMOVE));
  });

  it('adds our entry beside another server, a second run changes nothing, remove gives the file back', async () => {
    const folder = vscode.workspace.workspaceFolders![0].uri.fsPath;
    const original = '{\n  "mcpServers": {\n    "theirs": { "command": "their-server", "args": ["--flag"] }\n  }\n}\n';
    fs.writeFileSync(file(), original);

    const first = await run(REGISTER);
    assert.deepEqual(first, { file: file(), kind: 'add' });
    const written = fs.readFileSync(file(), 'utf8');
    assert.ok(written.includes('"theirs": { "command": "their-server", "args": ["--flag"] }'), written);
    const entry = JSON.parse(written).mcpServers['better-edit-tools'];
    assert.deepEqual(entry, { type: 'stdio', command: 'node', args: [launcher, '--root', folder, '--chip-dir', chipDir] });
    // the entry starts the installed extension's server through the stable launcher in globalStorage
    assert.ok(launcher.includes('globalStorage'), launcher);
    assert.match(execFileSync(process.execPath, [entry.args[0], '--version'], { encoding: 'utf8', timeout: 30000 }), /^better-edit-tools \d+\.\d+\.\d+/);

    const mtime = fs.statSync(file()).mtimeMs;
    assert.deepEqual(await run(REGISTER), { file: file(), kind: 'unchanged' });
    assert.equal(fs.readFileSync(file(), 'utf8'), written);
    assert.equal(fs.statSync(file()).mtimeMs, mtime, 'not even rewritten');

    assert.deepEqual(await run(REMOVE), { file: file(), kind: 'remove' });
    assert.equal(fs.readFileSync(file(), 'utf8'), original, 'only our entry went');
    assert.deepEqual(await run(REMOVE), { file: file(), kind: 'absent' });
  });

  it('creates the file when there is none and deletes it again on remove', async () => {
    fs.rmSync(file(), { force: true });
    assert.equal((await run(REGISTER)).kind, 'create');
    assert.deepEqual(Object.keys(JSON.parse(fs.readFileSync(file(), 'utf8')).mcpServers), ['better-edit-tools']);
    assert.equal((await run(REMOVE)).kind, 'remove');
    assert.ok(!fs.existsSync(file()), 'the file held only our entry: gone');
  });

  it('refuses a .mcp.json that does not parse and leaves it as it was', async () => {
    const broken = '{ "mcpServers": { "theirs": ';
    fs.writeFileSync(file(), broken);
    assert.equal(await vscode.commands.executeCommand(REGISTER, { confirm: false }), undefined);
    assert.equal(fs.readFileSync(file(), 'utf8'), broken);
    fs.rmSync(file());
  });
});
