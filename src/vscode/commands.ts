/** Chip commands (tree items, palette) and server commands. Every edit is a be-* call through the MCP server. */
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ChipRecord } from '../core/chips/types';
import { chipPreviewUri, chipText } from './chipPreview';
import type { ChipSource } from './chipSource';
import { newestFirst } from './chipSource';
import { claudeCodeCommand, mcpServersJson, stdioLaunch } from './clientConfig';
import { launcherPath } from './cliLauncher';
import { relativeTime } from './relativeTime';
import type { DemoOptions } from './demo';
import type { CommandContext } from './commandContext';

export type { CommandContext } from './commandContext';

/**
 * Inserts a chip so that its text starts at the cursor line of the active editor: be-insert-chip with
 * `to` = "<file>:<cursor line - 1>" (insert after the line above). One WorkspaceEdit, so one Ctrl+Z.
 */
export async function insertChipAtCursor(ctx: CommandContext, chip: ChipRecord): Promise<boolean> {
  const editor = ctx.lastTextEditor();
  if (!editor || editor.document.uri.scheme !== 'file') {
    void vscode.window.showWarningMessage(vscode.l10n.t('Open a file and place the cursor where the chip should go.'));
    return false;
  }
  const line = editor.selection.active.line; // 0-based = number of lines above the cursor
  return insertChipAt(ctx, chip, editor.document.uri.fsPath, line);
}

async function insertChipAt(ctx: CommandContext, chip: ChipRecord, file: string, afterLine: number): Promise<boolean> {
  try {
    // No format: the tool's default follows the chips.replayFormat setting, for agents and for this command alike.
    const result = await ctx.tools.call('be-insert-chip', { from: `chip://${chip.id}`, to: `${file}:${afterLine}` });
    ctx.log.info(`inserted chip ${chip.id} into ${file} after line ${afterLine}: ${JSON.stringify(result).slice(0, 200)}`);
    return true;
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    ctx.log.error(`insert chip ${chip.id} failed: ${message}`);
    void vscode.window.showErrorMessage(vscode.l10n.t('Could not insert chip {0}: {1}', chip.id, message));
    return false;
  }
}

async function pickChip(ctx: CommandContext, placeHolder: string): Promise<ChipRecord | undefined> {
  const chips = ctx.services().chips;
  const all = newestFirst(await chips.list());
  if (all.length === 0) {
    void vscode.window.showInformationMessage(vscode.l10n.t('There are no chips.'));
    return undefined;
  }
  const now = Date.now();
  const picked = await vscode.window.showQuickPick(
    all.map((chip) => ({
      label: chip.preview || chip.id,
      description: `${chip.tool} · ${relativeTime(chip.created_ms, now)} · chip://${chip.id}`,
      detail: chip.err_msg ?? (chip.file ? `${chip.file}${chip.range ? `:${chip.range.start}-${chip.range.end}` : ''}` : undefined),
      chip,
    })),
    { placeHolder, matchOnDescription: true, matchOnDetail: true },
  );
  return picked?.chip;
}

