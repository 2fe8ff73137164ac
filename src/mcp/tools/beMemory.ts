import { z } from 'zod';
import { renderMemory } from '../render/index';
import { ToolError } from '../../core/errors';
import { buildWindowRecap, compactStats, DEFAULT_RECAP_TOKENS, listPins, messageLine as line, MIN_RECAP_TOKENS } from '../../core/memory/recap';
import type { MemoryPort, ServerDeps } from '../deps';
import { defineTool } from './common';
import { recallAnswer } from '../memoryRecall';

/** The session registry the host composed (its memoryObserver records the calls into it). */
function registryOf(services: ServerDeps): MemoryPort {
  const registry = services.memory;
  if (!registry) {
    throw new ToolError('invalid_argument', 'be-memory: this server runs without a chat memory (no memory registry configured); the other be-* tools work as usual.');
  }
  return registry;
}

export const beMemory = defineTool({
  name: 'be-memory',
  title: 'Chat memory',
  description:
    'Chat memory: add content; pin, unpin, evict, set_priority, recall an id; window (recap), pins, stats.',
  descriptionZh:
    '管理并读取本会话按 token 预算的对话记忆（工具调用会自动记录）。action：add（content；kind 为 user_query、note 或 constraint；' +
    'constraint = 高优先级、固定、分组 "goal"）、pin / unpin / evict（id）、set_priority（id、priority：high|medium|low）、' +
    `window（上下文被压缩后重新定位用的回顾：固定约束、摘要、已淘汰消息的指纹、最近消息、token 统计；最多 budget 个 token，默认 ${DEFAULT_RECAP_TOKENS}，未列出的固定消息计入 pinned_omitted）、` +
    'pins（分页列出所有固定消息：offset、budget）、recall（id：按摘要行或指纹给出的 id 取回已淘汰消息的全文；offset 为起始行，budget）、stats。',
  grammar: 'action: "add" (content, kind?, priority?, group?) | "pin"|"unpin"|"evict" (id) | "set_priority" (id, priority) | "window" (recent?, budget?) | "pins" (offset?, budget?) | "recall" (id, offset?, budget?) | "stats".',
  example: { action: 'add', kind: 'constraint', content: 'Do not modify migration files.' },
  unlistedArgs: ['group', 'recent', 'offset', 'budget'],
  inputSchema: () => ({
    action: z.enum(['add', 'pin', 'unpin', 'set_priority', 'evict', 'window', 'pins', 'recall', 'stats']),
    content: z.string().optional(),
    kind: z.enum(['user_query', 'note', 'constraint']).optional(),
    priority: z.enum(['high', 'medium', 'low']).optional(),
    group: z.string().optional(),
    id: z.string().optional(),
    recent: z.number().int().min(0).max(50).optional(),
    budget: z.number().int().min(MIN_RECAP_TOKENS).max(100_000).optional(),
    offset: z.number().int().min(0).optional(),
  }),
  readOnlyCall: (args) => args.action === 'window' || args.action === 'pins' || args.action === 'recall' || args.action === 'stats',
  annotations: { title: 'Chat memory', readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  render: renderMemory,
  async handler(args, { services, sessionId }) {
    const memory = registryOf(services).get(sessionId);
    const needId = (): string => {
      if (!args.id) throw new ToolError('invalid_argument', `be-memory ${args.action}: missing id. Expected {"action":"${args.action}","id":"m12"}; call {"action":"window"} to list ids.`);
      return args.id;
    };
    switch (args.action) {
      case 'add': {
        if (!args.content?.trim()) throw new ToolError('invalid_argument', 'be-memory add: missing content. Expected {"action":"add","content":"…","kind":"note"}.');
        const constraint = args.kind === 'constraint';
        // A large note is counted in slices (the extension host must not stall on it).
        const tokens = await memory.countTokensAsync(args.content);
        const m = memory.add({
          kind: args.kind === 'user_query' ? 'user_query' : 'note',
          content: args.content,
          tokens,
          priority: args.priority ?? (constraint ? 'high' : undefined),
          group: args.group ?? (constraint ? 'goal' : undefined),
          pinned: constraint ? true : undefined,
        });
        return { status: 'ok', id: m.id, tokens: m.tokens, pinned: m.pinned, priority: m.priority, stats: compactStats(memory.stats()) };
      }
      case 'pin':
        return { status: 'ok', message: line(memory.pin(needId())) };
      case 'unpin':
        return { status: 'ok', message: line(memory.unpin(needId())) };
      case 'set_priority': {
        if (!args.priority) throw new ToolError('invalid_argument', 'be-memory set_priority: missing priority (high, medium or low).');
        return { status: 'ok', message: line(memory.setPriority(needId(), args.priority)) };
      }
      case 'evict':
        return { status: 'ok', evicted: memory.evict(needId()), stats: compactStats(memory.stats()) };
      case 'window':
        return { status: 'ok', ...(await buildWindowRecap(memory, { recent: args.recent ?? 8, budgetTokens: args.budget })) };
      case 'pins':
        return { status: 'ok', ...(await listPins(memory, { offset: args.offset ?? 0, budgetTokens: args.budget })) };
      case 'recall':
        return { status: 'ok', ...(await recallAnswer(services.recall, sessionId, memory, needId(), { offset: args.offset ?? 0, budgetTokens: args.budget ?? DEFAULT_RECAP_TOKENS })) };
      case 'stats':
        return { status: 'ok', stats: compactStats(memory.stats()) };
    }
  },
});
