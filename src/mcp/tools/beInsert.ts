import { z } from 'zod';
import { asRecord, brief, defineTool, format, GRAMMAR_INSERT, preview } from './common';

export const beInsert = defineTool({
  name: 'be-insert',
  title: 'Insert lines',
  description: 'Insert content after line N. file: "path:N" (1-based); "path:0" inserts at the top.',
  grammar: GRAMMAR_INSERT,
  example: { file: 'src/main.go:10', content: 'inserted line\n' },
  inputSchema: {
    file: z.string().describe('path with insert position: a.go:10 inserts after line 10, a.go:0 at the top'),
    content: z.string().describe('text to insert'),
    format,
    preview,
    brief,
  },
  annotations: { title: 'Insert lines', readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  async handler(args, { services }) {
    return asRecord(await services.edits.insert(args));
  },
});
