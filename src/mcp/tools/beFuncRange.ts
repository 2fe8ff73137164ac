import { z } from 'zod';
import { FUNCTION_KINDS } from '../../core/edits/functions/kinds';
import { lineQueryTool } from './lineQueryTool';

export const beFuncRange = lineQueryTool({
  name: 'be-func-range', title: 'Function range',
  description: 'Start and end of the function or block around line.',
  example: { file: 'src/main.go', line: 42 },
  // Small data: kept as structuredContent, described for clients that validate it.
  outputSchema: () => ({ start: z.number().int(), end: z.number().int(), kind: z.enum(FUNCTION_KINDS).optional(), name: z.string().optional() }),
  run: (edits, args) => edits.funcRange(args),
});
