import { z } from 'zod';
import { asRecord, defineTool, GRAMMAR_PLAIN } from './common';

export const beTagRange = defineTool({
  name: 'be-tag-range',
  title: 'Tag range',
  description:
    'Find the innermost XML/HTML/Vue tag pair enclosing a line. file: a plain path; line: 1-based. Returns {start, end, tag}.',
  grammar: GRAMMAR_PLAIN + ' line: integer >= 1.',
  example: { file: 'src/App.vue', line: 12 },
  inputSchema: {
    file: z.string().describe('plain path, no range'),
    line: z.number().int().min(1).describe('1-based line inside the tag'),
  },
  annotations: { title: 'Tag range', readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  async handler(args, { services }) {
    return asRecord(await services.edits.tagRange(args));
  },
});
