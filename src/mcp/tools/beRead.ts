import { z } from 'zod';
import { renderRead } from '../render/index';
import { asRecord, defineTool } from './common';
import type { ContextReply, ReadRequest } from '../../core/context/node/service';
import type { ContextPort } from '../deps';
import { sessionQueries } from './sessionQuery';

/** The header of a text page (path, range, id, next call) stays well under this. */
export const PAGE_HEADER_TOKENS = 120;

/**
 * In JSON style the model sees the page inside a JSON string (every newline, tab and quote escaped, ~+20%): a page
 * over the limit as seen is read again with a limit scaled down by what it cost (at most three times).
 */
async function jsonPageWithin(ctx: ContextPort, req: ReadRequest, budget?: number): Promise<ContextReply> {
  const pageTokens = Math.min(ctx.settings.pageTokens, budget ?? Infinity);
  let limit = pageTokens - PAGE_HEADER_TOKENS;
  let page = await ctx.read({ ...req, limit });
  // a small page is read before the rank table is loaded (service.ts): the JSON count below waits for it, in slices
  if (page.mode === 'full') await ctx.tokenizer.ready?.();
  for (let i = 0; i < 3 && page.mode === 'full'; i++) {
    const seen = ctx.tokenizer.count(JSON.stringify(page));
    if (seen <= pageTokens) break;
    limit = Math.max(100, Math.floor((limit * pageTokens) / seen) - 50);
    page = await ctx.read({ ...req, limit });
  }
  return page;
}

export const beRead = defineTool({
  name: 'be-read',
  title: 'Read lines',
  description:
    'Rows "N text"; an unnumbered row follows the one above. file: path, path:N, path:S-E or path:ALL ' +
    '(1-based, inclusive; all tools). id= is the viewed_code_id for edits. mode: full, structure (symbols; query: ' +
    'matching ones first, default the last overview\'s query), overview.',
  descriptionZh:
    '带行号读取文件：每行 "N 文本"；没有行号的行是上一行的下一行。file："path"（整个文件）、"path:N"、"path:S-E" 或 "path:ALL"；行号从 1 开始，闭区间。' +
    '返回 viewed_code_id；传给 be-replace 可在文件已变化时拒绝编辑。mode：auto（无范围时小文件读全文，否则给结构）、' +
    'full（分页，按 hint 继续）、structure（符号，行范围在前）、overview（文件夹概览）。',
  grammar: 'file: "path", "path:N", "path:S-E" or "path:ALL"; 1-based, inclusive.',
  example: { file: 'src/main.go:10-20' },
  unlistedArgs: ['column', 'brief', 'target', 'from'],
  inputSchema: () => ({
    file: z.string(),
    brief: z.boolean().optional(),
    target: z
      .object({
        kind: z.enum(['line', 'function', 'marker', 'tag']),
        value: z.string(),
      })
      .optional(),
    mode: z.enum(['auto', 'full', 'structure', 'overview']).optional(),
    query: z.string().optional(),
    from: z.number().int().min(1).optional(),
    column: z.number().int().min(1).optional(),
  }),
  annotations: { title: 'Read lines', readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  render: renderRead,
  pageable: true,
  async handler(args, { services, reply, pageTokens, sessionId, signal }) {
    // Context modes (when the host composed a context service): every reply carries mode, data_type and hint.
    const ctx = services.context;
    if (ctx && !args.brief && !args.target) {
      // A structure read answers the session's last overview query unless it names its own ("" for none).
      const carried = args.query === undefined ? sessionQueries(ctx).get(sessionId) : undefined;
      const query = args.query ?? carried;
      const req = { file: args.file, mode: args.mode, column: args.column, from: args.from, query, signal };
      const tag = (r: Record<string, unknown>) => (carried !== undefined && typeof r.query === 'string' ? { ...r, carried: true } : r);
      if (reply === 'json') return tag(asRecord(await jsonPageWithin(ctx, req, pageTokens)));
      // A text page is its numbered rows plus a one-line header: the header's room comes off the page limit.
      // (the smallest page setting, 500, still leaves its rows 380 tokens: no floor that would push a page over it)
      // Under a host's limit (ctx.pageTokens) the page is smaller; its `next` is the exact call for the rest.
      const budget = Math.min(ctx.settings.pageTokens, pageTokens ?? Infinity);
      return tag(asRecord(await ctx.read({ ...req, blank: '', limit: Math.max(64, budget - PAGE_HEADER_TOKENS) })));
    }
    // text rows show an empty line as an empty row (render/common.ts), so a line that reads "<blank>" stays itself
    const result = asRecord(await services.edits.read(reply === 'json' ? args : { ...args, blank: '' }));
    return ctx ? { ...result, mode: 'full', data_type: 'file_content', hint: args.brief ? 'metadata only' : 'complete' } : result;
  },
});
