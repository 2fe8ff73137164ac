/**
 * The Token Window: a webview view (`betterEditTools.tokenWindow`, in the "Better Edit" container) that
 * shows one MCP session's ChatMemory live. The host listens to the registry's events and posts deltas;
 * the webview patches its DOM (media/tokenWindow/main.js). Nothing polls.
 */
import * as vscode from 'vscode';
import type { MemoryRegistry, SessionChange } from '../../core/memory/node/registry';
import type { Priority } from '../../core/memory/types';
import type { TurnLog } from '../../core/memory/node/turnLog';
import { newNonce, renderTokenWindowHtml, TOKEN_WINDOW_STRINGS } from './html';
import type { HostToWebview, InitMessage, WebviewToHost } from './protocol';
import { ChartHistory, deltaOf, fingerprintView, FINGERPRINTS_SHOWN, messageView, seedChart, turnView } from './views';

export const TOKEN_WINDOW_VIEW_ID = 'betterEditTools.tokenWindow';
export const SHOW_TOKEN_WINDOW_COMMAND = 'betterEditTools.showTokenWindow';

const PRIORITIES: readonly Priority[] = ['high', 'medium', 'low'];

/** UI strings through vscode.l10n (bundle in l10n/), English fallback from TOKEN_WINDOW_STRINGS. */
function localizedStrings(): Record<string, string> {
  return Object.fromEntries(Object.entries(TOKEN_WINDOW_STRINGS).map(([k, v]) => [k, vscode.l10n.t(v)]));
}

export class TokenWindowProvider implements vscode.WebviewViewProvider, vscode.Disposable {
  private view: vscode.WebviewView | undefined;
  private sessionId: string | undefined;
  private chart = new ChartHistory();
  private readonly disposables: vscode.Disposable[] = [];

  constructor(
    private readonly extensionUri: vscode.Uri,
    private registry: MemoryRegistry,
    private turns?: TurnLog,
  ) {
    this.subscribe();
  }

  private subscribe(): void {
    const { registry, turns } = this;
    // Chart history is kept even while the view is closed, so it has a past when opened.
    this.disposables.push(
      registry.onDidChange((e) => this.onMemoryChange(e)),
      registry.onDidChangeSessions(() => this.onSessionsChange()),
    );
    // @better-edit turns: each request's prompt against the model's budget, what entered, what slid out and why.
    if (turns) this.disposables.push(turns.onDidChange((e) => e.sessionId === this.sessionId && this.postTurns(e.sessionId)));
  }

  /** The memory moved (the workspace folders changed): show the new one's sessions. */
  setSource(registry: MemoryRegistry, turns?: TurnLog): void {
    for (const d of this.disposables.splice(0)) d.dispose();
    this.registry = registry;
    this.turns = turns;
    this.chart = new ChartHistory();
    this.sessionId = undefined;
    this.subscribe();
    this.postInit();
  }

  /** Whether the memory shown has `sessionId`. */
  hasSession(sessionId: string): boolean {
    return this.registry.has(sessionId);
  }

  resolveWebviewView(view: vscode.WebviewView): void {
    this.view = view;
    const mediaRoot = vscode.Uri.joinPath(this.extensionUri, 'media', 'tokenWindow');
    view.webview.options = { enableScripts: true, localResourceRoots: [mediaRoot] };
    view.webview.html = renderTokenWindowHtml({
      cspSource: view.webview.cspSource,
      nonce: newNonce(),
      scriptUri: view.webview.asWebviewUri(vscode.Uri.joinPath(mediaRoot, 'main.js')).toString(),
      styleUri: view.webview.asWebviewUri(vscode.Uri.joinPath(mediaRoot, 'style.css')).toString(),
      strings: localizedStrings(),
      lang: vscode.env.language,
    });
    const subscriptions = [
      view.webview.onDidReceiveMessage((m: WebviewToHost) => this.onWebviewMessage(m)),
      // A hidden view's webview is discarded; when shown again its script says "ready" and gets a snapshot.
      view.onDidDispose(() => {
        if (this.view === view) this.view = undefined;
        for (const d of subscriptions) d.dispose();
      }),
    ];
  }

  /** Shows a session (e.g. the one a command refers to). */
  showSession(sessionId: string): void {
    this.sessionId = sessionId;
    this.postInit();
  }

  dispose(): void {
    for (const d of this.disposables.splice(0)) d.dispose();
  }

  private currentSession(): string | undefined {
    if (this.sessionId && this.registry.has(this.sessionId)) return this.sessionId;
    this.sessionId = this.registry.sessions()[0]?.sessionId; // the most recently active
    return this.sessionId;
  }

  private post(message: HostToWebview): void {
    if (this.view) void this.view.webview.postMessage(message);
  }

