import { z } from 'zod';
import { asRecord, defineTool } from './common';

export const beTrx = defineTool({
  name: 'be-trx',
  title: 'Edit history',
  description:
    'Edit history: status, rollback (step), commit, keep/revert an edit (id) or session.',
  grammar: 'action: "status" | "rollback" | "commit" | "keep" | "revert"; step: integer >= 1 (rollback only); id: an event_id (keep, revert).',
  example: { action: 'rollback', step: 1 },
  unlistedArgs: ['force', 'session'],
  inputSchema: () => ({
    action: z.enum(['commit', 'rollback', 'status', 'keep', 'revert']),
    step: z.number().int().min(1).optional(),
    force: z.boolean().optional(),
    id: z.string().optional(),
    session: z.string().optional(),
  }),
  readOnlyCall: (args) => args.action === 'status',
  annotations: { title: 'Edit history', readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  async handler(args, { services }) {
    return asRecord(await services.edits.trx(args));
  },
});
