/**
 * dist/extension.js: what VS Code loads on every start (onStartupFinished). It stays a few KB so loading it costs
 * nothing; activate() then loads the extension bundle (dist/extension-main.js) through V8's code cache, kept in
 * globalStorage, so later starts skip parsing and compiling it (the MCP SDK, zod and ajv are most of its 0.7 MB).
 */
import * as path from 'node:path';
import type * as vscode from 'vscode';
import { runWithCodeCache } from '../core/files/codeCache';
import type { ExtensionApi } from './extension';

type Main = typeof import('./extension');
let main: Main | undefined;

/** Loads the extension bundle (exported so scripts/e2e/measure.mjs can time it outside VS Code). */
export function loadBundle(cacheDir: string): Main {
  main ??= runWithCodeCache({ file: path.join(__dirname, 'extension-main.js'), cacheDir }) as Main;
  return main;
}

export async function activate(context: vscode.ExtensionContext): Promise<ExtensionApi> {
  const start = performance.now();
  loadBundle(path.join(context.globalStorageUri.fsPath, 'code-cache'));
  const bundleLoadMs = performance.now() - start;
  const api = await main!.activate(context);
  api.timings.bundleLoadMs = bundleLoadMs;
  api.timings.activationMs = performance.now() - start;
  return api;
}

export function deactivate(): Promise<void> | undefined {
  return main?.deactivate();
}
