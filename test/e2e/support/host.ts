// Helpers the extension-host suites share (bundled into each suite by scripts/e2e/build-tests.mjs).
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ExtensionApi } from '../../../src/vscode/extension';

export const EXT_ID = 'better-edit-tools.better-edit-tools';

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls `probe` every 300 ms until it gives something other than undefined/false; throws after `timeoutMs`. */
export async function until<T>(what: string, probe: () => T | undefined | false | Promise<T | undefined | false>, timeoutMs = 30000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(300);
  }
}

/** Our extension, activated. */
export async function activate(): Promise<ExtensionApi> {
  const ext = vscode.extensions.getExtension<ExtensionApi>(EXT_ID);
  assert.ok(ext, `${EXT_ID} is installed`);
  return ext.activate();
}

/** Absolute path of `rel` in the first workspace folder. */
export function ws(rel: string): string {
  const folder = vscode.workspace.workspaceFolders?.[0];
  assert.ok(folder, 'a workspace folder is open');
  return path.join(folder.uri.fsPath, rel);
}

/** Our MCP tool `name` (be-read, …) as VS Code's MCP client lists it in vscode.lm.tools. */
export function beTool(name: string): vscode.LanguageModelToolInformation | undefined {
  return vscode.lm.tools.find((t) => t.name.startsWith('mcp_') && t.name.endsWith(`_${name}`));
}

/**
 * Waits until VS Code's MCP client lists our tools, starting the server when a suite runs on its own (the
 * extension suite asserts the start itself; a later suite finds the tools there already).
 */
export async function serverTools(timeoutMs = 60000): Promise<void> {
  if (beTool('be-read')) return;
  // Extension-provided collections activate lazily: the List Servers picker activates them (reference §9).
  vscode.commands.executeCommand('workbench.mcp.listServer').then(undefined, () => undefined);
  await sleep(2000);
  await vscode.commands.executeCommand('workbench.action.closeQuickOpen');
  await vscode.commands.executeCommand('workbench.mcp.startServer', '*', { waitForLiveTools: true }).then(undefined, () => undefined);
  await until('the be-* tools in vscode.lm.tools', () => beTool('be-read'), timeoutMs);
}

/** Calls one of our tools through VS Code's MCP client (vscode.lm.invokeTool): the text of its result, or the error's. */
export async function invoke(name: string, input: object): Promise<{ text: string; threw: boolean }> {
  const tool = await until(`${name} in vscode.lm.tools`, () => beTool(name), 60000);
  try {
    const res = await vscode.lm.invokeTool(tool.name, { input, toolInvocationToken: undefined });
    const text = res.content.map((p) => (p instanceof vscode.LanguageModelTextPart ? p.value : JSON.stringify(p))).join('');
    return { text, threw: false };
  } catch (err) {
    return { text: err instanceof Error ? err.message : String(err), threw: true };
  }
}

/** `invoke` that must succeed: its text. */
export async function invokeOk(name: string, input: object): Promise<string> {
  const r = await invoke(name, input);
  assert.equal(r.threw, false, `${name} ${JSON.stringify(input).slice(0, 200)} failed: ${r.text}`);
  return r.text;
}
