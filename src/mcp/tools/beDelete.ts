import { asRecord, brief, defineTool, format, GRAMMAR_RANGE, preview } from './common';
import { z } from 'zod';

export const beDelete = defineTool({
  name: 'be-delete',
  title: 'Delete lines',
  description:
    'Delete lines. file: "path:N", "path:S-E" (1-based, inclusive) or "path:ALL". ' +
    'The removed text is saved as a chip (chip://<id> in the result); be-insert-chip puts it back.',
  grammar: GRAMMAR_RANGE,
  example: { file: 'src/main.go:5-15' },
  inputSchema: {
    file: z.string().describe('path with line range: a.go:10, a.go:5-15 or a.go:ALL'),
    format,
    preview,
    brief,
  },
  annotations: { title: 'Delete lines', readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  async handler(args, { services }) {
    return asRecord(await services.edits.delete(args));
  },
});
