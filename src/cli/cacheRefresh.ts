/**
 * The code cache saved again once a session has run its first calls (src/core/files/codeCache.ts refreshCodeCache):
 * at the first idle moment after its first call and after its first call of another tool (typically a read, then an
 * edit), when the cache has grown. A first start saves its cache 1.5 s in, before most clients send a call; a client
 * that ends the server with a signal leaves no exit for a later save: without this, every later start compiled its
 * read and edit paths again in its first calls.
 */
import type { CallObserver } from '../mcp/types';

/** Refreshes after at most this many calls of a session (each refresh costs ~10-30 ms of an idle moment). */
const REFRESHES = 2;

export function cacheRefresher(whenIdle: () => Promise<void>, refresh: () => boolean): CallObserver {
  const seen = new Set<string>();
  let pending: Promise<void> | undefined;
  return {
    onToolCall: () => undefined,
    onToolResult({ tool }) {
      if (seen.size >= REFRESHES || seen.has(tool)) return;
      seen.add(tool);
      // one at a time: a second call's refresh follows the first one's
      pending = (pending ?? Promise.resolve()).then(whenIdle).then(() => void refresh(), () => undefined);
    },
  };
}
