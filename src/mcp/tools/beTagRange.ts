import { z } from 'zod';
import { asRecord, defineTool, GRAMMAR_PLAIN } from './common';

export const beTagRange = defineTool({
  name: 'be-tag-range',
  title: 'Tag range',
  description:
    'Range and name of the markup tag pair around line.',
  grammar: GRAMMAR_PLAIN + ' line: integer >= 1.',
  example: { file: 'src/App.vue', line: 12 },
  inputSchema: {
    file: z.string(),
    line: z.number().int().min(1),
  },
  // Small data: kept as structuredContent, described for clients that validate it.
  outputSchema: { start: z.number().int(), end: z.number().int(), kind: z.string(), tag: z.string() },
  annotations: { title: 'Tag range', readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  async handler(args, { services }) {
    return asRecord(await services.edits.tagRange(args));
  },
});
