/** Shared zod pieces and grammar strings of the be-* tools (upstream parameter names). */
import { z } from 'zod';
import type { ServerDeps } from '../deps';
import type { ToolModule } from '../types';

export const GRAMMAR_RANGE =
  'file: "path:N" (one line), "path:S-E" (lines S..E), or "path:ALL"; 1-based, inclusive.';
export const GRAMMAR_INSERT = 'file: "path:N" inserts after line N; "path:0" inserts at the top.';
export const GRAMMAR_PLAIN = 'file: a plain path, no ":N" suffix.';

export const format = z.enum(['plain', 'diff']).optional();
export const preview = z.boolean().optional();
export const brief = z.boolean().optional();

/** Keeps each module's handler typed by its own shape while the table holds them uniformly. */
export function defineTool<Shape extends z.ZodRawShape>(m: ToolModule<ServerDeps, Shape>): ToolModule<ServerDeps> {
  return m as unknown as ToolModule<ServerDeps>;
}

/** Core results are plain objects; the protocol wants a record. */
export function asRecord(result: object): Record<string, unknown> {
  return result as Record<string, unknown>;
}
