import { z } from 'zod';
import { modelBalanceReport } from '../../core/edits/balance';
import { asRecord, defineTool, GRAMMAR_PLAIN } from './common';

export const beBalance = defineTool({
  name: 'be-balance',
  title: 'Check balance',
  description:
    'Check that brackets, tags and quotes balance.',
  grammar: GRAMMAR_PLAIN,
  example: { file: 'src/main.go' },
  unlistedArgs: ['verbose'],
  inputSchema: () => ({
    file: z.string(),
    verbose: z.boolean().optional(),
  }),
  // Small data: kept as structuredContent, described for clients that validate it. The default reply says
  // `balanced`; `--reply json` keeps upstream's `mode` (`"unbalanced"` names the report, not the file) and `status`.
  outputSchema: () => ({ balanced: z.boolean().optional(), mode: z.enum(['unbalanced', 'verbose']).optional(), status: z.string().optional() }),
  annotations: { title: 'Check balance', readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  async handler(args, { services, reply }) {
    const report = await services.edits.balance(args);
    return asRecord(reply === 'json' ? report : modelBalanceReport(report));
  },
});
