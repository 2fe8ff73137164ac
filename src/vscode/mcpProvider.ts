/**
 * Registers the in-process server with VS Code (McpServerDefinitionProvider) and, where it exists, with Cursor's
 * extension API. The provided definition carries a dummy URI; the real URI and token are filled in by
 * resolveMcpServerDefinition right before VS Code starts it, so no stale port or token is ever cached.
 */
import * as vscode from 'vscode';
import type { McpHostController } from './mcpHost';

export const PROVIDER_ID = 'betterEditTools.mcp';
export const SERVER_LABEL = 'Better Edit Tools';
const CURSOR_NAME = 'better-edit-tools';

export function registerMcpProvider(host: McpHostController, version: string, log: vscode.LogOutputChannel): vscode.Disposable {
  const disposables: vscode.Disposable[] = [];
  if (typeof vscode.lm?.registerMcpServerDefinitionProvider === 'function' && typeof vscode.McpHttpServerDefinition === 'function') {
    const provider: vscode.McpServerDefinitionProvider<vscode.McpHttpServerDefinition> = {
      onDidChangeMcpServerDefinitions: host.onDidChangeDefinitions,
      provideMcpServerDefinitions: () =>
        host.state.kind === 'disabled'
          ? []
          : [new vscode.McpHttpServerDefinition(SERVER_LABEL, vscode.Uri.parse('http://invalid.invalid/mcp'), {}, version)],
      resolveMcpServerDefinition: async (def) => {
        const handle = await host.ensureStarted();
        def.uri = vscode.Uri.parse(handle.url);
        def.headers = { Authorization: `Bearer ${handle.token}` };
        return def;
      },
    };
    disposables.push(vscode.lm.registerMcpServerDefinitionProvider(PROVIDER_ID, provider));
    log.info('registered the MCP server definition provider');
  }
  disposables.push(registerWithCursor(host, log));
  return vscode.Disposable.from(...disposables);
}

interface CursorMcpApi {
  registerServer(config: { name: string; server: { url: string; headers?: Record<string, string> } }): void;
  unregisterServer(name: string): void;
}

/** Cursor does not implement the provider API; it has `vscode.cursor.mcp.registerServer` instead. */
function registerWithCursor(host: McpHostController, log: vscode.LogOutputChannel): vscode.Disposable {
  const cursor = (vscode as unknown as { cursor?: { mcp?: CursorMcpApi } }).cursor?.mcp;
  if (!cursor || typeof cursor.registerServer !== 'function') return new vscode.Disposable(() => undefined);
  const register = async () => {
    try {
      const h = await host.ensureStarted();
      cursor.registerServer({ name: CURSOR_NAME, server: { url: h.url, headers: { Authorization: `Bearer ${h.token}` } } });
      log.info('registered the MCP server with Cursor');
    } catch (err) {
      log.error(`Cursor MCP registration failed: ${String(err)}`);
    }
  };
  void register();
  const sub = host.onDidChangeDefinitions(() => {
    try { cursor.unregisterServer(CURSOR_NAME); } catch { /* not registered */ }
    if (host.state.kind !== 'disabled') void register();
  });
  return new vscode.Disposable(() => {
    sub.dispose();
    try { cursor.unregisterServer(CURSOR_NAME); } catch { /* already gone */ }
  });
}
