/** be-apply: several edits across several files in one call, all or nothing, one be-trx rollback step. */
import { z } from 'zod';
import { ToolError } from '../../core/errors';
import type { BatchEditor } from '../../core/edits/apply/service';
import { asRecord, brief, defineTool, format, preview } from './common';

const edit = z.object({
  file: z.string().describe('"path:S-E", "path:N", "path:ALL" or "path"'),
  content: z.string().optional().describe('new text; omit to delete the range'),
  op: z.enum(['replace', 'insert', 'delete', 'write']).optional().describe('default: write for a plain path, else replace, or delete without content'),
  old: z.string().optional().describe('expected current text of the range'),
  viewed_code_id: z.string().optional().describe('id from be-read'),
});

export const beApply = defineTool({
  name: 'be-apply',
  title: 'Apply several edits',
  description:
    'Several edits across files, all or nothing (none written unless every one is valid); one be-trx rollback step. ' +
    'Ranges refer to the files before the call. Each edit: file as in be-replace/be-insert (op "insert")/be-delete/be-write.',
  descriptionZh:
    '一次调用跨多个文件的多处修改，全部成功或全部不写；be-trx rollback 一步撤销。行号均指调用前的文件。' +
    '每项 file 的写法同 be-replace / be-insert（op "insert"）/ be-delete / be-write。',
  example: { edits: [{ file: 'src/a.ts:3-4', content: 'x\n' }, { file: 'src/b.ts:0', op: 'insert', content: 'y\n' }] },
  inputSchema: {
    edits: z.array(edit).min(1).describe('the edits, a plain array of objects'),
    format,
    preview,
    brief,
  },
  annotations: { title: 'Apply several edits', readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  async handler(args, { services }) {
    const apply = services.apply as BatchEditor | undefined;
    if (!apply) throw new ToolError('invalid_argument', 'be-apply is not available in this server; use one be-* edit per file.');
    return asRecord(await apply.apply(args));
  },
});
