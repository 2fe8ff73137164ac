/** be-memory recall: a message that left the window, in full, paged by lines within a token budget. */
import { ToolError } from '../core/errors';
import type { ChatMemory } from '../core/memory/chatMemory';
import { recallPage, type RecalledMessage } from '../core/memory/node/recallStore';
import type { RecallPort } from './deps';

export async function recallAnswer(
  store: RecallPort | undefined,
  sessionId: string,
  memory: ChatMemory,
  id: string,
  opts: { offset: number; budgetTokens: number },
): Promise<Record<string, unknown>> {
  const live = memory.get(id);
  let message: RecalledMessage | undefined;
  if (live) {
    message = { ...live, evictedAt: 0 };
  } else {
    if (!store) {
      throw new ToolError('invalid_argument', 'be-memory recall: this server keeps no recall archive (no memory directory); only messages still in the window can be read.');
    }
    message = await store.recall(sessionId, id);
  }
  if (!message) {
    const known = memory.fingerprints().slice(-10).map((f) => f.id);
    throw new ToolError(
      'not_found',
      `be-memory recall: no message "${id}" in this session's window or archive (never recorded, or dropped from the bounded archive). ` +
        (known.length ? `Recallable ids of the latest evictions: ${known.join(', ')}.` : 'Nothing has been evicted yet.'),
      { id },
    );
  }
  const page = await recallPage(message, { offset: opts.offset, budgetTokens: opts.budgetTokens, count: (t) => memory.countTokensAsync(t) });
  return {
    id: message.id,
    kind: message.kind,
    ...(message.tool !== undefined ? { tool: message.tool } : {}),
    ...(message.status !== undefined ? { result: message.status } : {}),
    ...(message.pairId !== undefined ? { pair_id: message.pairId } : {}),
    in_window: live !== undefined,
    tokens: message.tokens,
    ...page,
  };
}