export function registerCommands(ctx: CommandContext): vscode.Disposable[] {
  const chips = () => ctx.services().chips;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the callback type of vscode.commands.registerCommand
  const reg = (id: string, fn: (...args: any[]) => unknown) => vscode.commands.registerCommand(id, fn);

  const preview = async (chip: ChipRecord) => {
    const hasText = chips().originalText(chip) !== undefined;
    const doc = await vscode.workspace.openTextDocument(chipPreviewUri(chip, hasText));
    await vscode.window.showTextDocument(doc, { preview: true, preserveFocus: false });
  };
  const copy = async (chip: ChipRecord) => {
    await vscode.env.clipboard.writeText(chipText(chips(), chip));
    void vscode.window.setStatusBarMessage(vscode.l10n.t('Chip {0} copied', chip.id), 3000);
  };

  return [
    reg('betterEditTools.chips.insertAtCursor', (chip: ChipRecord) => insertChipAtCursor(ctx, chip)),
    reg('betterEditTools.chips.preview', preview),
    reg('betterEditTools.chips.copy', copy),
    reg('betterEditTools.chips.replay', (chip: ChipRecord) => openReplay(ctx, chip)),
    reg('betterEditTools.chips.delete', async (chip: ChipRecord) => {
      await chips().delete(chip.id);
    }),
    reg('betterEditTools.chips.refresh', async () => {
      const store = chips() as ChipSource & { reload?: () => Promise<unknown> };
      if (store.reload) await store.reload();
      else ctx.tree.refresh();
    }),
    reg('betterEditTools.chips.filter', async () => {
      const value = await vscode.window.showInputBox({
        prompt: vscode.l10n.t('Show chips whose text, file, tool or error contains (empty = all)'),
        value: ctx.tree.filter,
      });
      if (value !== undefined) ctx.tree.setFilter(value);
    }),
    reg('betterEditTools.chips.clear', async (opts?: { confirm?: boolean }) => {
      const n = (await chips().list()).length;
      if (n === 0) return 0;
      if (opts?.confirm !== false) {
        const yes = vscode.l10n.t('Clear');
        const answer = await vscode.window.showWarningMessage(vscode.l10n.t('Delete all {0} chips? This cannot be undone.', n), { modal: true }, yes);
        if (answer !== yes) return 0;
      }
      const store = chips();
      if (store.clear) await store.clear();
      else for (const c of await store.list()) await store.delete(c.id);
      return n;
    }),
    reg('betterEditTools.recoverChip', async () => {
      const chip = await pickChip(ctx, vscode.l10n.t('Recover which chip?'));
      if (!chip) return;
      const insert = vscode.l10n.t('Insert at cursor');
      const open = vscode.l10n.t('Open preview');
      const copyIt = vscode.l10n.t('Copy to clipboard');
      const action = await vscode.window.showQuickPick([insert, open, copyIt], { placeHolder: chip.preview });
      if (action === insert) await insertChipAtCursor(ctx, chip);
      else if (action === open) await preview(chip);
      else if (action === copyIt) await copy(chip);
    }),
    reg('betterEditTools.restoreLastDeleted', async () => {
      const chip = newestFirst(await chips().list()).find((c) => chips().originalText(c) !== undefined && !c.err_msg);
      if (!chip) {
        void vscode.window.showInformationMessage(vscode.l10n.t('No deleted text to restore.'));
        return false;
      }
      // Put it back where it was removed from; without a location, at the cursor.
      if (chip.file && chip.range) return insertChipAt(ctx, chip, chip.file, chip.range.start - 1);
      return insertChipAtCursor(ctx, chip);
    }),
    reg('betterEditTools.showServerInfo', async () => {
      let state = ctx.host.state;
      if (state.kind === 'stopped') {
        await ctx.host.ensureStarted().catch(() => undefined);
        state = ctx.host.state;
      }
      const info = {
        state: state.kind,
        url: state.kind === 'running' ? state.handle.url : undefined,
        error: state.kind === 'error' ? state.message : undefined,
        roots: ctx.roots(),
        chips: (await chips().list()).length,
        // loaded here: the tool table (the zod schemas of every tool) is not evaluated at every VS Code start
        // eslint-disable-next-line @typescript-eslint/no-require-imports -- lazy on purpose (above)
        tools: (require('../mcp/tools/index') as typeof import('../mcp/tools/index')).toolTable.map((t) => t.name),
        chipDir: (chips() as { dir?: string }).dir,
        stdio: stdioLaunch(launcherPath(ctx.globalStorage.fsPath), ctx.roots(), { chipDir: ctx.chipDir() }),
      };
      ctx.log.info(`server info: ${JSON.stringify(info)}`);
      const showLog = vscode.l10n.t('Show Log');
      const copyUrl = vscode.l10n.t('Copy URL');
      void vscode.window
        .showInformationMessage(
          vscode.l10n.t('Better Edit Tools MCP server: {0}{1} · {2} tools · {3} chips', state.kind, info.url ? ` ${info.url}` : '', info.tools.length, info.chips),
          copyUrl, showLog)
        .then((a) => {
          if (a === showLog) ctx.log.show();
          if (a === copyUrl && info.url) void vscode.env.clipboard.writeText(info.url);
        });
      return info;
    }),
    reg('betterEditTools.restartServer', async () => {
      const handle = await ctx.host.restart();
      void vscode.window.showInformationMessage(
        handle ? vscode.l10n.t('Better Edit Tools MCP server restarted on {0}', handle.url) : vscode.l10n.t('Better Edit Tools MCP server is disabled.'));
      return handle?.url;
    }),
    ...(['claudeCode', 'cursor', 'claudeDesktop'] as const).map((client) =>
      reg(`betterEditTools.copyConfig.${client}`, async () => {
        const launch = stdioLaunch(launcherPath(ctx.globalStorage.fsPath), ctx.roots(), { chipDir: ctx.chipDir() });
        const text = client === 'claudeCode' ? claudeCodeCommand(launch) : mcpServersJson(launch);
        await vscode.env.clipboard.writeText(text);
        const where = { claudeCode: vscode.l10n.t('Run it in a terminal.'), cursor: vscode.l10n.t('Merge it into ~/.cursor/mcp.json or .cursor/mcp.json.'), claudeDesktop: vscode.l10n.t('Merge it into claude_desktop_config.json and restart Claude Desktop.') }[client];
        void vscode.window.showInformationMessage(vscode.l10n.t('MCP config copied. {0}', where));
        return text;
      })),
    reg('betterEditTools.showActions', async () => {
      const actions: { label: string; command: string }[] = [
        { label: `$(history) ${vscode.l10n.t('Recover Chip…')}`, command: 'betterEditTools.recoverChip' },
        { label: `$(discard) ${vscode.l10n.t('Restore Last Deleted Text')}`, command: 'betterEditTools.restoreLastDeleted' },
        { label: `$(info) ${vscode.l10n.t('Show MCP Server Info')}`, command: 'betterEditTools.showServerInfo' },
        { label: `$(debug-restart) ${vscode.l10n.t('Restart MCP Server')}`, command: 'betterEditTools.restartServer' },
        { label: `$(copy) ${vscode.l10n.t('Copy MCP Config for Claude Code')}`, command: 'betterEditTools.copyConfig.claudeCode' },
        { label: `$(copy) ${vscode.l10n.t('Copy MCP Config for Cursor')}`, command: 'betterEditTools.copyConfig.cursor' },
        { label: `$(copy) ${vscode.l10n.t('Copy MCP Config for Claude Desktop')}`, command: 'betterEditTools.copyConfig.claudeDesktop' },
        { label: `$(clear-all) ${vscode.l10n.t('Clear Chips')}`, command: 'betterEditTools.chips.clear' },
        { label: `$(output) ${vscode.l10n.t('Show Log')}`, command: 'betterEditTools.showLog' },
        { label: `$(play) ${vscode.l10n.t('Run Demo')}`, command: 'betterEditTools.runDemo' },
      ];
      const all = await vscode.commands.getCommands(true);
      if (all.includes('betterEditTools.showTokenWindow')) {
        actions.splice(4, 0, { label: `$(pulse) ${vscode.l10n.t('Show Token Window')}`, command: 'betterEditTools.showTokenWindow' });
      }
      const picked = await vscode.window.showQuickPick(actions, { placeHolder: vscode.l10n.t('Better Edit Tools') });
      if (picked) await vscode.commands.executeCommand(picked.command);
    }),
    reg('betterEditTools.showLog', () => ctx.log.show()),
    // the demo's MCP client is loaded when the demo runs, not at activation
    reg('betterEditTools.runDemo', async (opts?: DemoOptions) => (await import('./demo')).runDemo(ctx, opts)),
  ];
}

