import { z } from 'zod';
import { asRecord, defineTool, GRAMMAR_PLAIN } from './common';

export const beBalance = defineTool({
  name: 'be-balance',
  title: 'Check balance',
  description:
    'Check that brackets, tags and quotes balance.',
  grammar: GRAMMAR_PLAIN,
  example: { file: 'src/main.go' },
  unlistedArgs: ['verbose'],
  inputSchema: {
    file: z.string(),
    verbose: z.boolean().optional(),
  },
  // Small data (the listed call): kept as structuredContent, described for clients that validate it.
  outputSchema: { mode: z.enum(['unbalanced', 'verbose']), status: z.string().optional() },
  annotations: { title: 'Check balance', readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  async handler(args, { services }) {
    return asRecord(await services.edits.balance(args));
  },
});
