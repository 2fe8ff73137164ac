/** What the commands (commands.ts, demo.ts) get from the extension: its services, views and state folders. */
import type * as vscode from 'vscode';
import type { MemoryRegistry } from '../core/memory/node/registry';
import type { ServerDeps } from '../mcp/deps';
import type { ChipSource } from './chipSource';
import type { ChipTreeProvider } from './chipTree';
import type { McpHostController } from './mcpHost';
import type { UiTools } from './uiTools';

export interface CommandContext {
  services(): { deps: ServerDeps; chips: ChipSource };
  host: McpHostController;
  tree: ChipTreeProvider;
  log: vscode.LogOutputChannel;
  extensionPath: string;
  globalStorage: vscode.Uri;
  roots(): string[];
  chipDir(): string;
  lastTextEditor(): vscode.TextEditor | undefined;
  /** The be-* tools through the MCP server (strict arguments, chips of failed calls), as agents call them. */
  tools: UiTools;
  /** The sessions' ChatMemory (the demo gives its session a small budget). */
  memory?: Pick<MemoryRegistry, 'peek'>;
}
