import { z } from 'zod';
import { ToolError } from '../../core/errors';
import { formatReference } from '../../core/memory/references';
import { headOf } from '../../core/memory/fingerprint';
import { MemoryRegistry } from '../../core/memory/registry';
import type { ChatMemory } from '../../core/memory/chatMemory';
import type { Fingerprint, MemoryMessage, MemoryStats } from '../../core/memory/types';
import type { ServerDeps } from '../deps';
import { defineTool } from './common';

/** The host puts the session registry in ServerDeps as `memory` (see memoryObserver). */
function registryOf(services: ServerDeps): MemoryRegistry {
  const registry = services.memory;
  if (!(registry instanceof MemoryRegistry)) {
    throw new ToolError('invalid_argument', 'be-memory: this server runs without a chat memory (no memory registry configured); the other be-* tools work as usual.');
  }
  return registry;
}

function compactStats(s: MemoryStats): Record<string, unknown> {
  return {
    used: s.usedTokens,
    usable: s.usableTokens,
    max: s.maxTokens,
    fill: `${Math.round(s.fill * 100)}%`,
    messages: s.messages,
    summary_tokens: s.summaryTokens,
    by_priority: s.byPriority,
    by_kind: Object.fromEntries(Object.entries(s.byKind).filter(([, v]) => v > 0)),
    evictions: s.evictions,
    evicted_tokens: s.evictedTokens,
    ...(s.overflow ? { overflow: true } : {}),
    ...(s.warnings.length ? { warnings: s.warnings } : {}),
  };
}

function line(m: MemoryMessage): string {
  const refs = m.references.slice(0, 2).map(formatReference).join(',');
  const flags = `${m.pinned ? ' pinned' : ''}${m.status === 'error' ? ' error' : ''}`;
  return `${m.id} ${m.kind}/${m.priority}${flags} ${m.tokens}t${refs ? ` ${refs}` : ''}: ${headOf(m.content, 80)}`;
}

function fingerprintLine(f: Fingerprint): string {
  const files = f.files.slice(0, 3).map(formatReference).join(',');
  const ids = f.identifiers.slice(0, 4).join(',');
  return `${f.kind}${f.tool ? ` ${f.tool}` : ''}${files ? ` ${files}` : ''}${f.status ? ` ${f.status}` : ''}${ids ? ` [${ids}]` : ''} ${f.tokens}t`;
}

function windowRecap(memory: ChatMemory, recent: number): Record<string, unknown> {
  const visible = memory.visibleMessages();
  const pinned = visible.filter((m) => m.pinned || m.priority === 'high');
  return {
    pinned: pinned.map((m) => ({ id: m.id, group: m.group, text: m.content.length > 400 ? `${m.content.slice(0, 399)}…` : m.content })),
    summary: memory.summary(),
    fingerprints: memory.fingerprints().slice(-12).map(fingerprintLine),
    recent: memory.recent(recent).map(line),
    stats: compactStats(memory.stats()),
  };
}

export const beMemory = defineTool({
  name: 'be-memory',
  title: 'Chat memory',
  description:
    "Manage and read this session's token-budgeted chat memory (tool calls are recorded automatically). " +
    'action: add (content; kind user_query|note|constraint; constraint = high priority, pinned, group "goal"), ' +
    'pin / unpin / evict (id), set_priority (id, priority high|medium|low), ' +
    'window (recap to re-ground after your context was compacted: pinned constraints, summary, evicted fingerprints, recent messages, token stats), stats.',
  descriptionZh:
    '管理并读取本会话按 token 预算的对话记忆（工具调用会自动记录）。action：add（content；kind 为 user_query、note 或 constraint；' +
    'constraint = 高优先级、固定、分组 "goal"）、pin / unpin / evict（id）、set_priority（id、priority：high|medium|low）、' +
    'window（上下文被压缩后重新定位用的回顾：固定约束、摘要、已淘汰消息的指纹、最近消息、token 统计）、stats。',
  grammar: 'action: "add" (content, kind?, priority?, group?) | "pin"|"unpin"|"evict" (id) | "set_priority" (id, priority) | "window" (recent?) | "stats".',
  example: { action: 'add', kind: 'constraint', content: 'Do not modify migration files.' },
  inputSchema: {
    action: z.enum(['add', 'pin', 'unpin', 'set_priority', 'evict', 'window', 'stats']),
    content: z.string().optional().describe('text to add (action add)'),
    kind: z.enum(['user_query', 'note', 'constraint']).optional().describe('for add; default note'),
    priority: z.enum(['high', 'medium', 'low']).optional().describe('for add and set_priority'),
    group: z.string().optional().describe('for add; group "goal" is always pinned'),
    id: z.string().optional().describe('message id (pin, unpin, evict, set_priority); see window'),
    recent: z.number().int().min(0).max(50).optional().describe('window: recent messages to list (default 8)'),
  },
  annotations: { title: 'Chat memory', readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
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
        return { status: 'ok', ...windowRecap(memory, args.recent ?? 8) };
      case 'stats':
        return { status: 'ok', stats: compactStats(memory.stats()) };
    }
  },
});
