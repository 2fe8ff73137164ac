/** Shared zod pieces and grammar strings of the be-* tools (upstream parameter names). */
import { z } from 'zod';
import type { ServerDeps } from '../deps';
import type { ToolModule } from '../types';

export const GRAMMAR_RANGE =
  'file: "path:N" (one line), "path:S-E" (lines S..E), or "path:ALL"; 1-based, inclusive.';
export const GRAMMAR_INSERT = 'file: "path:N" inserts after line N; "path:0" inserts at the top.';
export const GRAMMAR_PLAIN = 'file: a plain path, no ":N" suffix.';

/** format, preview and brief, the options of the edit tools (called inside a tool's `inputSchema`). */
export const editOptions = () => ({
  format: z.enum(['plain', 'diff']).optional(),
  preview: z.boolean().optional(),
  brief: z.boolean().optional(),
});

/**
 * A tool as its module writes it: the zod shapes as functions. tools/list is answered from prebuilt JSON schemas
 * (builtSchemas.ts), so the zod objects are first needed at the tool's first call; built at bundle evaluation they
 * were about a third of it, at every start.
 */
export type ToolSpec<Shape extends z.ZodRawShape> = Omit<ToolModule<ServerDeps, Shape>, 'inputSchema' | 'outputSchema'> & {
  inputSchema: () => Shape;
  outputSchema?: () => z.ZodRawShape;
};

/**
 * The table's ToolModule of `spec`: `inputSchema` and `outputSchema` are getters that build the shape once, at the
 * first read. Keeps each module's handler typed by its own shape while the table holds them uniformly.
 */
export function defineTool<Shape extends z.ZodRawShape>(spec: ToolSpec<Shape>): ToolModule<ServerDeps> {
  const { inputSchema, outputSchema, ...rest } = spec;
  let input: Shape | undefined;
  let output: z.ZodRawShape | undefined;
  const m = Object.defineProperty(rest, 'inputSchema', { enumerable: true, get: () => (input ??= inputSchema()) });
  if (outputSchema) Object.defineProperty(m, 'outputSchema', { enumerable: true, get: () => (output ??= outputSchema()) });
  return m as unknown as ToolModule<ServerDeps>;
}

/** Core results are plain objects; the protocol wants a record. */
export function asRecord(result: object): Record<string, unknown> {
  return result as Record<string, unknown>;
}
