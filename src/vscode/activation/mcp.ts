/**
 * The MCP composer: the loopback HTTP host (started when VS Code first resolves the server, not at activation)
 * and its registration with VS Code (McpServerDefinitionProvider) and Cursor.
 */
import * as vscode from 'vscode';
import { memoryObserver } from '../../mcp/memoryObserver';
import type { ServerDeps } from '../../mcp/deps';
import { parseReplyStyle } from '../../mcp/render/index';
import { McpHostController } from '../mcpHost';
import { registerMcpProvider } from '../mcpProvider';
import { liveReplyLimit } from '../settings';
import type { MemoryHome } from './memory';
import type { SettingsRouter } from './settings';
import type { Shell } from './shell';

export function composeMcp(shell: Shell, settings: SettingsRouter, o: { serverDeps: ServerDeps; memory: MemoryHome }): McpHostController {
  const { log } = shell;
  // every MCP session's calls recorded into its ChatMemory (in the memory of the folders open at the time)
  const recorder = memoryObserver(o.memory.port);
  // Replies sized to the client (Copilot: its spill settings, read live), or to betterEditTools.replyMaxChars.
  const replyLimit = liveReplyLimit(shell.setting, (key, fallback) => vscode.workspace.getConfiguration('github.copilot.chat.agent').get(key, fallback));
  const host = new McpHostController(
    // The MCP SDK (zod schemas of the whole protocol, ajv, the HTTP stack) is most of the bundle's evaluation: it is
    // loaded when VS Code first starts the server (resolveMcpServerDefinition), not on every VS Code start.
    async () => {
      const [{ startHttpHost }, { createServer }] = await Promise.all([import('../../mcp/httpHost'), import('../../mcp/server')]);
      return startHttpHost({
        createServerForSession: (sessionId) =>
          createServer(o.serverDeps, { sessionId, observers: [recorder], log: (m) => log.warn(m), lang: shell.lang, reply: parseReplyStyle(shell.setting('reply', 'text')), replyLimit }),
        // an ended session's memory goes with it (after its last records landed); kept on shutdown for the next start
        onSessionClosed: (sessionId, reason) => void (reason !== 'shutdown' && recorder.settled().then(() => o.memory.port.delete(sessionId))),
        log: (m) => log.debug(m),
      });
    },
    () => shell.config().serverEnabled,
    log,
  );
  shell.own(host, registerMcpProvider(host, shell.version, log), settings.on('betterEditTools.server.enabled', () => host.restart()));
  return host;
}
