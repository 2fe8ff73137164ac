/**
 * The VS Code extension: composes the core with a VS Code FileStore, serves the be-* tools over a loopback
 * MCP host registered with VS Code (and Cursor), and shows chips in a tree with "Insert at cursor".
 */
import { parseReplyStyle } from '../mcp/render/index';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ChipStore } from '../core/chips/node/store';
import { workspaceKey } from '../core/files/workspaceKey';
import { MemoryRegistry } from '../core/memory/node/registry';
import { getTokenizer } from '../core/memory/node/tokenizer';
import { ExtractiveSummarizer } from '../core/memory/summarizer';
import { memoryObserver } from '../mcp/memoryObserver';
import { CHIP_SCHEME, ChipContentProvider } from './chipPreview';
import { launcherPath, refreshLauncher } from './cliLauncher';
import { ChipTreeProvider } from './chipTree';
import { registerCommands, replayFromDocument, replayToolOf, type CommandContext } from './commands';
import { chipDirOf, compose, liveDeps, type Composition } from './compose';
import { McpHostController } from './mcpHost';
import { registerMcpProvider } from './mcpProvider';
import type { SaveAfterEdit } from './vscodeFileStore';
import { allowWriteSetting, contextSettings, liveReplyLimit, memorySettings, SwitchingSummarizer, type SettingGetter } from './settings';
import { StatusBar } from './statusBar';
import { UiTools } from './uiTools';
import { registerTokenWindow } from './tokenWindow';
import { lmSummarizer } from './tokenWindow/lmSummarizer';
import { isOwnTransientPath, isStateFolderNoise } from '../core/files/ownNames';
import { RecallStore } from '../core/memory/node/recallStore';
import { TurnLog } from '../core/memory/node/turnLog';
import { registerChatParticipant, type BetterEditParticipant } from './chat/participant';
import { registerAgentEdits, type AgentEdits } from './agentEdits/register';

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

function config() {
  const c = vscode.workspace.getConfiguration('betterEditTools');
  return {
    serverEnabled: c.get<boolean>('server.enabled', true),
    capacity: c.get<number>('chips.capacity', 30),
    ttlDays: c.get<number>('chips.ttlDays', 0),
    threshold: c.get<number>('chips.threshold', 50),
    replayFormat: c.get<'raw' | 'annotated' | 'json'>('chips.replayFormat', 'raw'),
    saveAfterEdit: c.get<SaveAfterEdit>('saveAfterEdit', 'whenNotDirty'),
  };
}

const settingGetter: SettingGetter = (key, fallback) => vscode.workspace.getConfiguration('betterEditTools').get(key, fallback);

