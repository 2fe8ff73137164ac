import { z } from 'zod';
import { asRecord, defineTool, GRAMMAR_PLAIN } from './common';

export const beFuncRange = defineTool({
  name: 'be-func-range',
  title: 'Function range',
  description:
    'Start and end of the function or block around line.',
  grammar: GRAMMAR_PLAIN + ' line: integer >= 1.',
  example: { file: 'src/main.go', line: 42 },
  inputSchema: {
    file: z.string(),
    line: z.number().int().min(1),
  },
  // Small data: kept as structuredContent, described for clients that validate it.
  outputSchema: { start: z.number().int(), end: z.number().int(), kind: z.string().optional(), name: z.string().optional() },
  annotations: { title: 'Function range', readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  async handler(args, { services }) {
    return asRecord(await services.edits.funcRange(args));
  },
});
