/**
 * The server factory. Uses the SDK's low-level Server with our own tools/list and tools/call handlers,
 * so the middleware sees every call — including calls that fail schema validation — and can save a chip.
 * The call itself takes the one tool-call path (callPipeline.ts) that the extension's commands take too.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { Protocol, type RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type CallToolResult,
  type ServerNotification,
  type ServerRequest,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { ServerDeps } from './deps';
import { registerContextResources } from './resources/index';
import type { Lang } from './i18n';
import { createToolCaller, notifyObservers, type ToolCaller, type ToolCallerOptions } from './callPipeline';
import { clientNameOf, dualEraTransport } from './modernEra';
import { version } from '../../package.json';
import { toolListing } from './listing';

export type { ServerDeps, EditsPort, ChipsPort } from './deps';
export { listedSchemasOf, MAX_RESULT_CHARS, MAX_RESULT_CHARS_META, toolListing } from './listing';
export { argsForChip, DEFAULT_MAX_ARG_BYTES, describeZodFailure, MAX_PATH_ARG_CHARS, OVERSIZED_CHIP_HEAD_BYTES } from './callPipeline';

export const SERVER_NAME = 'better-edit-tools';
export const SERVER_VERSION: string = version;
export interface CreateServerOptions extends ToolCallerOptions {
  lang?: Lang;
  /** The session's tool caller when one serves it already (the CLI's lean start); default: a new one from these options. */
  caller?: ToolCaller;
}

/** tools/call as the transport delivers it; params are checked by the middleware, not by the SDK. */
const LooseCallToolRequest = z.looseObject({ method: z.literal('tools/call'), params: z.unknown().optional() });

export function createServer(deps: ServerDeps, opts: CreateServerOptions): Server {
  const lang = opts.lang ?? 'en';
  const caller = opts.caller ?? createToolCaller(deps, opts);
  const { tools, listedName } = caller;

  const server = new Server(
    { name: SERVER_NAME, version: SERVER_VERSION },
    { capabilities: { tools: { listChanged: false } } },
  );

  let listed: Tool[] | undefined;
  server.setRequestHandler(ListToolsRequestSchema, async () => {
    listed ??= tools.map((t) => toolListing(t, listedName(t), lang));
    return { tools: listed };
  });

  const handleCall = async (
    request: z.infer<typeof LooseCallToolRequest>,
    extra: RequestHandlerExtra<ServerRequest, ServerNotification>,
  ): Promise<CallToolResult> => {
    const params = (request.params ?? {}) as { name?: unknown; arguments?: unknown };
    if (typeof params.name !== 'string' || params.name === '') {
      throw new McpError(
        ErrorCode.InvalidParams,
        `tools/call needs params.name, a tool name string; available: ${tools.map(listedName).join(', ')}`,
      );
    }
    // the client's name sizes the reply: per request in a 2026-07-28 call, from initialize in a 2025 session
    const client = clientNameOf(extra._meta, server.getClientVersion());
    const result = await caller.call(params.name, params.arguments ?? {}, { signal: extra.signal, client });
    // MCP 2025-11-25 (server/tools, "Error Handling"): an unknown tool is a protocol error, -32602, not a tool
    // result. The call still went through the pipeline: recorded, and its arguments kept as a chip the text names.
    if (!caller.knows(params.name)) {
      // a plain error with the code: McpError would prefix "MCP error -32602:" to the message the client prefixes again
      throw Object.assign(new Error(result.content.map((c) => (c.type === 'text' ? c.text : '')).join('')), { code: ErrorCode.InvalidParams });
    }
    return result;
  };
  // Registered on Protocol directly: Server's own tools/call registration validates the request shape first and
  // answers malformed calls (arguments not an object) with a bare JSON-RPC error the middleware never sees.
  (Protocol.prototype.setRequestHandler as (this: Server, schema: unknown, h: typeof handleCall) => void).call(
    server,
    LooseCallToolRequest,
    handleCall,
  );

  // Context levels as resources (betools://overview, betools://structure/{path}) wherever the host composed a
  // context service. Read through deps on every request: the VS Code host's deps follow its recompositions.
  if (deps.context) registerContextResources(server, deps);

  // Session end (stdin closed, HTTP DELETE, host shutdown) reaches observers once.
  let closedNotified = false;
  server.onclose = () => {
    if (closedNotified) return;
    closedNotified = true;
    notifyObservers(opts.observers ?? [], opts.log, (o) => o.onSessionClosed?.(opts.sessionId));
  };
  return server;
}

/**
 * Connects `server` to `transport` for both protocol eras: 2025-11-25 sessions as before, 2026-07-28 requests
 * (server/discover, per-request _meta) through the dual-era layer (modernEra.ts).
 */
export function connectDualEra(server: Server, transport: Transport): Promise<void> {
  // v1 keeps getCapabilities private; it is the object initialize answers with, so both eras declare the same
  const capabilities = () => (server as unknown as { getCapabilities(): Record<string, unknown> }).getCapabilities();
  return server.connect(dualEraTransport(transport, { capabilities, serverInfo: { name: SERVER_NAME, version: SERVER_VERSION } }));
}
