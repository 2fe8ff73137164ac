/**
 * "Register for Agent Host Harnesses" / "Remove from Agent Host Harnesses": our stdio server in the workspace
 * folder's `.mcp.json`, the config the Copilot, Claude and Codex Agent Host harnesses all read (see
 * agentHostConfig.ts). It starts the stable launcher in globalStorage (cliLauncher.ts), which survives updates.
 * The provider registration (mcpProvider.ts) stays for the local harness. Each command shows what it will write
 * and asks first; `{ confirm: false }` skips the question (the e2e test passes it; nothing in the UI does).
 */
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { agentHostEntry, MCP_JSON, planRegister, planRemove, type Plan } from './agentHostConfig';
import { SERVER_NAME, stdioLaunch } from './clientConfig';
import { launcherPath } from './cliLauncher';
import type { CommandContext } from './commandContext';

export interface AgentHostArgs {
  /** The workspace folder whose .mcp.json to edit (default: the only one, else a quick pick). */
  folder?: string;
  /** false: write without asking (tests). */
  confirm?: boolean;
}

export interface AgentHostResult {
  file: string;
  kind: Plan['kind'];
}

async function readOrUndefined(file: string): Promise<string | undefined> {
  try {
    return await fs.readFile(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
}

async function pickFolder(args: AgentHostArgs): Promise<string | undefined> {
  if (args.folder) return args.folder;
  const folders = (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file');
  if (folders.length === 0) {
    void vscode.window.showWarningMessage(vscode.l10n.t('Open a folder first: the Agent Host harnesses read .mcp.json in a workspace folder.'));
    return undefined;
  }
  if (folders.length === 1) return folders[0].uri.fsPath;
  const picked = await vscode.window.showWorkspaceFolderPick({ placeHolder: vscode.l10n.t('Which folder\'s .mcp.json?') });
  return picked?.uri.fsPath;
}

/** Same folder, a temp name, then rename: a harness reading the file never sees half of it. */
async function writeAtomic(file: string, text: string): Promise<void> {
  const tmp = `${file}.${process.pid}.${Date.now()}.tmp`;
  await fs.writeFile(tmp, text);
  try {
    await fs.rename(tmp, file);
  } catch (e) {
    await fs.rm(tmp, { force: true });
    throw e;
  }
}

async function run(ctx: CommandContext, args: AgentHostArgs, remove: boolean): Promise<AgentHostResult | undefined> {
  const folder = await pickFolder(args);
  if (!folder) return undefined;
  const file = path.join(folder, MCP_JSON);
  const entry = agentHostEntry(stdioLaunch(launcherPath(ctx.globalStorage.fsPath), [folder], { chipDir: ctx.chipDir() }));
  const plan = (text: string | undefined) => (remove ? planRemove(text, file) : planRegister(text, entry, file));
  let before: string | undefined;
  let p: Plan;
  try {
    before = await readOrUndefined(file);
    p = plan(before);
  } catch (e) {
    void vscode.window.showErrorMessage((e as Error).message);
    return undefined;
  }
  if (p.kind === 'unchanged' || p.kind === 'absent') {
    void vscode.window.showInformationMessage(p.kind === 'unchanged'
      ? vscode.l10n.t('{0} already registers Better Edit Tools as it would be written: nothing changed.', file)
      : vscode.l10n.t('{0} has no Better Edit Tools entry: nothing changed.', file));
    return { file, kind: p.kind };
  }
  if (args.confirm !== false) {
    const action = remove ? vscode.l10n.t('Remove') : vscode.l10n.t('Write');
    const what = {
      create: vscode.l10n.t('Create {0} with this server:', file),
      add: vscode.l10n.t('Add this server to {0} (other servers stay as they are):', file),
      update: vscode.l10n.t('Replace the Better Edit Tools entry in {0} with:', file),
      remove: p.text === undefined
        ? vscode.l10n.t('Delete {0}: it holds nothing but this entry:', file)
        : vscode.l10n.t('Remove this entry from {0} (other servers stay as they are):', file),
    }[p.kind];
    const shown = JSON.stringify({ [SERVER_NAME]: p.kind === 'remove' ? p.previous : entry }, null, 2);
    const was = p.kind === 'update' ? `\n\n${vscode.l10n.t('It was:')}\n${JSON.stringify(p.previous, null, 2)}` : '';
    // the paths are this machine's: a note so the file is not committed for the team as is
    const note = remove ? '' : `\n\n${vscode.l10n.t('The paths are this machine\'s: keep .mcp.json out of version control, or share the plugin instead.')}`;
    const answer = await vscode.window.showInformationMessage(
      remove ? vscode.l10n.t('Remove Better Edit Tools from the Agent Host harnesses?') : vscode.l10n.t('Register Better Edit Tools for the Agent Host harnesses?'),
      { modal: true, detail: `${what}\n\n${shown}${was}${note}` },
      action,
    );
    if (answer !== action) return undefined;
    // the file may have changed while the question was open: write only over what was shown
    if ((await readOrUndefined(file)) !== before) {
      void vscode.window.showWarningMessage(vscode.l10n.t('{0} changed while you were looking: nothing written. Run the command again.', file));
      return undefined;
    }
  }
  try {
    if (p.text === undefined) await fs.rm(file, { force: true });
    else await writeAtomic(file, p.text);
  } catch (e) {
    void vscode.window.showErrorMessage(vscode.l10n.t('Could not write {0}: {1}', file, (e as Error).message));
    return undefined;
  }
  ctx.log.info(`agent host harnesses: ${p.kind} ${SERVER_NAME} in ${file}`);
  void vscode.window.showInformationMessage(remove
    ? vscode.l10n.t('Removed Better Edit Tools from {0}.', file)
    : vscode.l10n.t('Registered Better Edit Tools in {0}. Agent Host harnesses started from now on use it.', file));
  return { file, kind: p.kind };
}

export function registerAgentHostCommands(ctx: CommandContext): vscode.Disposable[] {
  return [
    vscode.commands.registerCommand('betterEditTools.registerForAgentHost', (args?: AgentHostArgs) => run(ctx, args ?? {}, false)),
    vscode.commands.registerCommand('betterEditTools.unregisterForAgentHost', (args?: AgentHostArgs) => run(ctx, args ?? {}, true)),
  ];
}
