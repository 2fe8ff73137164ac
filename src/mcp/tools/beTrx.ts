import { z } from 'zod';
import { asRecord, defineTool } from './common';

export const beTrx = defineTool({
  name: 'be-trx',
  title: 'Edit history',
  description:
    'Edit history of this workspace. action: status (list snapshots), rollback (undo the newest `step` edits, newest first; ' +
    'refuses files changed since unless force), commit (forget all snapshots), keep (forget one edit\'s snapshot: `id`), ' +
    'revert (undo one edit by `id`, or every edit of a `session`, newest first; refused when its lines changed since).',
  grammar: 'action: "status" | "rollback" | "commit" | "keep" | "revert"; step: integer >= 1 (rollback only); id: an event_id (keep, revert).',
  example: { action: 'rollback', step: 1 },
  inputSchema: {
    action: z.enum(['commit', 'rollback', 'status', 'keep', 'revert']).describe('commit, rollback, status, keep or revert'),
    step: z.number().int().min(1).optional().describe('rollback only: how many recent edits to undo (default 1)'),
    force: z.boolean().optional().describe('rollback only: overwrite files changed since the snapshot'),
    id: z.string().optional().describe('keep / revert: the event_id of one edit'),
    session: z.string().optional().describe('revert: undo every edit of this MCP session'),
  },
  readOnlyCall: (args) => args.action === 'status',
  annotations: { title: 'Edit history', readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  async handler(args, { services }) {
    return asRecord(await services.edits.trx(args));
  },
});
