/**
 * `@better-edit`: a chat participant whose every request is assembled by ChatMemory (src/core/memory/chatTurn.ts,
 * promptAssembly.ts) on the model the user picked, with our be-* tools called in process through the agents' call
 * pipeline (src/mcp/toolSession.ts: each call/result pair enters the memory before the next request). Slash
 * commands: /pin (a constraint that stays in every prompt), /window (what the window holds now), /forget (an id
 * leaves; it stays recallable). One ChatMemory session per chat conversation, named in each result's metadata; the
 * conversations' tool sessions are bounded in number and dropped when idle.
 */
import { randomUUID } from 'node:crypto';
import * as vscode from 'vscode';
import { isToolError } from '../../core/errors';
import { DEFAULT_SYSTEM_PROMPT, runChatTurn } from '../../core/memory/chatTurn';
import { buildWindowRecap } from '../../core/memory/recap';
import type { RecallStore } from '../../core/memory/node/recallStore';
import type { MemoryRegistry } from '../../core/memory/node/registry';
import { getTokenizer } from '../../core/memory/node/tokenizer';
import type { TurnLog } from '../../core/memory/node/turnLog';
import type { ServerDeps } from '../../mcp/server';
import { chatModelPort } from './lmModel';
import type { ToolSession } from '../../mcp/toolSession';
import type { Lang } from '../../core/lang';

export const PARTICIPANT_ID = 'betterEditTools.chat';
/** Chat sessions are named so in the registry (and the Token Window's session list). */
export const CHAT_SESSION_PREFIX = 'chat-';

/** The memory the participant writes to: asked at each request (it follows the workspace folders). */
export interface ParticipantMemory {
  registry: MemoryRegistry;
  recall: RecallStore;
  turns: TurnLog;
}

export interface ParticipantDeps {
  memory(): ParticipantMemory;
  serverDeps: ServerDeps;
  /** Share of the model's input kept free for the answer (setting betterEditTools.memory.reserveRatio). */
  reserveRatio(): number;
  log: vscode.LogOutputChannel;
  lang: Lang;
  /** Tool sessions kept at most (the least recently used goes first; default 16). */
  maxSessions?: number;
  /** A tool session unused this long is dropped (default 30 minutes); the conversation gets a new one if it returns. */
  idleMs?: number;
  now?: () => number;
}

export const MAX_TOOL_SESSIONS = 16;
export const TOOL_SESSION_IDLE_MS = 30 * 60_000;

interface ResultMetadata {
  sessionId: string;
  turn?: number;
}

/** The conversation's session: the one named by an earlier answer of ours, else a new one. */
export function sessionOf(context: vscode.ChatContext): string {
  for (let i = context.history.length - 1; i >= 0; i--) {
    const h = context.history[i];
    if (h instanceof vscode.ChatResponseTurn && h.participant === PARTICIPANT_ID) {
      const id = (h.result.metadata as ResultMetadata | undefined)?.sessionId;
      if (typeof id === 'string') return id;
    }
  }
  return `${CHAT_SESSION_PREFIX}${randomUUID()}`;
}

/** Files the user attached (#file, selections): the external context, as an index (paths and ranges). */
function attachedIndex(request: vscode.ChatRequest): string | undefined {
  const lines: string[] = [];
  for (const ref of request.references) {
    const v = ref.value;
    if (v instanceof vscode.Uri) lines.push(`- ${vscode.workspace.asRelativePath(v)}`);
    else if (v instanceof vscode.Location) lines.push(`- ${vscode.workspace.asRelativePath(v.uri)}:${v.range.start.line + 1}-${v.range.end.line + 1}`);
  }
  return lines.length ? `Files the user attached (read them with be-read):\n${lines.join('\n')}` : undefined;
}

export class BetterEditParticipant implements vscode.Disposable {
  /** Per conversation: its tools (a caller of the call pipeline with the conversation's session id), by last use. */
  private readonly sessions = new Map<string, { tools: ToolSession; lastUsed: number }>();

  constructor(private readonly deps: ParticipantDeps) {}

  /** The conversations whose tool sessions are kept now, least recently used first. */
  sessionIds(): string[] {
    return [...this.sessions.keys()];
  }

  private now(): number {
    return (this.deps.now ?? Date.now)();
  }

  /** Drops the tool sessions idle too long, then the least recently used over the bound (keeping `keep`). */
  prune(keep?: string): void {
    const now = this.now();
    const idle = this.deps.idleMs ?? TOOL_SESSION_IDLE_MS;
    const max = Math.max(1, this.deps.maxSessions ?? MAX_TOOL_SESSIONS);
    for (const [id, s] of this.sessions) if (id !== keep && now - s.lastUsed > idle) this.drop(id);
    for (const id of this.sessions.keys()) {
      if (this.sessions.size <= max) break;
      if (id !== keep) this.drop(id);
    }
  }

  private drop(id: string): void {
    const s = this.sessions.get(id);
    this.sessions.delete(id);
    void s?.tools.close().catch(() => undefined);
  }

