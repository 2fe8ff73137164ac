import { z } from 'zod';
import { asRecord, defineTool, GRAMMAR_PLAIN } from './common';

export const beFuncRange = defineTool({
  name: 'be-func-range',
  title: 'Function range',
  description:
    'Find the innermost function, method or block enclosing a line. file: a plain path; line: 1-based. Returns {start, end} for be-read/be-replace.',
  grammar: GRAMMAR_PLAIN + ' line: integer >= 1.',
  example: { file: 'src/main.go', line: 42 },
  inputSchema: {
    file: z.string().describe('plain path, no range'),
    line: z.number().int().min(1).describe('1-based line inside the function'),
  },
  annotations: { title: 'Function range', readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  async handler(args, { services }) {
    return asRecord(await services.edits.funcRange(args));
  },
});
