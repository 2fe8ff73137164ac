/**
 * How the extension's own commands (Insert at Cursor, Restore Last Deleted Text, Replay) call the be-* tools: an MCP
 * SDK client on the same server factory agents reach, so a command gets what an agent gets — strict arguments,
 * aliases, size limits, a chip when the call fails, the overview invalidated after a write. The transport is
 * in-process (a linked pair), so the commands work with the loopback host disabled too. No vscode import: tested
 * with plain mocha (test/vscode/uiTools.test.ts).
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { ServerDeps } from '../mcp/deps';
import type { Lang } from '../core/lang';

/** The session id of the UI's calls (logs and chips tell them from agents'; ChatMemory does not record them). */
export const UI_SESSION = 'vscode-ui';

/** A failed tool call: the text an agent would see (with the chip id when the arguments were saved). */
export class ToolCallError extends Error {
  constructor(
    readonly tool: string,
    message: string,
  ) {
    super(message);
    this.name = 'ToolCallError';
  }
}

export interface UiToolsOptions {
  lang?: Lang;
  log?: (message: string) => void;
}

export class UiTools {
  private connected?: Promise<{ client: Client; close(): Promise<void> }>;

  constructor(
    private readonly deps: ServerDeps,
    private readonly opts: UiToolsOptions = {},
  ) {}

  /** The tool's result object (structuredContent); throws ToolCallError with the tool's error text. */
  async call(name: string, args: Record<string, unknown>): Promise<Record<string, unknown>> {
    const { client } = await (this.connected ??= this.connect());
    const r = (await client.callTool({ name, arguments: args })) as CallToolResult;
    const text = r.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
    if (r.isError) throw new ToolCallError(name, text);
    return (r.structuredContent as Record<string, unknown> | undefined) ?? { text };
  }

  async dispose(): Promise<void> {
    const c = this.connected;
    this.connected = undefined;
    await (await c?.catch(() => undefined))?.close();
  }

  private async connect(): Promise<{ client: Client; close(): Promise<void> }> {
    // Loaded on the first command, not at activation: the SDK is most of the bundle's evaluation time. The SDK by
    // import() like everywhere else (a require() would pull in its CommonJS build as a second copy); our own module
    // by require(), which the bundle keeps lazy too and which the tests (run as CommonJS) can resolve.
    const [{ Client }, { InMemoryTransport }] = await Promise.all([
      import('@modelcontextprotocol/sdk/client/index.js'),
      import('@modelcontextprotocol/sdk/inMemory.js'),
    ]);
    const { createServer, SERVER_VERSION } = require('../mcp/server') as typeof import('../mcp/server');
    const server = createServer(this.deps, { sessionId: UI_SESSION, lang: this.opts.lang, log: this.opts.log, reply: 'json' /* read as data, not by a model */ });
    const [serverSide, clientSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const client = new Client({ name: 'better-edit-tools-ui', version: SERVER_VERSION });
    await client.connect(clientSide);
    return {
      client,
      close: async () => {
        await client.close();
        await server.close();
      },
    };
  }
}
