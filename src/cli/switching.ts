/**
 * Deps and an observer that follow the CLI's current composition (the roots may change mid-session, and the server
 * answers before the first one is ready). Apart from clientRoots.ts so that the lean start needs no SDK module.
 */
import type { CallObserver } from '../mcp/types';
import type { ContextPort, ServerDeps } from '../mcp/deps';

/**
 * ServerDeps that follow the current composition (the roots may change mid-session). Before the first one the
 * workspace requests are held, so only createServer's construction sees the placeholder context.
 */
export function switchingDeps(current: () => ServerDeps | undefined): ServerDeps {
  const notYet = (): never => {
    throw new Error('the project folder is not known yet (waiting for the client\'s MCP roots)');
  };
  const pendingContext: ContextPort = {
    get settings() {
      return notYet();
    },
    get tokenizer() {
      return notYet();
    },
    read: async () => notYet(),
    overview: async () => notYet(),
    structure: async () => notYet(),
  };
  return {
    get edits() {
      return current()?.edits ?? notYet();
    },
    get chips() {
      return current()?.chips ?? notYet();
    },
    get apply() {
      return current()?.apply;
    },
    get context() {
      return current()?.context ?? pendingContext;
    },
    get memory() {
      return current()?.memory;
    },
    get recall() {
      return current()?.recall;
    },
    get authors() {
      return current()?.authors;
    },
    get chipFormat() {
      return current()?.chipFormat;
    },
  };
}

/** An observer that passes every event to the current composition's (its memory recorder), if any. */
export function switchingObserver(current: () => CallObserver | undefined): CallObserver {
  return {
    onToolCall: (e) => current()?.onToolCall(e),
    onToolResult: (e) => current()?.onToolResult(e),
    onSessionClosed: (id) => current()?.onSessionClosed?.(id),
    beforeCall: (e) => current()?.beforeCall?.(e),
  };
}
