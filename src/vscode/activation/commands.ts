/**
 * The commands composer. Each command module registers its commands from the one CommandContext; adding a
 * module is one line in COMMAND_MODULES.
 */
import * as vscode from 'vscode';
import type { CommandContext } from '../commandContext';
import { registerAgentHostCommands } from '../agentHostCommand';
import { registerCommands, replayFromDocument, replayToolOf } from '../commands';
import type { Shell } from './shell';

/** Registers a group of commands (or listeners that run them); returns what to dispose with the extension. */
export type CommandModule = (ctx: CommandContext) => vscode.Disposable[];

/** Saving a replay document (commands.ts, "Replay") runs its tool again with the edited arguments. */
export const replayOnSave: CommandModule = (ctx) => [
  vscode.workspace.onDidSaveTextDocument((doc) => {
    const tool = replayToolOf(ctx, doc.uri);
    if (tool) void replayFromDocument(ctx, tool, doc);
  }),
];

export const COMMAND_MODULES: readonly CommandModule[] = [
  registerCommands, // chips, server info and restart, client configs, actions, demo
  replayOnSave,
  registerAgentHostCommands, // the workspace .mcp.json for the Agent Host harnesses
];

/**
 * The editor the commands act on: the active one, else the last file editor (a click in a tree leaves the active
 * editor alone, a webview or the output panel does not).
 */
export function lastTextEditorTracker(shell: Shell): () => vscode.TextEditor | undefined {
  let lastEditor = vscode.window.activeTextEditor;
  shell.own(vscode.window.onDidChangeActiveTextEditor((e) => {
    if (e && e.document.uri.scheme === 'file') lastEditor = e;
  }));
  return () => {
    const active = vscode.window.activeTextEditor;
    if (active && active.document.uri.scheme === 'file') return active;
    if (lastEditor && !lastEditor.document.isClosed) {
      return vscode.window.visibleTextEditors.find((e) => e.document === lastEditor!.document) ?? lastEditor;
    }
    return vscode.window.visibleTextEditors.find((e) => e.document.uri.scheme === 'file');
  };
}

export function composeCommands(shell: Shell, ctx: CommandContext, modules: readonly CommandModule[] = COMMAND_MODULES): void {
  for (const register of modules) shell.own(...register(ctx));
}
