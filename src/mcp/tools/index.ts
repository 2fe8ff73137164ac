/** The tool table, in tools/list order. Other modules append their line here. */
import type { ServerDeps } from '../deps';
import type { ToolModule } from '../types';
import { beBalance } from './beBalance';
import { beChip } from './beChip';
import { beDelete } from './beDelete';
import { beFuncRange } from './beFuncRange';
import { beInsert } from './beInsert';
import { beInsertChip } from './beInsertChip';
import { beRead } from './beRead';
import { beReplace } from './beReplace';
import { beTagRange } from './beTagRange';
import { beTrx } from './beTrx';
import { beWrite } from './beWrite';
import { beOverview } from './beOverview';
import { beMemory } from './beMemory';
import { beApply } from './beApply';

export const toolTable: ToolModule<ServerDeps>[] = [
  beRead,
  beReplace,
  beInsert,
  beDelete,
  beWrite,
  beFuncRange,
  beTagRange,
  beBalance,
  beInsertChip,
  beTrx,
  beChip,
  beMemory,
  beOverview,
  beApply,
];
