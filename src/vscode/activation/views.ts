/**
 * The composers of the smaller views: Agent Edits (the review of recorded edits, following the composition's
 * history), the Token Window and `@better-edit` (both following the memory when the folders change).
 */
import { registerAgentEdits, type AgentEdits } from '../agentEdits/register';
import { registerChatParticipant, type BetterEditParticipant } from '../chat/participant';
import type { ServerDeps } from '../../mcp/deps';
import { memorySettings } from '../settings';
import { registerTokenWindow } from '../tokenWindow';
import type { UiTools } from '../uiTools';
import type { MemoryHome } from './memory';
import type { Shell } from './shell';
import type { Workspace } from './workspace';

export function composeAgentEdits(shell: Shell, workspace: Workspace, tools: UiTools): AgentEdits {
  const agentEdits = registerAgentEdits(shell.context, { history: workspace.current().history, tools, log: shell.log });
  shell.own(workspace.onDidRecompose((c) => agentEdits.setHistory(c.history)));
  return agentEdits;
}

export function composeTokenWindow(shell: Shell, memory: MemoryHome): void {
  const { provider } = registerTokenWindow(shell.context, memory.current().registry, memory.current().turns);
  shell.own(memory.onDidChange((m) => provider.setSource(m.registry, m.turns)));
}

export function composeParticipant(shell: Shell, memory: MemoryHome, serverDeps: ServerDeps): BetterEditParticipant | undefined {
  return registerChatParticipant(shell.context, {
    memory: () => memory.current(),
    serverDeps,
    log: shell.log,
    lang: shell.lang,
    reserveRatio: () => memorySettings(shell.setting).options.reserveRatio,
  });
}
