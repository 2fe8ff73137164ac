/**
 * The context levels as MCP resources, for clients that read resources rather than call tools:
 *   betools://overview                 the workspace map (budget from the settings)
 *   betools://overview/{path}          the map of a folder
 *   betools://structure/{path}         a file's structure (symbols, line ranges first)
 * Registered on the low-level SDK Server: call `registerContextResources(server, deps)` after
 * createServer() and before connect(); it declares the `resources` capability itself.
 */
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  ErrorCode,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  McpError,
  ReadResourceRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { isToolError } from '../../core/errors';
import type { ContextPort } from '../deps';

export const OVERVIEW_URI = 'betools://overview';
/** MCP's "Resource not found" error code (2025-11-25, server/resources). */
export const RESOURCE_NOT_FOUND = -32002;
const STRUCTURE_PREFIX = 'betools://structure/';
const OVERVIEW_PREFIX = 'betools://overview/';

/** Read on every request: a host's deps may follow a recomposition (VS Code), and may then have no context. */
export interface ContextResourceDeps {
  readonly context?: ContextPort;
}

export function registerContextResources(server: Server, deps: ContextResourceDeps): void {
  server.registerCapabilities({ resources: { listChanged: false } });

  server.setRequestHandler(ListResourcesRequestSchema, async () => ({
    resources: [
      {
        uri: OVERVIEW_URI,
        name: 'overview',
        title: 'Workspace overview',
        description: 'Module tree and key files ranked by references, within the overview token budget.',
        mimeType: 'text/plain',
      },
    ],
  }));

  server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => ({
    resourceTemplates: [
      {
        uriTemplate: `${STRUCTURE_PREFIX}{path}`,
        name: 'structure',
        title: 'File structure',
        description: 'Classes, functions and other symbols of a file with their line ranges and one-line signatures.',
        mimeType: 'text/plain',
      },
      {
        uriTemplate: `${OVERVIEW_PREFIX}{path}`,
        name: 'folder-overview',
        title: 'Folder overview',
        description: 'The overview of one folder of the workspace.',
        mimeType: 'text/plain',
      },
    ],
  }));

  server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
    const uri = request.params.uri;
    const context = deps.context;
    if (!context) throw new McpError(ErrorCode.InvalidParams, `${uri}: this server has no context service now (no folder open); the be-* tools still work.`);
    try {
      if (uri === OVERVIEW_URI || uri.startsWith(OVERVIEW_PREFIX)) {
        const path = uri === OVERVIEW_URI ? undefined : decodeURIComponent(uri.slice(OVERVIEW_PREFIX.length));
        const r = await context.overview({ path });
        return { contents: [{ uri, mimeType: 'text/plain', text: `${r.overview}\nhint: ${r.hint}`, _meta: meta(r) }] };
      }
      if (uri.startsWith(STRUCTURE_PREFIX)) {
        const path = decodeURIComponent(uri.slice(STRUCTURE_PREFIX.length));
        const r = await context.structure(path);
        const head = `${r.file} · ${r.total.toLocaleString('en-US')} lines · ${r.file_tokens.toLocaleString('en-US')} tokens`;
        // an outline longer than a page: its first page, and the call for the rest (a resource takes no arguments)
        const more = r.next ? `\nnext: be-read ${JSON.stringify(r.next)}` : '';
        return { contents: [{ uri, mimeType: 'text/plain', text: `${head}\n${r.outline}${more}\nhint: ${r.hint}`, _meta: meta(r) }] };
      }
    } catch (e) {
      if (isToolError(e)) throw e.code === 'not_found' ? notFound(e.message, { code: e.code, uri }) : new McpError(ErrorCode.InvalidParams, e.message, { code: e.code });
      throw e;
    }
    // -32002 "Resource not found", the code MCP 2025-11-25 gives (server/resources, "Error Handling"); the uri in
    // data as both revisions suggest (2026-07-28 renumbers the code to -32602: modernEra.ts)
    throw notFound(`unknown resource ${uri}; expected ${OVERVIEW_URI}, ${OVERVIEW_PREFIX}{path} or ${STRUCTURE_PREFIX}{path}`, { uri });
  });
}

/** -32002 with the message as written: McpError would prefix "MCP error -32002:", which the client prefixes again. */
function notFound(message: string, data?: unknown): Error {
  return Object.assign(new Error(message), { code: RESOURCE_NOT_FOUND, ...(data === undefined ? {} : { data }) });
}

/** The reply tags ride along in _meta so that resource readers see the level too. */
function meta(r: { mode: string; data_type: string; hint: string }): Record<string, unknown> {
  return { mode: r.mode, data_type: r.data_type, hint: r.hint };
}