  private tools(sessionId: string): ToolSession {
    // The tool table is loaded with the first chat request, not at activation; by require(), which the bundle keeps
    // lazy and the tests (run as CommonJS) resolve.
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- lazy on purpose (above)
    const { openToolSession } = require('../../mcp/toolSession') as typeof import('../../mcp/toolSession');
    let s = this.sessions.get(sessionId);
    if (s) this.sessions.delete(sessionId); // re-inserted last: the map's order is the order of use
    s ??= {
      tools: openToolSession({ deps: this.deps.serverDeps, memory: (id) => this.deps.memory().registry.get(id), sessionId, lang: this.deps.lang, log: (m) => this.deps.log.warn(m) }),
      lastUsed: 0,
    };
    s.lastUsed = this.now();
    this.sessions.set(sessionId, s);
    this.prune(sessionId);
    return s.tools;
  }

  readonly handler: vscode.ChatRequestHandler = async (request, context, stream, token) => {
    const sessionId = sessionOf(context);
    const { registry, recall, turns } = this.deps.memory();
    const memory = registry.get(sessionId);
    const metadata: ResultMetadata = { sessionId };
    const arg = request.prompt.trim();
    try {
      switch (request.command) {
        case 'pin': {
          if (!arg) {
            stream.markdown(vscode.l10n.t('Usage: `/pin <constraint>` — the constraint stays in every prompt of this conversation.'));
            return { metadata };
          }
          const recorder = turns.begin(sessionId, memory, 'user', `/pin ${arg}`, Date.now());
          const m = memory.add({ kind: 'note', content: arg, priority: 'high', group: 'goal', pinned: true });
          recorder.finish();
          stream.markdown(vscode.l10n.t('Pinned as {0} ({1} tokens): it is in every prompt from now on.', m.id, m.tokens));
          return { metadata };
        }
        case 'forget': {
          const id = arg.split(/\s+/)[0] ?? '';
          if (!memory.get(id)) {
            stream.markdown(vscode.l10n.t('No message "{0}" in the window; /window lists the ids.', id));
            return { metadata };
          }
          if (memory.get(id)!.pinned) memory.unpin(id);
          const recorder = turns.begin(sessionId, memory, 'user', `/forget ${id}`, Date.now());
          const gone = recorder.because('forgotten by the user (/forget)', () => memory.evict(id));
          recorder.finish();
          stream.markdown(vscode.l10n.t('Forgot {0}; it stays recallable by id.', gone.join(', ')));
          return { metadata };
        }
        case 'window': {
          const recap = await buildWindowRecap(memory, { recent: 12, budgetTokens: 3000 });
          const lines = [
            `**${sessionId}** — ${JSON.stringify(recap.stats)}`,
            '',
            `**${vscode.l10n.t('Pinned')}**`,
            ...recap.pinned.map((p) => `- \`${p.id}\` ${p.text}`),
            '',
            `**${vscode.l10n.t('Recent')}**`,
            ...recap.recent.map((r) => `- ${r}`),
            '',
            `**${vscode.l10n.t('Summary')}**`,
            recap.summary || '-',
            '',
            `**${vscode.l10n.t('Evicted (recallable by id)')}**`,
            ...recap.fingerprints.map((f) => `- ${f}`),
          ];
          stream.markdown(lines.join('\n'));
          return { metadata };
        }
      }
      const abort = new AbortController();
      const sub = token.onCancellationRequested(() => abort.abort());
      try {
        const tokenizer = getTokenizer(memory.options.encoding);
        const model = request.model;
        const result = await runChatTurn(
          {
            sessionId,
            memory,
            model: chatModelPort(model),
            tools: this.tools(sessionId),
            turns,
            recall: (id) => recall.recall(sessionId, id),
            count: (t) => tokenizer.count(t),
            now: () => Date.now(),
          },
          {
            prompt: request.prompt,
            systemPrompt: DEFAULT_SYSTEM_PROMPT,
            externalContext: attachedIndex(request),
            reserveTokens: Math.floor(model.maxInputTokens * this.deps.reserveRatio()),
            signal: abort.signal,
            sink: { text: (md) => stream.markdown(md), progress: (m) => stream.progress(m) },
          },
        );
        metadata.turn = turns.list(sessionId).at(-1)?.turn;
        if (result.recalled.length) stream.markdown(`\n\n_${vscode.l10n.t('Recalled from earlier in this conversation: {0}', result.recalled.join(', '))}_`);
        return { metadata };
      } finally {
        sub.dispose();
      }
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      if (!isToolError(err)) this.deps.log.error(`@better-edit: ${message}`);
      return { metadata, errorDetails: { message } };
    }
  };

  dispose(): void {
    for (const id of [...this.sessions.keys()]) this.drop(id);
  }
}

/** Registers `@better-edit` where the host has a chat API (VS Code 1.101+; not every fork has it). */
export function registerChatParticipant(context: vscode.ExtensionContext, deps: ParticipantDeps): BetterEditParticipant | undefined {
  if (typeof vscode.chat?.createChatParticipant !== 'function') {
    deps.log.info('chat participants are not available in this host; @better-edit is not registered');
    return undefined;
  }
  const participant = new BetterEditParticipant(deps);
  const chat = vscode.chat.createChatParticipant(PARTICIPANT_ID, participant.handler);
  chat.iconPath = vscode.Uri.joinPath(context.extensionUri, 'media', 'icon.svg');
  context.subscriptions.push(participant, chat);
  return participant;
}
