/**
 * The tools of an in-process chat turn (`@better-edit`, the memory bench): the one call pipeline agents take
 * (callPipeline.ts: the tool table, strict arguments, a chip on failure, the edit recorded with its author), called
 * in process — no MCP server, client or transport — and each call/result pair added to the session's ChatMemory
 * before `call` resolves, so the model's next request is assembled with it.
 */
import { headOfArg } from '../core/chips/bound';
import type { ToolRunner, ToolSpec } from '../core/memory/chatTurn';
import type { ChatMemory } from '../core/memory/chatMemory';
import type { Lang } from '../core/lang';
import { createToolCaller, type ToolCaller } from './callPipeline';
import type { ServerDeps } from './deps';
import { recordToolCall } from './memoryObserver';
import { toolListing } from './listing';

/** The client name the edit history records for calls made by an in-process turn. */
export const TURN_CLIENT = 'better-edit-participant';

export interface ToolSession extends ToolRunner {
  readonly sessionId: string;
  close(): Promise<void>;
}

export function openToolSession(o: {
  deps: ServerDeps;
  /** The session's memory, asked at each call (the registry may have dropped and recreated it). */
  memory: (sessionId: string) => ChatMemory;
  sessionId: string;
  lang?: Lang;
  log?: (m: string) => void;
}): ToolSession {
  const caller: ToolCaller = createToolCaller(o.deps, { sessionId: o.sessionId, log: o.log });
  let specs: ToolSpec[] | undefined;
  return {
    sessionId: o.sessionId,
    async list() {
      specs ??= caller.tools.map((t) => {
        const l = toolListing(t, caller.listedName(t), o.lang ?? 'en');
        return { name: l.name, description: l.description ?? '', inputSchema: l.inputSchema as Record<string, unknown> };
      });
      return specs;
    },
    async call(name, input, signal) {
      const r = await caller.call(name, input, { signal, client: TURN_CLIENT });
      // be-memory is recorded too: its answers (a recall) are part of the conversation the model must see next round.
      try {
        await recordToolCall(o.memory(o.sessionId), { tool: canonical(caller, name), args: input, result: r });
      } catch (err) {
        o.log?.(`memory: ${err instanceof Error ? err.message : String(err)}`);
      }
      const text = r.content.map((c) => (c.type === 'text' ? c.text : `[${c.type}]`)).join('\n');
      return { text, isError: r.isError === true };
    },
    async close() {
      specs = undefined;
    },
  };
}

/** The tool's own name (`be-read`) for a name the caller accepts (`read` with noPrefix): the memory names tools so. */
function canonical(caller: ToolCaller, name: string): string {
  return caller.tools.find((t) => t.name === name || caller.listedName(t) === name)?.name ?? headOfArg(name);
}
