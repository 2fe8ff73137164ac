/**
 * The "Agent Edits" tree: sessions (newest activity first), under each its edits newest first — file:lines, lines
 * ±, the tool and when. The items come from the edit history (core/history/reviewList.ts); Keep / Revert go
 * through the be-trx tool (commands.ts), so they take the agents' path.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ReviewItem } from '../../core/history/reviewList';
import { describeAuthor } from '../../core/history/author';
import { relativeTime } from '../relativeTime';

export interface SessionNode {
  kind: 'session';
  session: string;
  label: string;
  edits: ReviewItem[];
}
export interface EditNode {
  kind: 'edit';
  item: ReviewItem;
}
export type AgentEditNode = SessionNode | EditNode;

/** What the tree reads: the history's review list (undefined: no folder open). */
export interface AgentEditsSource {
  list(): Promise<ReviewItem[]>;
}

const NO_SESSION = '(unrecorded)';

export class AgentEditsTree implements vscode.TreeDataProvider<AgentEditNode>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeTreeData = this.changed.event;
  private last: ReviewItem[] = [];

  constructor(
    private source: () => AgentEditsSource | undefined,
    private readonly now: () => number = Date.now,
  ) {}

  refresh(): void {
    this.changed.fire();
  }

  /** The items of the last listing (newest first): the gutter marks and the e2e tests read them. */
  get items(): readonly ReviewItem[] {
    return this.last;
  }

  async load(): Promise<ReviewItem[]> {
    this.last = (await this.source()?.list()) ?? [];
    return this.last;
  }

  async getChildren(element?: AgentEditNode): Promise<AgentEditNode[]> {
    if (element) return element.kind === 'session' ? element.edits.map((item) => ({ kind: 'edit', item })) : [];
    const sessions = new Map<string, SessionNode>();
    for (const item of await this.load()) {
      const key = item.session ?? NO_SESSION;
      let node = sessions.get(key);
      if (!node) {
        node = { kind: 'session', session: key, label: item.session ? describeAuthor(item) : vscode.l10n.t('Edits without a recorded session'), edits: [] };
        sessions.set(key, node);
      }
      node.edits.push(item);
    }
    return [...sessions.values()];
  }

  getTreeItem(node: AgentEditNode): vscode.TreeItem {
    if (node.kind === 'session') {
      const t = new vscode.TreeItem(node.label, vscode.TreeItemCollapsibleState.Expanded);
      t.id = `session:${node.session}`;
      t.contextValue = node.session === NO_SESSION ? 'agentSession.unrecorded' : 'agentSession';
      t.description = vscode.l10n.t('{0} edits · {1}', node.edits.length, relativeTime(node.edits[0]!.created_ms, this.now()));
      t.iconPath = new vscode.ThemeIcon('account');
      return t;
    }
    const { item } = node;
    const lines = item.endLine >= item.startLine ? `${item.startLine}-${item.endLine}` : `${item.startLine}`;
    const t = new vscode.TreeItem(`${path.basename(item.file)}:${lines}`, vscode.TreeItemCollapsibleState.None);
    t.id = `edit:${item.id}`;
    t.contextValue = 'agentEdit';
    t.description = [`+${item.added} −${item.removed}`, item.tool, relativeTime(item.created_ms, this.now())].join(' · ');
    t.resourceUri = vscode.Uri.file(item.file);
    t.iconPath = new vscode.ThemeIcon(item.stale ? 'warning' : 'diff');
    const md = new vscode.MarkdownString(undefined, true);
    md.appendMarkdown(`**${item.summary}** · \`${item.tool}\` · ${new Date(item.created_ms).toLocaleString()}\n\n`);
    md.appendMarkdown(`${item.file}\n\n`);
    if (item.chip_id) md.appendMarkdown(vscode.l10n.t('Deleted text kept as chip://{0}', item.chip_id) + '\n\n');
    if (item.stale) md.appendMarkdown('$(warning) ' + vscode.l10n.t('The file changed outside the agents\' edits since; Revert will refuse.'));
    t.tooltip = md;
    t.command = { command: 'betterEditTools.agentEdits.openDiff', title: vscode.l10n.t('Open Diff'), arguments: [node] };
    return t;
  }

  setSource(source: () => AgentEditsSource | undefined): void {
    this.source = source;
    this.refresh();
  }

  dispose(): void {
    this.changed.dispose();
  }
}
