import { z } from 'zod';
import { asRecord, brief, defineTool } from './common';

export const beRead = defineTool({
  name: 'be-read',
  title: 'Read lines',
  description:
    'Read a file with line numbers. file: "path" (whole file), "path:N", "path:S-E" or "path:ALL"; 1-based, inclusive. ' +
    'Returns viewed_code_id; pass it to be-replace to refuse the edit if the file changed since.',
  grammar: 'file: "path", "path:N", "path:S-E" or "path:ALL"; 1-based, inclusive.',
  example: { file: 'src/main.go:10-20' },
  inputSchema: {
    file: z.string().describe('path with optional range: a.go, a.go:23, a.go:1-30, a.go:ALL'),
    brief: z.boolean().optional().describe('metadata only, no content'),
    target: z
      .object({
        kind: z.enum(['line', 'function', 'marker', 'tag']),
        value: z.string(),
      })
      .optional()
      .describe('find the lines by function name, marker text or tag instead of a range'),
  },
  annotations: { title: 'Read lines', readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  async handler(args, { services }) {
    return asRecord(await services.edits.read(args));
  },
});
