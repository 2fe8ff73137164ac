/**
 * The host dimension of the replay: what each host does with a reply over its limit, priced as the model sees it.
 * The limits are the server's own profiles (src/mcp/hostProfiles.ts), so the bench and the server agree; the same
 * rule is applied to every agent's replies, server-filesystem's and the built-in tools' as ours.
 *
 *  - VS Code Copilot: a text longer than 8,192 characters goes to a file; the model sees the notice, then pays one
 *    more turn (the catalog again) for Copilot's read_file of the spilled text (counted as the text itself).
 *  - Claude Code: output over MAX_MCP_OUTPUT_TOKENS is cut; the model sees the limit's worth.
 *  - Codex: head + tail of the limit's bytes with an elision marker.
 *  - unknown client: the safe default (8,192 characters) counts replies over it; the model sees them whole.
 * A cut reply loses rows silently, which no figure can price: "over the limit" (goal 0) is the figure that says it.
 */
import { replyLimitFor, type ReplyLimit } from '../../src/mcp/hostProfiles';
import { countTokens, type CallRecord } from './mcp';

export interface Host {
  id: string;
  label: string;
  /** the name our server is told in initialize */
  clientName: string;
  limit: ReplyLimit;
}

const host = (id: string, label: string, clientName: string): Host => ({ id, label, clientName, limit: replyLimitFor(clientName)! });

export const HOSTS: Host[] = [
  host('vscode-copilot', 'VS Code Copilot', 'Visual Studio Code'),
  host('claude-code', 'Claude Code', 'claude-code'),
  host('codex', 'Codex', 'codex-mcp-client'),
  host('unknown', 'unknown client', 'bench-context'),
];
export const COPILOT = HOSTS[0]!;

/** A call's size as `limit` counts it. */
function measured(c: CallRecord, limit: ReplyLimit): number {
  return limit.unit === 'chars' ? c.chars : limit.unit === 'bytes' ? c.bytes : c.replyTokens;
}

export function overLimit(c: CallRecord, h: Host): boolean {
  return measured(c, h.limit) > h.limit.max;
}

/** What the model sees of one reply in host `h`, in tokens, and the extra turns it costs (each pays the catalog). */
export function seenInHost(c: CallRecord, h: Host): { tokens: number; turns: number } {
  if (!overLimit(c, h)) return { tokens: c.replyTokens, turns: 0 };
  switch (h.id) {
    case 'vscode-copilot': {
      const kb = Math.round(c.chars / 1024);
      const notice = `Large tool result (${kb}KB) written to file. Use the read_file tool to access the content at: /home/user/.vscode-server/data/User/workspaceStorage/0123456789abcdef/GitHub.copilot-chat/chat-session-resources/call_0123456789/content.txt`;
      return { tokens: countTokens(notice) + c.replyTokens, turns: 1 };
    }
    case 'claude-code':
      return { tokens: Math.min(c.replyTokens, h.limit.max), turns: 0 };
    case 'codex':
      return { tokens: Math.ceil((c.replyTokens * h.limit.max) / measured(c, h.limit)) + countTokens('…N tokens truncated…'), turns: 0 };
    default:
      return { tokens: c.replyTokens, turns: 0 };
  }
}

/** A task's total in host `h`: every reply as the host shows it, the catalog once per turn (the extra turns too). */
export function tokensInHost(calls: readonly CallRecord[], catalogTokens: number, h: Host): { tokens: number; over: number } {
  let tokens = 0;
  let over = 0;
  for (const c of calls) {
    const s = seenInHost(c, h);
    tokens += s.tokens + catalogTokens * (1 + s.turns);
    if (overLimit(c, h)) over++;
  }
  return { tokens, over };
}
