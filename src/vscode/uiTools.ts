/**
 * How the extension's own commands (Insert at Cursor, Restore Last Deleted Text, Replay) call the be-* tools: the
 * one tool-call path agents take too (src/mcp/callPipeline.ts), so a command gets what an agent gets — strict
 * arguments, aliases, size limits, a chip when the call fails, the edit recorded with its author. In process, no
 * transport, so the commands work with the loopback host disabled too. No vscode import: tested with plain mocha
 * (test/vscode/uiTools.test.ts).
 */
import type { ServerDeps } from '../mcp/deps';
import type { ToolCaller } from '../mcp/callPipeline';

/** The session id of the UI's calls (logs and chips tell them from agents'; ChatMemory does not record them). */
export const UI_SESSION = 'vscode-ui';
/** The client name the edit history records for the UI's edits. */
export const UI_CLIENT = 'better-edit-tools-ui';

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
  log?: (message: string) => void;
}

export class UiTools {
  private caller?: ToolCaller;

  constructor(
    private readonly deps: ServerDeps,
    private readonly opts: UiToolsOptions = {},
  ) {}

  /** The tool's result object (structuredContent); throws ToolCallError with the tool's error text. */
  async call(name: string, args: Record<string, unknown>): Promise<Record<string, unknown>> {
    const r = await this.callerOf().call(name, args, { client: UI_CLIENT });
    const text = r.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
    if (r.isError) throw new ToolCallError(name, text);
    return (r.structuredContent as Record<string, unknown> | undefined) ?? { text };
  }

  async dispose(): Promise<void> {
    this.caller = undefined;
  }

  private callerOf(): ToolCaller {
    if (this.caller) return this.caller;
    // Loaded on the first command, not at activation (the tool table and its schemas are a good part of the
    // bundle's evaluation); by require(), which the bundle keeps lazy and the tests (run as CommonJS) resolve.
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- lazy on purpose (above)
    const { createToolCaller } = require('../mcp/callPipeline') as typeof import('../mcp/callPipeline');
    this.caller = createToolCaller(this.deps, { sessionId: UI_SESSION, log: this.opts.log, reply: 'json' /* read as data, not by a model */ });
    return this.caller;
  }
}
