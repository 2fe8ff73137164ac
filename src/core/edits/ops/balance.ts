/** be-balance: the bracket, tag and quote report of a whole file (balance.ts). */
import { analyzableText, loadFile, type EditContext } from '../editContext';
import { checkBalance, type BalanceReport } from '../balance';
import type { BalanceArgs } from '../types';

export async function balanceReport(ctx: EditContext, args: BalanceArgs): Promise<BalanceReport> {
  const ld = await loadFile(ctx, args.file);
  return checkBalance(analyzableText(ctx, ld), ld.languageId, !!args.verbose);
}