  private postInit(): void {
    const sessionId = this.currentSession();
    const memory = sessionId !== undefined ? this.registry.peek(sessionId) : undefined;
    const init: InitMessage = {
      type: 'init',
      sessionId,
      sessions: this.registry.sessions(),
      stats: memory?.stats(),
      messages: memory ? memory.visibleMessages().map(messageView) : [],
      summary: memory?.summary() ?? '',
      fingerprints: memory ? memory.fingerprints().slice(-FINGERPRINTS_SHOWN).map(fingerprintView) : [],
      chart: sessionId !== undefined ? this.chartOf(sessionId) : [],
      now: Date.now(),
    };
    this.post(init);
    if (sessionId !== undefined) this.postTurns(sessionId);
  }

  private postTurns(sessionId: string): void {
    const list = this.turns?.list(sessionId) ?? [];
    this.post({ type: 'turns', sessionId, turns: list.slice(-50).map(turnView) });
  }

  /** The session's chart; a session with no recorded points (restored from disk) gets its past rebuilt once. */
  private chartOf(sessionId: string): ReturnType<ChartHistory['get']> {
    const memory = this.registry.peek(sessionId);
    if (!this.chart.has(sessionId) && memory) {
      this.chart.seed(sessionId, seedChart(memory.visibleMessages(), memory.fingerprints(), memory.stats().usedTokens));
    }
    return this.chart.get(sessionId);
  }

  private onMemoryChange(e: SessionChange): void {
    const point = { t: Date.now(), used: e.change.stats.usedTokens, evicted: e.change.evicted?.length ?? 0 };
    // A session without history yet (restored from disk): rebuilt from its state, which already includes this change.
    if (this.chart.has(e.sessionId)) this.chart.push(e.sessionId, point);
    else this.chartOf(e.sessionId);
    if (!this.view) return;
    if (this.sessionId === undefined) {
      this.showSession(e.sessionId); // first activity: follow it
      return;
    }
    if (e.sessionId !== this.sessionId) return;
    const memory = this.registry.peek(e.sessionId);
    if (memory) this.post(deltaOf(e, memory, point, Date.now()));
  }

  private onSessionsChange(): void {
    if (!this.view) return;
    if (this.sessionId === undefined || !this.registry.has(this.sessionId)) {
      this.postInit();
      return;
    }
    this.post({ type: 'sessions', sessions: this.registry.sessions(), sessionId: this.sessionId });
  }

  private onWebviewMessage(m: WebviewToHost): void {
    try {
      switch (m.type) {
        case 'ready':
          this.postInit();
          return;
        case 'selectSession':
          if (this.registry.has(m.sessionId)) this.showSession(m.sessionId);
          return;
      }
      const memory = this.sessionId !== undefined ? this.registry.peek(this.sessionId) : undefined;
      if (!memory) return;
      // Each action changes the memory; its change event brings the delta back to the view.
      switch (m.type) {
        case 'pin':
          memory.pin(m.id);
          break;
        case 'unpin':
          memory.unpin(m.id);
          break;
        case 'evict':
          memory.evict(m.id);
          break;
        case 'setPriority':
          if (PRIORITIES.includes(m.priority)) memory.setPriority(m.id, m.priority);
          break;
        case 'setBudget':
          if (Number.isInteger(m.maxTokens) && m.maxTokens >= 100) {
            memory.setBudget({ maxTokens: m.maxTokens });
            this.postInit(); // the chart's budget lines move: redraw everything once
          }
          break;
      }
    } catch (err) {
      this.post({ type: 'error', message: err instanceof Error ? err.message : String(err) });
    }
  }
}

/**
 * Registers the Token Window view and the "Better Edit: Show Token Window" command.
 * The view id and the command must be contributed in package.json (see the report / README).
 */
export function registerTokenWindow(context: vscode.ExtensionContext, registry: MemoryRegistry, turns?: TurnLog): vscode.Disposable & { provider: TokenWindowProvider } {
  const provider = new TokenWindowProvider(context.extensionUri, registry, turns);
  const disposable = vscode.Disposable.from(
    provider,
    vscode.window.registerWebviewViewProvider(TOKEN_WINDOW_VIEW_ID, provider),
    vscode.commands.registerCommand(SHOW_TOKEN_WINDOW_COMMAND, async (sessionId?: unknown) => {
      await vscode.commands.executeCommand(`${TOKEN_WINDOW_VIEW_ID}.focus`);
      if (typeof sessionId === 'string' && provider.hasSession(sessionId)) provider.showSession(sessionId);
    }),
  );
  context.subscriptions.push(disposable);
  return Object.assign(disposable, { provider });
}
