/**
 * The VS Code extension: composes the core with a VS Code FileStore, serves the be-* tools over a loopback
 * MCP host registered with VS Code (and Cursor), and shows chips, agent edits and the token window. activate()
 * only orders the composers of src/vscode/activation/, each of which registers one concern.
 */
import * as vscode from 'vscode';
import type { ChipStore } from '../core/chips/node/store';
import type { MemoryRegistry } from '../core/memory/node/registry';
import type { RecallStore } from '../core/memory/node/recallStore';
import type { TurnLog } from '../core/memory/node/turnLog';
import type { AgentEdits } from './agentEdits/register';
import type { BetterEditParticipant } from './chat/participant';
import type { ChipTreeProvider } from './chipTree';
import { launcherPath, refreshLauncher } from './cliLauncher';
import type { CommandContext } from './commandContext';
import { chipDirOf, liveDeps } from './compose';
import { UiTools } from './uiTools';
import { composeChips } from './activation/chips';
import { composeCommands, lastTextEditorTracker } from './activation/commands';
import { composeMcp } from './activation/mcp';
import { composeMemory } from './activation/memory';
import { SettingsRouter } from './activation/settings';
import { createShell, workspaceRoots } from './activation/shell';
import { composeStatusBar } from './activation/statusBar';
import { composeAgentEdits, composeParticipant, composeTokenWindow } from './activation/views';
import { composeWorkspace } from './activation/workspace';

/** What activate() returns: used by the e2e tests in the real extension host. */
// esbuild.mjs puts `var __BET_LOAD_START = performance.now()` first in this bundle: its evaluation time.
declare const __BET_LOAD_START: number | undefined;
const moduleEvalMs = typeof __BET_LOAD_START === 'number' ? performance.now() - __BET_LOAD_START : undefined;

export interface ExtensionApi {
  memory: MemoryRegistry;
  /** `@better-edit` (undefined where the host has no chat API), its turn log and the recall archive. */
  participant: BetterEditParticipant | undefined;
  turns: TurnLog;
  recall: RecallStore;
  chips(): ChipStore;
  tree: ChipTreeProvider;
  /** The Agent Edits review (its tree and a refresh that resolves when the list is re-read). */
  agentEdits: AgentEdits;
  chipDir(): string;
  hostState(): string;
  hostUrl(): string | undefined;
  /** Where the copied stdio configs point (see cliLauncher.ts). */
  cliLauncher: string;
  /**
   * Activation cost: evaluating this bundle (undefined when not bundled), activate() until it resolved, and from
   * the loader (boot.ts): loading this bundle, and all of activation (load + evaluation + activate()).
   */
  timings: { moduleEvalMs?: number; activateMs: number; bundleLoadMs?: number; activationMs?: number };
}

let disposeAll: (() => Promise<void>) | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<ExtensionApi> {
  const activateStart = performance.now();
  const log = vscode.window.createOutputChannel('Better Edit Tools', { log: true });
  context.subscriptions.push(log);
  const shell = createShell(context, log);
  log.info(`Better Edit Tools ${shell.version} activating (VS Code ${vscode.version}, ${vscode.env.appName})`);

  // Chips: one directory under globalStorage, shared by every window of this user (the store locks and rescans).
  const chipDir = chipDirOf(shell.storageDir);
  // The stdio configs copied for other clients start this launcher: it survives extension updates.
  let cliLauncher = launcherPath(shell.storageDir);
  try {
    cliLauncher = refreshLauncher(shell.storageDir, context.extensionPath).path;
  } catch (err) {
    log.warn(`cannot write the CLI launcher ${cliLauncher}: ${String(err)}`);
  }
  const settings = new SettingsRouter(log);
  shell.own(settings);
  // The first composition needs nothing of the memory: both are built at once (~9 + ~11 ms one after the other,
  // measured outside VS Code). The memory is that of the folders open now; it follows them below.
  const [workspace, memory] = await Promise.all([composeWorkspace(shell, settings), composeMemory(shell, settings, workspaceRoots())]);
  shell.own(workspace.onDidRecompose(() => void memory.follow(workspace.roots())));
  // be-insert-chip without `format` (agents' and the UI's) follows the setting at each call
  const serverDeps = liveDeps(workspace.current, { memory: memory.port, recall: memory.recallPort, chipFormat: () => shell.config().replayFormat });

  composeTokenWindow(shell, memory);
  const participant = composeParticipant(shell, memory, serverDeps);
  const host = composeMcp(shell, settings, { serverDeps, memory });
  const tree = composeChips(shell, workspace);
  composeStatusBar(shell, host, tree);
  const tools = new UiTools(serverDeps, { log: (m) => log.warn(m) });
  shell.own({ dispose: () => void tools.dispose() });
  const agentEdits = composeAgentEdits(shell, workspace, tools);
  const ctx: CommandContext = {
    tools,
    memory: { peek: (id) => memory.current().registry.peek(id) },
    services: () => ({ deps: serverDeps, chips: workspace.current().chips }),
    host,
    tree,
    log,
    extensionPath: context.extensionPath,
    globalStorage: context.globalStorageUri,
    roots: workspace.roots,
    chipDir: () => chipDir,
    lastTextEditor: lastTextEditorTracker(shell),
  };
  composeCommands(shell, ctx);

  log.info(`roots: ${workspace.roots().join(', ') || '(none)'}; chips: ${chipDir}`);
  disposeAll = async () => {
    await host.stop();
    await workspace.close();
    await memory.close();
  };
  return {
    get memory() {
      return memory.current().registry;
    },
    participant,
    get turns() {
      return memory.current().turns;
    },
    get recall() {
      return memory.current().recall;
    },
    chips: () => workspace.current().chips,
    tree,
    agentEdits,
    chipDir: () => chipDir,
    hostState: () => host.state.kind,
    hostUrl: () => (host.state.kind === 'running' ? host.state.handle.url : undefined),
    cliLauncher,
    timings: { moduleEvalMs, activateMs: performance.now() - activateStart },
  };
}

export async function deactivate(): Promise<void> {
  await disposeAll?.();
  disposeAll = undefined;
}
