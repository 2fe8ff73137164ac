import { z } from 'zod';
import { asRecord, defineTool, GRAMMAR_PLAIN } from './common';

export const beBalance = defineTool({
  name: 'be-balance',
  title: 'Check balance',
  description:
    'Check that brackets, braces, parentheses, tags and quotes are balanced (strings and comments aware). file: a plain path.',
  grammar: GRAMMAR_PLAIN,
  example: { file: 'src/main.go' },
  inputSchema: {
    file: z.string().describe('plain path, no range'),
    verbose: z.boolean().optional().describe('false: unbalanced items only; true: full report with matched pairs'),
  },
  annotations: { title: 'Check balance', readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  async handler(args, { services }) {
    return asRecord(await services.edits.balance(args));
  },
});
