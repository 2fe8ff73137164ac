/** be-func-range and be-tag-range: read-only questions about the construct around one line of a file. */
import { z } from 'zod';
import type { LineArgs } from '../../core/edits/types';
import type { EditsPort, ServerDeps } from '../deps';
import type { ToolModule } from '../types';
import { asRecord, defineTool, GRAMMAR_PLAIN, type ToolSpec } from './common';

export interface LineQuerySpec extends Pick<ToolSpec<z.ZodRawShape>, 'name' | 'title' | 'description' | 'example' | 'outputSchema'> {
  run(edits: EditsPort, args: LineArgs): Promise<object>;
}

export function lineQueryTool({ run, ...described }: LineQuerySpec): ToolModule<ServerDeps> {
  return defineTool({
    ...described,
    grammar: GRAMMAR_PLAIN + ' line: integer >= 1.',
    inputSchema: () => ({ file: z.string(), line: z.number().int().min(1) }),
    annotations: { title: described.title, readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    handler: async (args, { services }) => asRecord(await run(services.edits, args)),
  });
}
