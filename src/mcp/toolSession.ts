/**
 * The participant's tools: an MCP client of our own server, in process, over the SDK's in-memory transport.
 * Every call takes the agents' path (the tool table, strict arguments, a chip on failure, the observers); the
 * memory observer of this session records each call/result pair into the participant's ChatMemory.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { ToolRunner, ToolSpec } from '../core/memory/chatTurn';
import type { MemoryRegistry } from '../core/memory/node/registry';
import { memoryObserver } from './memoryObserver';
import { createServer, type ServerDeps } from './server';
import type { CallObserver } from './types';

export interface ToolSession extends ToolRunner {
  close(): Promise<void>;
}

export async function openToolSession(o: {
  deps: ServerDeps;
  registry: MemoryRegistry;
  sessionId: string;
  /** Observers besides the memory recorder (the host's others). */
  observers?: CallObserver[];
  lang?: 'en' | 'zh';
  log?: (m: string) => void;
}): Promise<ToolSession> {
  // be-memory is recorded too: its answers (a recall) are part of the conversation the model must see next round.
  const recorder = memoryObserver(o.registry, { skipTools: [], onError: (e) => o.log?.(`memory: ${String(e)}`) });
  const server = createServer(o.deps, { sessionId: o.sessionId, observers: [recorder, ...(o.observers ?? [])], lang: o.lang, log: o.log });
  const [serverSide, clientSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'better-edit-participant', version: '1.0.0' });
  await client.connect(clientSide);
  let specs: ToolSpec[] | undefined;
  return {
    async list() {
      specs ??= (await client.listTools()).tools.map((t) => ({ name: t.name, description: t.description ?? '', inputSchema: t.inputSchema as Record<string, unknown> }));
      return specs;
    },
    async call(name, input, signal) {
      const r = (await client.callTool({ name, arguments: input }, undefined, { signal })) as CallToolResult;
      const text = r.content.map((c) => (c.type === 'text' ? c.text : `[${c.type}]`)).join('\n');
      return { text, isError: r.isError === true };
    },
    settled: () => recorder.settled(),
    async close() {
      await recorder.settled();
      await client.close();
      await server.close();
    },
  };
}
