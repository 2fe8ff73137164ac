/**
 * Wires the Agent Edits review: the tree beside Chips, the before/after documents, Keep / Revert / Revert Session
 * (through the be-trx tool, the agents' own path: UiTools), gutter marks on the lines recorded edits left in the
 * files now open (gutter.ts; until the edit is kept or reverted), and a watch on the history folder (agents in other
 * processes record there too).
 */
import { watchDir } from '../../core/files/dirWatch';
import * as vscode from 'vscode';
import { isStateFolderNoise } from '../../core/files/ownNames';
import type { HistoryStore } from '../../core/history/node/store';
import { currentSpans, editVersions, type LineSpan } from '../../core/history/review';
import { reviewList } from '../../core/history/reviewList';
import { ToolCallError, type UiTools } from '../uiTools';
import { AgentEditsTree, type AgentEditNode, type AgentEditsSource } from './tree';
import { EditVersionsProvider, openEditDiff, REVIEW_SCHEME, type VersionsSource } from './diff';
import { documentSpans, gutterLines } from './gutter';

type Source = AgentEditsSource & VersionsSource & { spans(file: string, bytes: Uint8Array): Promise<LineSpan[]>; dir: string };

export function historySource(history: HistoryStore | undefined): Source | undefined {
  if (!history) return undefined;
  return {
    dir: history.dir,
    list: () => history.withQueue(reviewList),
    versions: (id) => history.withQueue((q) => editVersions(q, id)),
    spans: (file, bytes) => history.withQueue(async (q) => currentSpans(q, file, bytes)),
  };
}

export interface AgentEdits {
  tree: AgentEditsTree;
  /** The composition changed (folders): read the new history. */
  setHistory(history: HistoryStore | undefined): void;
  /** Re-reads the list and the gutter marks (after an edit); resolves when both are done. */
  refresh(): Promise<void>;
  /** The lines the gutter marks in the visible editors of `uri` now (0-based, whole lines; [] when none). */
  marks(uri: vscode.Uri): readonly vscode.Range[];
}

export function registerAgentEdits(context: vscode.ExtensionContext, o: { history: HistoryStore | undefined; tools: UiTools; log: vscode.LogOutputChannel }): AgentEdits {
  let source = historySource(o.history);
  const tree = new AgentEditsTree(() => source);
  const view = vscode.window.createTreeView('betterEditTools.agentEdits', { treeDataProvider: tree, showCollapseAll: true });
  const versions = new EditVersionsProvider(() => source);
  const gutter = vscode.window.createTextEditorDecorationType({
    gutterIconPath: vscode.Uri.joinPath(context.extensionUri, 'media', 'agent-edit-gutter.svg'),
    gutterIconSize: 'contain',
    overviewRulerColor: new vscode.ThemeColor('editorGutter.modifiedBackground'),
    overviewRulerLane: vscode.OverviewRulerLane.Left,
  });

  // What the gutter shows now, per document: set with the decorations, read back by `marks` (the public API).
  const marked = new Map<string, vscode.Range[]>();
  let pass = 0;
  const mark = async () => {
    const mine = ++pass;
    const shown = new Map<string, vscode.Range[]>();
    for (const editor of vscode.window.visibleTextEditors) {
      const doc = editor.document;
      if (doc.uri.scheme !== 'file' || !source) continue;
      const ranges = shown.get(doc.uri.toString()) ?? gutterLines(await documentSpans((bytes) => source!.spans(doc.uri.fsPath, bytes), doc.getText()).catch(() => []), tree.items)
        .map((l) => new vscode.Range(l.start, 0, l.end, 0));
      // a later pass started meanwhile (another edit, another refresh): its marks are the newer ones
      if (mine !== pass) return;
      shown.set(doc.uri.toString(), ranges);
      editor.setDecorations(gutter, ranges);
    }
    marked.clear();
    for (const [uri, ranges] of shown) marked.set(uri, ranges);
  };
  const refresh = async () => {
    tree.refresh();
    const items = await tree.load().catch(() => []);
    view.badge = items.length ? { value: items.length, tooltip: vscode.l10n.t('{0} agent edits to review', items.length) } : undefined;
    await mark();
  };

  // agents in other processes record into the same history folder (one watcher module for chips and edits)
  let watcher: { dispose(): void } | undefined;
  const watch = () => {
    watcher?.dispose();
    watcher = source
      ? watchDir(source.dir, () => void refresh(), { accept: (name) => !isStateFolderNoise(name), onError: (m) => o.log.warn(`${m}; use Refresh in Agent Edits to see new edits`) })
      : undefined;
  };
  watch();

  const idOf = (arg: AgentEditNode | string | undefined): { id: string; file?: string; summary?: string } | undefined =>
    typeof arg === 'string' ? { id: arg } : arg?.kind === 'edit' ? { id: arg.item.id, file: arg.item.file, summary: arg.item.summary } : undefined;
  const trx = async (args: Record<string, unknown>, done: string) => {
    try {
      const r = await o.tools.call('be-trx', args);
      if (r.status === 'partial') void vscode.window.showWarningMessage(String((r.errors as string[] | undefined)?.[0] ?? vscode.l10n.t('Revert stopped.')));
      else void vscode.window.setStatusBarMessage(done, 4000);
    } catch (err) {
      void vscode.window.showWarningMessage(err instanceof ToolCallError ? err.message : String(err));
    } finally {
      await refresh();
    }
  };

  context.subscriptions.push(
    tree,
    view,
    gutter,
    vscode.workspace.registerTextDocumentContentProvider(REVIEW_SCHEME, versions),
    { dispose: () => watcher?.dispose() },
    vscode.window.onDidChangeVisibleTextEditors(() => void mark()),
    vscode.workspace.onDidChangeTextDocument((e) => {
      if (vscode.window.visibleTextEditors.some((ed) => ed.document === e.document)) void mark();
    }),
    vscode.commands.registerCommand('betterEditTools.agentEdits.refresh', refresh),
    vscode.commands.registerCommand('betterEditTools.agentEdits.openDiff', async (arg?: AgentEditNode | string) => {
      const e = idOf(arg);
      if (!e) return;
      const item = e.file ? e : tree.items.find((i) => i.id === e.id);
      if (!item?.file) throw new Error(vscode.l10n.t('No edit {0} in the history.', e.id));
      await openEditDiff(e.id, item.file, item.summary ?? '');
    }),
    vscode.commands.registerCommand('betterEditTools.agentEdits.keep', async (arg?: AgentEditNode | string) => {
      const e = idOf(arg);
      if (e) await trx({ action: 'keep', id: e.id }, vscode.l10n.t('Kept edit {0}', e.id));
    }),
    vscode.commands.registerCommand('betterEditTools.agentEdits.revert', async (arg?: AgentEditNode | string) => {
      const e = idOf(arg);
      if (e) await trx({ action: 'revert', id: e.id }, vscode.l10n.t('Reverted edit {0}', e.id));
    }),
    vscode.commands.registerCommand('betterEditTools.agentEdits.revertSession', async (arg?: AgentEditNode | string) => {
      const session = typeof arg === 'string' ? arg : arg?.kind === 'session' ? arg.session : undefined;
      if (session) await trx({ action: 'revert', session }, vscode.l10n.t('Reverted the edits of {0}', session));
    }),
  );
  void refresh();
  return {
    tree,
    refresh,
    marks: (uri) => marked.get(uri.toString()) ?? [],
    setHistory(history) {
      source = historySource(history);
      watch();
      void refresh();
    },
  };
}
