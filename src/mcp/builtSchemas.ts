/**
 * The listed JSON schemas of the tool table, computed at build time: esbuild.mjs replaces this module's value in
 * the bundles with the output of `listedSchemasOf(toolTable)` (listing.ts), so a start does not run zod's
 * toJSONSchema for every tool before its first tools/list (the largest step between initialize and tools/list).
 * Run from source (tests, tsx) it is undefined and server.ts computes them.
 */
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { PlainShape } from './plainArgs';

/** A tool's listed input and output schemas (JSON Schema draft 7). */
export interface ListedSchemas {
  input: Tool['inputSchema'];
  output?: Tool['outputSchema'];
}

export const BUILT_SCHEMAS: Readonly<Record<string, ListedSchemas>> | undefined = undefined;

/** The tools' argument shapes as plainArgs.ts checks them without zod, computed at build time as BUILT_SCHEMAS is. */
export const BUILT_PLAIN: Readonly<Record<string, PlainShape>> | undefined = undefined;
