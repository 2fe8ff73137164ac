/** be-trx: commit, roll back, show or review the edit history (core/history). */
import { ToolError } from '../../errors';
import type { EditContext } from '../editContext';
import { trxMessages } from '../messages';
import type { TrxArgs } from '../types';

export async function runTrx(ctx: EditContext, args: TrxArgs): Promise<Record<string, unknown>> {
  const { history } = ctx;
  if (!history) throw new ToolError('invalid_argument', trxMessages.disabled);
  switch (args.action) {
    case 'commit':
      return { status: 'ok', ...(await history.commit()) };
    case 'rollback': {
      const step = Math.max(1, Math.floor(args.step ?? 1));
      return { ...(await history.rollback(step, !!args.force)) };
    }
    case 'status':
      return { status: 'ok', ...(await history.status()) };
    default:
      if (history.review && (args.action === 'keep' || args.action === 'revert')) return { ...(await history.review({ ...args, action: args.action })) };
      throw new ToolError('invalid_argument', trxMessages.unknownAction(String(args.action)));
  }
}
