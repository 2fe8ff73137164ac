import { z } from 'zod';
import { asRecord, defineTool } from './common';

export const beTrx = defineTool({
  name: 'be-trx',
  title: 'Edit history',
  description:
    'Edit history of this workspace. action: status (list snapshots), rollback (undo the newest `step` edits, newest first; ' +
    'refuses files changed since unless force), commit (forget all snapshots).',
  grammar: 'action: "status" | "rollback" | "commit"; step: integer >= 1 (rollback only).',
  example: { action: 'rollback', step: 1 },
  inputSchema: {
    action: z.enum(['commit', 'rollback', 'status']).describe('commit, rollback or status'),
    step: z.number().int().min(1).optional().describe('rollback only: how many recent edits to undo (default 1)'),
    force: z.boolean().optional().describe('rollback only: overwrite files changed since the snapshot'),
  },
  readOnlyCall: (args) => args.action === 'status',
  annotations: { title: 'Edit history', readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  async handler(args, { services }) {
    return asRecord(await services.edits.trx(args));
  },
});