function workspaceRoots(): string[] {
  return (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file').map((f) => f.uri.fsPath);
}

export async function activate(context: vscode.ExtensionContext): Promise<ExtensionApi> {
  const activateStart = performance.now();
  const log = vscode.window.createOutputChannel('Better Edit Tools', { log: true });
  context.subscriptions.push(log);
  const version: string = context.extension.packageJSON.version;
  log.info(`Better Edit Tools ${version} activating (VS Code ${vscode.version}, ${vscode.env.appName})`);

  // Chips: one directory under globalStorage, shared by every window of this user (the store locks and rescans).
  const storageDir = context.globalStorageUri.fsPath;
  const chipDir = chipDirOf(storageDir);
  // The stdio configs copied for other clients start this launcher: it survives extension updates.
  let cliLauncher = launcherPath(storageDir);
  try {
    cliLauncher = refreshLauncher(storageDir, context.extensionPath).path;
  } catch (err) {
    log.warn(`cannot write the CLI launcher ${cliLauncher}: ${String(err)}`);
  }
  let roots = workspaceRoots();
  // VS Code's file watcher tells the context service which paths changed, so a warm overview does not stat every
  // file (the watcher is created before the first composition and lives as long as the extension).
  let current!: Composition; // set once the first composition is done (the watcher may fire before)
  const fileWatcher = vscode.workspace.createFileSystemWatcher('**/*');
  const invalidate = (uri: vscode.Uri) => {
    // an edit's lock and staged temp beside the file are never a change (the rename is reported under the real name)
    if (uri.scheme === 'file' && !isOwnTransientPath(uri.fsPath)) (current as Composition | undefined)?.context?.invalidate(uri.fsPath);
  };
  context.subscriptions.push(fileWatcher, fileWatcher.onDidChange(invalidate), fileWatcher.onDidCreate(invalidate), fileWatcher.onDidDelete(invalidate));
  // The overview describes unsaved buffers (VscodeFileStore.unsaved), which the disk watcher never sees change: typing
  // (or closing a dirty editor unsaved) marks the path for the next overview, a set insertion per change.
  context.subscriptions.push(
    vscode.workspace.onDidChangeTextDocument((e) => invalidate(e.document.uri)),
    vscode.workspace.onDidCloseTextDocument((doc) => invalidate(doc.uri)),
  );
  const composeNow = () => {
    const c = config();
    return compose({
      roots, storageDir, capacity: c.capacity, ttlDays: c.ttlDays, thresholdBytes: c.threshold,
      saveAfterEdit: () => config().saveAfterEdit, lang: vscode.env.language.startsWith('zh') ? 'zh' : 'en', log,
      context: contextSettings(settingGetter), watched: true, allowWrite: allowWriteSetting(settingGetter),
    });
  };
  // ChatMemory per MCP session (be-memory, the token window), saved under globalStorage per workspace.
  // memoryOptions is the registry's own object: updating it in place applies to sessions created later.
  const memorySetup = memorySettings(settingGetter);
  const memoryOptions = { ...memorySetup.options };
  let lmSummary = memorySetup.lmSummary;
  let modelSummarizer: ReturnType<typeof lmSummarizer> | undefined;
  const memoryDir = path.join(storageDir, 'memory', workspaceKey(roots.length ? roots : ['(no folder)']));
  // The first composition needs nothing of the memory: it is built while the memory's files are read (the two
  // chains took ~9 + ~11 ms one after the other, measured outside VS Code). Awaited below; the catch only keeps an
  // early failure from being reported as unhandled before then.
  const firstComposition = composeNow();
  firstComposition.catch(() => undefined);
  const memory = await MemoryRegistry.open({
    dir: memoryDir,
    memoryOptions,
    deps: {
      tokenizerFor: getTokenizer,
      summarizer: new SwitchingSummarizer(new ExtractiveSummarizer(), () => (modelSummarizer ??= lmSummarizer()), () => lmSummary),
    },
    onError: (e) => log.warn(`memory: ${e instanceof Error ? e.message : String(e)}`),
  });
  // Evicted messages stay recallable by id (be-memory recall, @better-edit's own recall).
  const recall = new RecallStore({ dir: path.join(memoryDir, 'recall'), onError: (e) => log.warn(`recall: ${e instanceof Error ? e.message : String(e)}`) });
  context.subscriptions.push(await recall.attach(memory));
  const turns = await TurnLog.open(path.join(memoryDir, 'turns'), { onError: (e) => log.warn(`turns: ${e instanceof Error ? e.message : String(e)}`) });
  // the turns of sessions the registry dropped go with them (bounded like the sessions)
  context.subscriptions.push(memory.onDidChangeSessions((ids) => void turns.prune(ids)));
  void turns.prune(memory.sessionIds());
  current = await firstComposition;
  // be-insert-chip without `format` (agents' and the UI's) follows the setting at each call
  const serverDeps = liveDeps(() => current, { memory, recall, chipFormat: () => config().replayFormat });
  const recorder = memoryObserver(memory);
  const observers = [recorder];
  registerTokenWindow(context, memory, turns);
  const participant = registerChatParticipant(context, {
    registry: memory, serverDeps, recall, turns, log, lang: vscode.env.language.startsWith('zh') ? 'zh' : 'en',
    reserveRatio: () => memorySettings(settingGetter).options.reserveRatio,
  });

  // Replies sized to the client (Copilot: its spill settings, read live), or to betterEditTools.replyMaxChars.
  const replyLimit = liveReplyLimit(settingGetter, (key, fallback) => vscode.workspace.getConfiguration('github.copilot.chat.agent').get(key, fallback));
  const host = new McpHostController(
    // The MCP SDK (zod schemas of the whole protocol, ajv, the HTTP stack) is most of the bundle's evaluation: it is
    // loaded when VS Code first starts the server (resolveMcpServerDefinition), not on every VS Code start.
    async () => {
      const [{ startHttpHost }, { createServer }] = await Promise.all([import('../mcp/httpHost'), import('../mcp/server')]);
      return startHttpHost({
        createServerForSession: (sessionId) => createServer(serverDeps, { sessionId, observers, log: (m) => log.warn(m), lang: vscode.env.language.startsWith('zh') ? 'zh' : 'en', reply: parseReplyStyle(settingGetter('reply', 'text')), replyLimit }),
        // an ended session's memory goes with it (after its last records landed); kept on shutdown for the next start
        onSessionClosed: (sessionId, reason) => void (reason !== 'shutdown' && recorder.settled().then(() => memory.delete(sessionId))),
        log: (m) => log.debug(m),
      });
    },
    () => config().serverEnabled,
    log,
  );
  context.subscriptions.push(host, registerMcpProvider(host, version, log));

  // Views.
  const tree = new ChipTreeProvider(current.chips);
  const view = vscode.window.createTreeView('betterEditTools.chips', { treeDataProvider: tree, showCollapseAll: false });
  const statusBar = new StatusBar();
  statusBar.setState(host.state);
  context.subscriptions.push(tree, view, statusBar, host.onDidChangeState((s) => statusBar.setState(s)));
  context.subscriptions.push(tree.onDidChangeCount((n) => {
    statusBar.setChipCount(n);
    view.badge = n > 0 ? { value: n, tooltip: vscode.l10n.t('{0} chips', n) } : undefined;
  }));
  context.subscriptions.push(tree.onDidChangeFilter((f) => {
    view.message = f ? vscode.l10n.t('Filtered by "{0}" — use the filter button to clear.', f) : undefined;
  }));
  tree.refresh();

  // Other windows and the stdio CLI write into the same directory: watch it, debounce, refresh.
  let watchTimer: NodeJS.Timeout | undefined;
  try {
    const watcher = fs.watch(chipDir, (_event, name) => {
      if (name && isStateFolderNoise(String(name))) return;
      clearTimeout(watchTimer);
      watchTimer = setTimeout(() => tree.refresh(), 150);
    });
    context.subscriptions.push({ dispose: () => { clearTimeout(watchTimer); watcher.close(); } });
  } catch (err) {
    log.warn(`cannot watch ${chipDir}: ${String(err)}; use Refresh to see chips from other windows`);
  }

  // Last text editor: a click in the tree leaves activeTextEditor alone, but a webview or output panel does not.
  let lastEditor = vscode.window.activeTextEditor;
  context.subscriptions.push(vscode.window.onDidChangeActiveTextEditor((e) => {
    if (e && e.document.uri.scheme === 'file') lastEditor = e;
  }));

  const tools = new UiTools(serverDeps, { log: (m) => log.warn(m) });
  context.subscriptions.push({ dispose: () => void tools.dispose() });
  const agentEdits = registerAgentEdits(context, { history: current.history, tools, log });
  const ctx: CommandContext = {
    tools,
    memory,
    services: () => ({ deps: serverDeps, chips: current.chips }),
    host,
    tree,
    log,
    extensionPath: context.extensionPath,
    globalStorage: context.globalStorageUri,
    roots: () => roots,
    chipDir: () => chipDir,
    lastTextEditor: () => {
      const active = vscode.window.activeTextEditor;
      if (active && active.document.uri.scheme === 'file') return active;
      if (lastEditor && !lastEditor.document.isClosed) {
        return vscode.window.visibleTextEditors.find((e) => e.document === lastEditor!.document) ?? lastEditor;
      }
      return vscode.window.visibleTextEditors.find((e) => e.document.uri.scheme === 'file');
    },
  };
  const preview = new ChipContentProvider(() => current.chips);
  context.subscriptions.push(preview, vscode.workspace.registerTextDocumentContentProvider(CHIP_SCHEME, preview), ...registerCommands(ctx));
  context.subscriptions.push(vscode.workspace.onDidSaveTextDocument((doc) => {
    const tool = replayToolOf(ctx, doc.uri);
    if (tool) void replayFromDocument(ctx, tool, doc);
  }));

  // Roots follow the workspace folders; chip settings reopen the store. Serialized: one recomposition at a time.
  let recomposing = Promise.resolve();
  const recompose = (why: string) => {
    recomposing = recomposing.then(async () => {
      const old = current;
      roots = workspaceRoots();
      current = await composeNow();
      tree.setSource(current.chips);
      agentEdits.setHistory(current.history);
      await old.close();
      log.info(`${why}: roots ${roots.join(', ') || '(none)'}`);
    }).catch((err) => log.error(`recomposition failed: ${String(err)}`));
    return recomposing;
  };
  context.subscriptions.push(vscode.workspace.onDidChangeWorkspaceFolders(() => void recompose('workspace folders changed')));
  context.subscriptions.push(vscode.workspace.onDidChangeConfiguration(async (e) => {
    if (e.affectsConfiguration('betterEditTools.chips')) await recompose('chip settings changed');
    if (e.affectsConfiguration('betterEditTools.allowWrite')) await recompose('allowWrite changed');
    if (e.affectsConfiguration('betterEditTools.server.enabled')) await host.restart();
    if (e.affectsConfiguration('betterEditTools.context')) {
      current.context?.updateSettings(contextSettings(settingGetter));
      log.info(`context settings: ${JSON.stringify(contextSettings(settingGetter))}`);
    }
    if (e.affectsConfiguration('betterEditTools.memory')) {
      const m = memorySettings(settingGetter);
      lmSummary = m.lmSummary;
      Object.assign(memoryOptions, m.options); // sessions created from now on (the tokenizer too)
      const { maxTokens, reserveRatio, recentKeep } = m.options;
      for (const s of memory.sessions()) {
        try {
          memory.peek(s.sessionId)?.setBudget({ maxTokens, reserveRatio, recentKeep });
        } catch (err) {
          log.warn(`memory budget of ${s.sessionId}: ${err instanceof Error ? err.message : String(err)}`);
        }
      }
      log.info(`memory settings: ${JSON.stringify(m)}`);
    }
  }));

  log.info(`roots: ${roots.join(', ') || '(none)'}; chips: ${chipDir}`);
  disposeAll = async () => {
    await host.stop();
    await current.close();
    await recall.flush();
    await turns.flush();
    await memory.dispose();
  };
  return {
    memory,
    participant,
    turns,
    recall,
    chips: () => current.chips,
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