/**
 * Replay: the failed call's arguments open as a JSON file (under global storage); saving it — or the "Run" button —
 * runs the tool again with the edited arguments.
 */
async function openReplay(ctx: CommandContext, chip: ChipRecord): Promise<void> {
  const dir = vscode.Uri.joinPath(ctx.globalStorage, 'replay');
  await vscode.workspace.fs.createDirectory(dir);
  const uri = vscode.Uri.joinPath(dir, `${chip.tool}-${chip.id}.json`);
  await vscode.workspace.fs.writeFile(uri, Buffer.from(JSON.stringify(chip.args, null, 2) + '\n'));
  const doc = await vscode.workspace.openTextDocument(uri);
  await vscode.window.showTextDocument(doc);
  const run = vscode.l10n.t('Run {0}', chip.tool);
  void vscode.window
    .showInformationMessage(vscode.l10n.t('Edit the arguments, then save the file or press Run to call {0} again.', chip.tool), run)
    .then(async (a) => {
      if (a === run) await replayFromDocument(ctx, chip.tool, doc);
    });
}

/** Called on save of a replay document, and by the Run button. */
export async function replayFromDocument(ctx: CommandContext, tool: string, doc: vscode.TextDocument): Promise<boolean> {
  let args: Record<string, unknown>;
  try {
    args = JSON.parse(doc.getText());
    if (typeof args !== 'object' || args === null || Array.isArray(args)) throw new Error(vscode.l10n.t('expected a JSON object of named arguments'));
  } catch (err) {
    void vscode.window.showErrorMessage(vscode.l10n.t('The arguments are not valid JSON: {0}', String(err)));
    return false;
  }
  try {
    const result = await ctx.tools.call(tool, args);
    ctx.log.info(`replayed ${tool}: ${JSON.stringify(result).slice(0, 300)}`);
    void vscode.window.showInformationMessage(vscode.l10n.t('{0} succeeded.', tool));
    return true;
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    ctx.log.error(`replay of ${tool} failed: ${message}`);
    void vscode.window.showErrorMessage(vscode.l10n.t('{0} failed: {1}', tool, message));
    return false;
  }
}

/** `<tool>-<id>.json` in the replay directory → the tool name. */
export function replayToolOf(ctx: CommandContext, uri: vscode.Uri): string | undefined {
  const dir = vscode.Uri.joinPath(ctx.globalStorage, 'replay').fsPath;
  if (path.dirname(uri.fsPath) !== dir) return undefined;
  const m = /^(be-[a-z-]+)-[0-9a-f]{6,12}\.json$/.exec(path.basename(uri.fsPath));
  return m?.[1];
}
