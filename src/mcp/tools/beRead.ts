import { z } from 'zod';
import { asRecord, defineTool } from './common';
import { contextOf } from './beOverview';

export const beRead = defineTool({
  name: 'be-read',
  title: 'Read lines',
  description:
    'Read a file with line numbers. file: "path" (whole file), "path:N", "path:S-E" or "path:ALL"; 1-based, inclusive. ' +
    'Returns viewed_code_id; pass it to be-replace to refuse the edit if the file changed since. ' +
    'mode: auto (no range: whole file if small, else its structure), full (paginated, follow hint), structure ' +
    '(symbols with @L ranges), overview (folder map).',
  descriptionZh:
    '带行号读取文件。file："path"（整个文件）、"path:N"、"path:S-E" 或 "path:ALL"；行号从 1 开始，闭区间。' +
    '返回 viewed_code_id；传给 be-replace 可在文件已变化时拒绝编辑。mode：auto（无范围时小文件读全文，否则给结构）、' +
    'full（分页，按 hint 继续）、structure（带 @L 行范围的符号）、overview（文件夹概览）。',
  grammar: 'file: "path", "path:N", "path:S-E" or "path:ALL"; 1-based, inclusive.',
  example: { file: 'src/main.go:10-20' },
  inputSchema: {
    file: z.string().describe('path with optional range: a.go, a.go:23, a.go:1-30, a.go:ALL'),
    brief: z.boolean().optional().describe('metadata only, no content'),
    target: z
      .object({
        kind: z.enum(['line', 'function', 'marker', 'tag']),
        value: z.string(),
      })
      .optional()
      .describe('find the lines by function name, marker text or tag instead of a range'),
    mode: z.enum(['auto', 'full', 'structure', 'overview']).optional().describe('detail level; a range always reads full'),
    column: z.number().int().min(1).optional().describe('full: continue a split long line at this character (from hint)'),
  },
  annotations: { title: 'Read lines', readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  async handler(args, { services }) {
    // Context modes (when the host composed a context service): every reply carries mode, data_type and hint.
    const ctx = contextOf(services);
    if (ctx && !args.brief && !args.target) {
      return asRecord(await ctx.read({ file: args.file, mode: args.mode, column: args.column }));
    }
    const result = asRecord(await services.edits.read(args));
    return ctx ? { ...result, mode: 'full', data_type: 'file_content', hint: args.brief ? 'metadata only' : 'complete' } : result;
  },
});
