/** The Chips tree view: newest first, refreshed from chip-store events (never polled). */
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ChipRecord } from '../core/chips/types';
import { languageIdFromPath } from '../core/text/languages';
import { matchesFilter, newestFirst, type ChipSource } from './chipSource';
import { relativeTime } from './relativeTime';

export class ChipItem extends vscode.TreeItem {
  constructor(readonly chip: ChipRecord) {
    super(chip.preview || chip.id, vscode.TreeItemCollapsibleState.None);
  }
}

const TOOL_ICONS: Record<string, string> = {
  'be-delete': 'trash',
  'be-replace': 'replace',
  'be-insert': 'insert',
  'be-write': 'new-file',
  'be-insert-chip': 'debug-rerun',
  'be-read': 'eye',
};

export class ChipTreeProvider implements vscode.TreeDataProvider<ChipRecord>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeTreeData = this.changed.event;
  private subscription: { dispose(): void };
  private filterText = '';
  private count = 0;
  private readonly countChanged = new vscode.EventEmitter<number>();
  /** Fires with the number of chips after each refresh (status bar, view badge). */
  readonly onDidChangeCount = this.countChanged.event;

  constructor(
    private chips: ChipSource,
    private readonly now: () => number = Date.now,
  ) {
    this.subscription = chips.onDidChange(() => this.refresh());
  }

  /** The store was reopened (settings changed). */
  setSource(chips: ChipSource): void {
    this.subscription.dispose();
    this.chips = chips;
    this.subscription = chips.onDidChange(() => this.refresh());
    this.refresh();
  }

  get filter(): string {
    return this.filterText;
  }

  private readonly filterChanged = new vscode.EventEmitter<string>();
  readonly onDidChangeFilter = this.filterChanged.event;

  setFilter(text: string): void {
    this.filterText = text;
    this.filterChanged.fire(text);
    void vscode.commands.executeCommand('setContext', 'betterEditTools.chipsFiltered', !!text);
    this.refresh();
  }

  refresh(): void {
    this.changed.fire();
    // The count also feeds the status bar, which must update while the view is hidden.
    void this.chips.list().then((all) => this.setCount(all.length), () => undefined);
  }

  private setCount(n: number): void {
    if (n === this.count) return;
    this.count = n;
    this.countChanged.fire(n);
  }

  async getChildren(element?: ChipRecord): Promise<ChipRecord[]> {
    if (element) return [];
    const all = newestFirst(await this.chips.list());
    this.setCount(all.length);
    return this.filterText ? all.filter((c) => matchesFilter(c, this.filterText, this.chips.originalText(c))) : all;
  }

  getTreeItem(chip: ChipRecord): vscode.TreeItem {
    const item = new ChipItem(chip);
    item.id = chip.id;
    item.contextValue = chip.err_msg ? 'chip.failed' : 'chip';
    const where = chip.file ? path.basename(chip.file) + (chip.range ? `:${chip.range.start}-${chip.range.end}` : '') : '';
    item.description = [chip.tampered ? vscode.l10n.t('tampered') : '', chip.tool, relativeTime(chip.created_ms, this.now()), where].filter(Boolean).join(' · ');
    item.iconPath = chip.tampered
      ? new vscode.ThemeIcon('shield', new vscode.ThemeColor('problemsWarningIcon.foreground')) // failed its integrity check: never inserted
      : new vscode.ThemeIcon(chip.err_msg ? 'error' : TOOL_ICONS[chip.tool] ?? 'symbol-snippet', chip.err_msg ? new vscode.ThemeColor('problemsErrorIcon.foreground') : undefined);
    item.tooltip = this.tooltip(chip);
    item.command = { command: 'betterEditTools.chips.preview', title: vscode.l10n.t('Preview'), arguments: [chip] };
    return item;
  }

  private tooltip(chip: ChipRecord): vscode.MarkdownString {
    const md = new vscode.MarkdownString(undefined, true);
    md.appendMarkdown(`**chip://${chip.id}** · \`${chip.tool}\` · ${new Date(chip.created_ms).toLocaleString()}\n\n`);
    if (chip.file) md.appendMarkdown(`${vscode.l10n.t('From')}: \`${chip.file}${chip.range ? `:${chip.range.start}-${chip.range.end}` : ''}\`\n\n`);
    if (chip.err_msg) md.appendMarkdown(`$(error) ${escapeMarkdown(chip.err_msg)}\n\n`);
    const text = this.chips.originalText(chip) ?? JSON.stringify(chip.args, null, 2);
    const lines = text.split(/\r?\n/);
    const head = lines.slice(0, 12).join('\n');
    md.appendCodeblock(head + (lines.length > 12 ? `\n… (+${lines.length - 12})` : ''), languageOf(chip.file));
    return md;
  }

  dispose(): void {
    this.subscription.dispose();
    this.changed.dispose();
    this.countChanged.dispose();
    this.filterChanged.dispose();
  }
}

function escapeMarkdown(s: string): string {
  return s.replace(/[\\`*_{}[\]()#+\-.!|<>]/g, '\\$&');
}

function languageOf(file?: string): string {
  return file ? languageIdFromPath(file) : 'plaintext';
}
