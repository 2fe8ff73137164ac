/** Status bar item: server state and chip count; a click opens the actions quick pick. */
import * as vscode from 'vscode';
import type { HostState } from './mcpHost';

export class StatusBar implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem('betterEditTools.status', vscode.StatusBarAlignment.Right, 100);
  private state: HostState = { kind: 'stopped' };
  private chips = 0;

  constructor() {
    this.item.name = vscode.l10n.t('Better Edit Tools');
    this.item.command = 'betterEditTools.showActions';
    this.render();
    this.item.show();
  }

  setState(state: HostState): void {
    this.state = state;
    this.render();
  }

  setChipCount(n: number): void {
    this.chips = n;
    this.render();
  }

  private render(): void {
    const icon = { stopped: '$(circle-outline)', starting: '$(loading~spin)', running: '$(plug)', error: '$(error)', disabled: '$(circle-slash)' }[this.state.kind];
    this.item.text = `${icon} BE $(symbol-snippet) ${this.chips}`;
    const server = {
      stopped: vscode.l10n.t('MCP server: idle (starts when an agent connects)'),
      starting: vscode.l10n.t('MCP server: starting…'),
      running: this.state.kind === 'running' ? vscode.l10n.t('MCP server: running on {0}', this.state.handle.url) : '',
      error: this.state.kind === 'error' ? vscode.l10n.t('MCP server: failed — {0}', this.state.message) : '',
      disabled: vscode.l10n.t('MCP server: disabled in settings'),
    }[this.state.kind];
    this.item.tooltip = `${vscode.l10n.t('Better Edit Tools')}\n${server}\n${vscode.l10n.t('{0} chips', this.chips)}`;
    this.item.backgroundColor = this.state.kind === 'error' ? new vscode.ThemeColor('statusBarItem.errorBackground') : undefined;
  }

  dispose(): void {
    this.item.dispose();
  }
}
