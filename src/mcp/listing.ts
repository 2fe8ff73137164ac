/**
 * The tools/list entry of each tool: its listed name, description, JSON schemas (prebuilt into the bundles:
 * builtSchemas.ts) and annotations. Free of the SDK's runtime, so the CLI's lean start (leanStart.ts) lists the
 * tools before the SDK is loaded.
 */
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { ServerDeps } from './deps';
import { describeTool, type Lang } from './i18n';
import type { ToolModule } from './types';
import { BUILT_SCHEMAS, type ListedSchemas } from './builtSchemas';

/** The tool-listing _meta key Claude Code reads for the largest result it passes on whole. */
export const MAX_RESULT_CHARS_META = 'anthropic/maxResultSizeChars';
/** A page is at most 100k tokens (the pageTokens setting's maximum) of about 4 characters: room for that. */
export const MAX_RESULT_CHARS = 400_000;

/** The listed schemas of `tools` by tool name (esbuild.mjs builds them into the bundles: builtSchemas.ts). */
export function listedSchemasOf(tools: readonly ToolModule<ServerDeps>[]): Record<string, ListedSchemas> {
  return Object.fromEntries(tools.map((t) => [t.name, computeSchemas(t)]));
}

function computeSchemas(t: ToolModule<ServerDeps>): ListedSchemas {
  const listedShape = Object.fromEntries(Object.entries(t.inputSchema).filter(([k]) => !t.unlistedArgs?.includes(k)));
  const schema = z.toJSONSchema(z.object(listedShape), { target: 'draft-7', io: 'input' }) as Record<string, unknown>;
  delete schema.$schema;
  dropBounds(schema); // the catalog is sent every turn: bounds are checked (and explained) on the call instead
  return { input: schema as Tool['inputSchema'], ...(t.outputSchema ? { output: outputSchemaOf(t.outputSchema) } : {}) };
}

export function toolListing(t: ToolModule<ServerDeps>, name: string, lang: Lang): Tool {
  const schemas = BUILT_SCHEMAS?.[t.name] ?? computeSchemas(t);
  return {
    name,
    title: t.title,
    description: describeTool(t, lang),
    inputSchema: schemas.input,
    annotations: t.annotations,
    // Small-data tools describe their structuredContent; other fields may follow (upstream JSON adds some).
    ...(schemas.output ? { outputSchema: schemas.output } : {}),
    // Claude Code cuts a tool result over its default size unless the tool allows more: a full page must arrive whole.
    ...(t.render ? { _meta: { [MAX_RESULT_CHARS_META]: MAX_RESULT_CHARS } } : {}),
  };
}

function outputSchemaOf(shape: z.ZodRawShape): Tool['outputSchema'] {
  const schema = z.toJSONSchema(z.looseObject(shape), { target: 'draft-7', io: 'output' }) as Record<string, unknown>;
  delete schema.$schema;
  // zod writes a loose object as `additionalProperties: {}`, which the MCP Inspector's --strict flags; leaving the
  // keyword out means the same (other fields may follow) and every validator reads it alike.
  if (isEmptyObject(schema.additionalProperties)) delete schema.additionalProperties;
  dropBounds(schema);
  return schema as Tool['outputSchema'];
}

function isEmptyObject(v: unknown): boolean {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && Object.keys(v).length === 0;
}

/** Removes minimum/maximum (z.int() lists ±2^53) from a listed schema, in place. */
function dropBounds(node: unknown): void {
  if (node === null || typeof node !== 'object') return;
  const o = node as Record<string, unknown>;
  delete o.minimum;
  delete o.maximum;
  for (const v of Object.values(o)) dropBounds(v);
}
