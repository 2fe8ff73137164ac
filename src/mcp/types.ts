/**
 * The contract between the tool modules, the server factory and the hosts.
 * One tool = one module under src/mcp/tools/ exporting a ToolModule; src/mcp/tools/index.ts lists them.
 */
import type { z } from 'zod';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Renderer, ReplyStyle } from './render/types';

export interface ToolAnnotations {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

/** What a handler gets besides its arguments. `services` is the composed core (see server.ts ServerDeps). */
export interface ToolContext<S = unknown> {
  services: S;
  /** MCP session id (HTTP) or a per-process id (stdio); keys per-session state such as ChatMemory. */
  sessionId: string;
  signal?: AbortSignal;
  /** How the reply is written: text for the model (default) or upstream's JSON. */
  reply?: ReplyStyle;
  /** Set for a `pageable` tool when the host limits replies: the page budget in tokens that fits it (replyFit.ts). */
  pageTokens?: number;
}

export interface ToolModule<S = unknown, Shape extends z.ZodRawShape = z.ZodRawShape> {
  name: string; // 'be-read' ...
  title: string;
  /** Short, English, exact about the grammar. */
  description: string;
  inputSchema: Shape;
  outputSchema?: z.ZodRawShape;
  annotations: ToolAnnotations;
  /** ours: the description for `--lang zh` (else src/mcp/i18n.ts's catalog, else the English one). */
  descriptionZh?: string;
  /** ours: accepted alternative argument names, renamed before validation (upstream's hidden `old_text`). */
  aliases?: Record<string, string>;
  /** ours: unknown arguments are refused (a typo like `preveiw` must not turn a preview into a write); set to allow them. */
  allowUnknownArgs?: boolean;
  /** ours: the handler honours `ctx.pageTokens` (a smaller page, with the exact `next` call); re-asked until the reply fits. */
  pageable?: boolean;
  /** ours: writes the reply for the model (src/mcp/render/); without one the reply is JSON (small data). */
  render?: Renderer;
  /** ours: accepted arguments left out of tools/list (a hint or an error names them when they matter). */
  unlistedArgs?: string[];
  /** ours: a minimal valid call, quoted in argument errors so the agent sees the expected shape. */
  example?: Record<string, unknown>;
  /** ours: the one-line grammar of this tool's `file` argument, repeated in argument errors. */
  grammar?: string;
  /**
   * ours: for a tool whose actions differ (be-memory window, be-trx status): true when this call only reads.
   * A failed read-only call saves no chip (nothing of the agent's work is in it); see readOnlyHint for the rest.
   */
  readOnlyCall?(args: Record<string, unknown>): boolean;
  /** Returns the structured result; the server puts it in structuredContent and as compact JSON text. Throw ToolError on failure. */
  handler(args: z.infer<z.ZodObject<Shape>>, ctx: ToolContext<S>): Promise<Record<string, unknown>>;
}

/** Observers see every tools/call (ChatMemory recording hooks in here). They must not throw. */
export interface CallObserver {
  onToolCall(e: { sessionId: string; callId: string; tool: string; args: unknown }): void;
  onToolResult(e: {
    sessionId: string;
    callId: string;
    tool: string;
    args: unknown;
    result: CallToolResult;
    isError: boolean;
    durationMs: number;
  }): void;
  onSessionClosed?(sessionId: string): void;
  /**
   * Awaited before the tool runs, when given: what the call must see first (be-memory reads the memory, so the
   * calls recorded before it land first). Most observers have none and cost the call nothing.
   */
  beforeCall?(e: { sessionId: string; tool: string }): Promise<void> | undefined;
}
