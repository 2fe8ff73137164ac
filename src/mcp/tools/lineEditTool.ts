/**
 * be-replace, be-insert and be-delete: line edits with the same options (format, preview, brief), the same
 * annotations but for destructiveness, and the same reply: a unified diff in text (a few lines of context), upstream's
 * default listing in json.
 */
import type { z } from 'zod';
import { renderEditDiff } from '../render/index';
import type { DiffFormat } from '../../core/edits/types';
import type { EditsPort, ServerDeps } from '../deps';
import type { ToolModule } from '../types';
import { asRecord, defineTool, editOptions, type ToolSpec } from './common';

type EditShape<S extends z.ZodRawShape> = S & ReturnType<typeof editOptions>;

export interface LineEditSpec<S extends z.ZodRawShape>
  extends Pick<ToolSpec<EditShape<S>>, 'name' | 'title' | 'description' | 'grammar' | 'example' | 'unlistedArgs' | 'aliases' | 'outputSchema'> {
  /** The tool's own arguments; format, preview and brief are added after them. */
  inputSchema: () => S;
  destructive: boolean;
  run(edits: EditsPort, args: z.infer<z.ZodObject<EditShape<S>>>): Promise<object>;
}

export function lineEditTool<S extends z.ZodRawShape>(spec: LineEditSpec<S>): ToolModule<ServerDeps> {
  const { inputSchema, destructive, run, ...described } = spec;
  return defineTool<EditShape<S>>({
    ...described,
    inputSchema: () => ({ ...inputSchema(), ...editOptions() }),
    annotations: { title: spec.title, readOnlyHint: false, destructiveHint: destructive, idempotentHint: false, openWorldHint: false },
    render: renderEditDiff,
    async handler(args, { services, reply }) {
      const asked = (args as { format?: DiffFormat }).format; // zod's inference loses the key in a generic shape
      return asRecord(await run(services.edits, { ...args, format: asked ?? (reply === 'json' ? undefined : 'diff') }));
    },
  });
}
