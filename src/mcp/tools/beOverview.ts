/** be-overview: the repository map of the workspace or a folder, within a token budget. */
import { z } from 'zod';
import { renderOverview } from '../render/index';
import { ToolError } from '../../core/errors';
import type { MemoryPort } from '../deps';
import { asRecord, defineTool } from './common';
import { sessionQueries } from './sessionQuery';

/**
 * ARCHITECTURE.md, ChatMemory M6: a small, dense file index kept in the window. Pinned, high priority, one per folder:
 * a newer index of the same folder replaces the older one.
 */
function pinIndex(registry: MemoryPort | undefined, sessionId: string, path: string, overview: string): string {
  if (!registry) {
    throw new ToolError('invalid_argument', 'be-overview pin: this server runs without a chat memory; call again without pin.');
  }
  const memory = registry.get(sessionId);
  const id = `file-index:${path}`;
  if (memory.get(id)) {
    memory.unpin(id);
    memory.evict(id);
  }
  memory.add({ id, kind: 'note', priority: 'high', group: 'file-index', pinned: true, content: `[file index: ${path}]\n${overview}` });
  return id;
}

/**
 * The default budget when a query is given at the default overviewBudget (core uses half the setting): the matching files are what the agent asked for, the folder tree and
 * the long tail are not. Measured with `npm run bench:context` (21 tasks): 944 → 438 tokens per overview, the
 * answer among the first 3 files in 21 of 21 either way.
 */
export const QUERY_OVERVIEW_BUDGET = 512;

export const beOverview = defineTool({
  name: 'be-overview',
  title: 'Repository overview',
  description:
    'Repository map: key files with summaries, query matches first.',
  descriptionZh:
    '工作区或文件夹的概览：模块树、按被引用程度排序的关键文件、每个文件的简短摘要、文件数和行数，不超过 budget 个 token（默认 1024，有 query 时 512）。' +
    'query 让匹配的文件排在前面。之后用 be-read 的 mode "structure" 查看文件的符号和行范围。',
  example: { path: 'src', query: 'order amount' },
  inputSchema: () => ({
    path: z.string().optional(),
    budget: z.number().int().min(128).max(32000).optional(),
    query: z.string().optional(),
    pin: z.boolean().optional(),
  }),
  // not read-only: `pin` writes the overview into the session's chat memory
  annotations: { title: 'Repository overview', readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  render: renderOverview,
  pageable: true,
  async handler(args, { services, sessionId, pageTokens }) {
    const ctx = services.context;
    if (!ctx) throw new ToolError('invalid_argument', 'be-overview is not available: this server was started without the context service.');
    // a query without a budget: half the user's overviewBudget (core). Under a host's limit the map gets a budget
    // the host shows whole (the minimum budget is 128).
    const wanted = args.budget ?? (args.query ? Math.max(128, Math.round(ctx.settings.overviewBudget / 2)) : ctx.settings.overviewBudget);
    const reply = await ctx.overview(pageTokens === undefined ? args : { ...args, budget: Math.max(128, Math.min(wanted, pageTokens)) });
    sessionQueries(ctx).set(sessionId, args.query);
    if (!args.pin) return asRecord(reply);
    return { ...reply, pinned_id: pinIndex(services.memory, sessionId, reply.path, reply.overview) };
  },
});
