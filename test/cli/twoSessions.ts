/**
 * Two tool sessions (agent-a, agent-b) over one real workspace, history folder and memory registry, as the CLI
 * composes them: the recap suites edit through them and read back what `better-edit-tools recap` reads.
 */
import { MemoryRegistry } from '../../src/core/memory/node/registry';
import { createServices, type Services } from '../../src/mcp/services';
import { openToolSession, type ToolSession } from '../../src/mcp/toolSession';
import { memoryDeps } from '../core/memory/memoryDeps';
import { tmpWorkspace, type Workspace } from '../mcp/helpers';

export interface TwoSessions {
  ws: Workspace;
  services: Services;
  registry: MemoryRegistry;
  a: ToolSession;
  b: ToolSession;
  close(): Promise<void>;
}

/** `files` are written as `// <name>\nexport const x = 1;\n` before the services start. */
export async function twoSessions(files: readonly string[]): Promise<TwoSessions> {
  const ws = await tmpWorkspace();
  for (const f of files) await ws.write(f, `// ${f}\nexport const x = 1;\n`);
  const registry = new MemoryRegistry({ deps: memoryDeps });
  const services = await createServices({ roots: [ws.root], chipDir: ws.chipDir, historyDir: ws.historyDir, memory: registry });
  const open = (sessionId: string) => openToolSession({ deps: services.deps, memory: (id) => registry.get(id), sessionId });
  const a = open('agent-a');
  const b = open('agent-b');
  return {
    ws,
    services,
    registry,
    a,
    b,
    async close() {
      await a.close();
      await b.close();
      await services.close();
      await registry.dispose();
      await ws.dispose();
    },
  };
}
