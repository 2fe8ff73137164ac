/** be-apply: several edits across several files in one call, all or nothing, one be-trx rollback step. */
import { z } from 'zod';
import { ToolError } from '../../core/errors';
import { asRecord, defineTool, editOptions } from './common';

// no per-field descriptions: the grammar is be-replace's, stated once in the catalog (every listed token is paid per turn)
const edit = () => z.object({
  file: z.string(),
  content: z.string().optional(),
  op: z.enum(['insert', 'replace', 'delete', 'write']).optional(),
  old: z.string().optional(),
  viewed_code_id: z.string().optional(),
});

export const beApply = defineTool({
  name: 'be-apply',
  title: 'Apply several edits',
  description:
    'Edits across files, all or nothing, lines as before the call; each as be-replace/be-write, op "insert" at path:N.',
  descriptionZh:
    '一次调用跨多个文件的多处修改，全部成功或全部不写；be-trx rollback 一步撤销。行号均指调用前的文件。' +
    '每项 file 的写法同 be-replace / be-insert（op "insert"）/ be-delete / be-write。',
  unlistedArgs: ['format', 'brief', 'preview'],
  example: { edits: [{ file: 'src/a.ts:3-4', content: 'x\n' }, { file: 'src/b.ts:0', op: 'insert', content: 'y\n' }] },
  inputSchema: () => ({
    edits: z.array(edit()), // at least one: the service says so (a minItems would be paid on every turn)
    ...editOptions(),
  }),
  annotations: { title: 'Apply several edits', readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  async handler(args, { services }) {
    const apply = services.apply;
    if (!apply) throw new ToolError('invalid_argument', 'be-apply is not available in this server; use one be-* edit per file.');
    return asRecord(await apply.apply(args));
  },
});
