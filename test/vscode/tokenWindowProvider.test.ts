/**
 * The Token Window's host side (src/vscode/tokenWindow/provider.ts) through the vscode double: what it posts to the
 * webview for a registry's sessions, the actions it applies, and the switch to another memory when the workspace
 * folders change (the old memory's changes are no longer shown).
 */
import { double } from './double/install';
import assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { MemoryRegistry } from '../../src/core/memory/node/registry';
import { TurnLog } from '../../src/core/memory/node/turnLog';
import { registerTokenWindow, SHOW_TOKEN_WINDOW_COMMAND, TOKEN_WINDOW_VIEW_ID } from '../../src/vscode/tokenWindow';
import type { HostToWebview, WebviewToHost } from '../../src/vscode/tokenWindow/protocol';
import { memoryDeps } from '../core/memory/memoryDeps';

function fakeView() {
  const posted: HostToWebview[] = [];
  const fromWebview = new vscode.EventEmitter<WebviewToHost>();
  const disposed = new vscode.EventEmitter<void>();
  const view = {
    webview: {
      options: {},
      html: '',
      cspSource: 'vscode-resource:',
      asWebviewUri: (u: vscode.Uri) => u,
      postMessage: async (m: HostToWebview) => void posted.push(m),
      onDidReceiveMessage: fromWebview.event,
    },
    onDidDispose: disposed.event,
  };
  return { view: view as unknown as vscode.WebviewView, posted, send: (m: WebviewToHost) => fromWebview.fire(m), dispose: () => disposed.fire() };
}

describe('vscode/tokenWindow provider (through the vscode double)', () => {
  let a: MemoryRegistry;
  let b: MemoryRegistry;
  let context: vscode.ExtensionContext;
  beforeEach(() => {
    double.reset();
    a = new MemoryRegistry({ deps: memoryDeps });
    b = new MemoryRegistry({ deps: memoryDeps });
    context = { subscriptions: [], extensionUri: vscode.Uri.file('/ext') } as unknown as vscode.ExtensionContext;
  });
  afterEach(async () => {
    for (const d of context.subscriptions.splice(0)) d.dispose();
    await a.dispose();
    await b.dispose();
  });

  it('registers the view and its command; "ready" gets a snapshot of the most recent session, a change a delta', () => {
    a.get('s1').add({ kind: 'note', content: 'first' });
    const { provider } = registerTokenWindow(context, a, new TurnLog(10));
    assert.equal(double.recorded.webviewProviders[0]!.id, TOKEN_WINDOW_VIEW_ID);
    assert.ok(double.commands.has(SHOW_TOKEN_WINDOW_COMMAND));
    const v = fakeView();
    provider.resolveWebviewView(v.view);
    assert.match((v.view.webview as { html: string }).html, /Content-Security-Policy/);
    v.send({ type: 'ready' });
    const init = v.posted.find((m) => m.type === 'init') as Extract<HostToWebview, { type: 'init' }>;
    assert.equal(init.sessionId, 's1');
    assert.deepEqual(init.messages.map((m) => m.head), ['first']);
    a.get('s1').add({ kind: 'note', content: 'second' });
    const delta = v.posted.at(-1) as Extract<HostToWebview, { type: 'delta' }>;
    assert.equal(delta.type, 'delta');
    assert.deepEqual(delta.added?.map((m) => m.head), ['second']);
  });

  it('applies the webview\'s actions to the memory shown (pin), ignores a budget out of bounds', () => {
    const m = a.get('s1').add({ kind: 'note', content: 'pin me' });
    const { provider } = registerTokenWindow(context, a);
    const v = fakeView();
    provider.resolveWebviewView(v.view);
    v.send({ type: 'ready' });
    v.send({ type: 'pin', id: m.id });
    assert.equal(a.get('s1').get(m.id)?.pinned, true);
    v.send({ type: 'setBudget', maxTokens: 5 });
    assert.notEqual(a.get('s1').options.maxTokens, 5, 'a budget under 100 tokens is ignored');
  });

  it('setSource shows the other memory: its sessions in a fresh snapshot, the old memory\'s changes no longer posted', async () => {
    a.get('in-a').add({ kind: 'note', content: 'a' });
    b.get('in-b').add({ kind: 'note', content: 'b' });
    const { provider } = registerTokenWindow(context, a);
    const v = fakeView();
    provider.resolveWebviewView(v.view);
    v.send({ type: 'ready' });
    provider.setSource(b, new TurnLog(10));
    const init = v.posted.filter((p) => p.type === 'init').at(-1);
    assert.equal((init as Extract<HostToWebview, { type: 'init' }>).sessionId, 'in-b');
    assert.deepEqual((init as Extract<HostToWebview, { type: 'init' }>).sessions.map((s) => s.sessionId), ['in-b']);
    const n = v.posted.length;
    a.get('in-a').add({ kind: 'note', content: 'a again' });
    assert.equal(v.posted.length, n, 'nothing from the old memory');
    assert.equal(provider.hasSession('in-a'), false);
    await vscode.commands.executeCommand(SHOW_TOKEN_WINDOW_COMMAND, 'in-b');
    assert.ok(double.recorded.executed.some((e) => e.command === `${TOKEN_WINDOW_VIEW_ID}.focus`));
  });
});
