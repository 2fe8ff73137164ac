/**
 * What each MCP host does to a long tool result, by the name it sends in `initialize.clientInfo.name`, and the
 * limit a reply must stay within so the host shows it whole. Every figure names its source; (a) read at the named
 * place, (b) inferred. The pipeline (callPipeline.ts, replyFit.ts) measures each reply as the host counts it.
 */

/** How a host counts a result: UTF-16 units of the text (`.length`), UTF-8 bytes, or tokens. */
export type LimitUnit = 'chars' | 'bytes' | 'tokens';

export interface ReplyLimit {
  unit: LimitUnit;
  /** A reply is over the limit when its measure is greater than this. */
  max: number;
  /** Which profile (or override) gave it, for logs and tests. */
  source: string;
}

export interface HostProfile {
  id: string;
  /** Matches `clientInfo.name` (case-insensitive). */
  match: RegExp;
  limit: Omit<ReplyLimit, 'source'> | undefined;
  /** What the host does above it, for the README table. */
  behaviour: string;
}

/**
 * VS Code's Copilot agent mode: `github.copilot.chat.agent.largeToolResultsToDisk.thresholdBytes` (default 8192)
 * compared with the text's JS `.length`; above it the text goes to a file and the model sees only a notice.
 * (a) vscode-copilot-chat src/extension/prompts/node/panel/toolCalling.tsx (ToolResult.onText),
 * src/platform/configuration/common/configurationService.ts (LargeToolResultsToDiskThreshold).
 */
export const COPILOT_THRESHOLD_DEFAULT = 8192;
/** Unknown clients (Cursor, opencode, Claude Desktop, ...: no documented cut found): Copilot's figure, the smallest known. */
export const UNKNOWN_CLIENT_CHARS = 8192;
/**
 * Claude Code cuts MCP output at MAX_MCP_OUTPUT_TOKENS (default 25,000 of its own tokens), (a) claude-code
 * CHANGELOG 2.1.91/2.1.98. We count with o200k; (b) Claude's tokenizer can count up to ~20% more on code, so the
 * bound we keep is 25,000 / 1.25 = 20,000 of ours.
 */
export const CLAUDE_CODE_TOKENS = 20_000;
/**
 * Codex truncates function outputs (MCP included) head + tail to its policy: `TruncationPolicy::Bytes(10_000)` for
 * most model families, `Tokens(10_000)` for codex models (≈40 KB at its 4 bytes/token). (a) openai/codex
 * codex-rs/core model_family.rs and truncate.rs. 10,000 UTF-8 bytes is within both.
 */
export const CODEX_BYTES = 10_000;
/** Copilot CLI cut MCP text to 10 KB before its 30 KB spill: (a) github/copilot-cli#1732 (closed; kept as the safe figure). */
export const COPILOT_CLI_BYTES = 10_000;

export const HOST_PROFILES: readonly HostProfile[] = [
  // code-server is a VS Code build where Copilot Chat's settings apply; its MCP client sends its product name, `code-server`.
  { id: 'vscode-copilot', match: /^(visual studio code|code-server$)/i, limit: { unit: 'chars', max: COPILOT_THRESHOLD_DEFAULT }, behaviour: 'spills a longer text to a file; the model sees a notice and must call read_file' },
  { id: 'copilot-cli', match: /^github-copilot-cli$/i, limit: { unit: 'bytes', max: COPILOT_CLI_BYTES }, behaviour: 'cut MCP text to 10 KB (copilot-cli#1732)' },
  { id: 'claude-code', match: /^claude-code$/i, limit: { unit: 'tokens', max: CLAUDE_CODE_TOKENS }, behaviour: 'cuts MCP output at 25,000 tokens (MAX_MCP_OUTPUT_TOKENS)' },
  // (a) codex-rs/rmcp-client sends `codex-mcp-client` (title "Codex"); older builds `codex`.
  { id: 'codex', match: /^codex/i, limit: { unit: 'bytes', max: CODEX_BYTES }, behaviour: 'keeps head + tail of a longer output with an elision marker' },
  // (b) Cursor sends `cursor-vscode`, opencode `opencode`: no documented cut, so the safe default.
  { id: 'cursor', match: /^cursor/i, limit: { unit: 'chars', max: UNKNOWN_CLIENT_CHARS }, behaviour: 'no documented limit: the safe default' },
  { id: 'opencode', match: /^opencode/i, limit: { unit: 'chars', max: UNKNOWN_CLIENT_CHARS }, behaviour: 'no documented limit: the safe default' },
];

export const UNKNOWN_PROFILE: HostProfile = { id: 'unknown', match: /$^/, limit: { unit: 'chars', max: UNKNOWN_CLIENT_CHARS }, behaviour: 'the safe default' };

export function profileFor(clientName: string | undefined): HostProfile {
  const name = (clientName ?? '').trim();
  return HOST_PROFILES.find((p) => p.match.test(name)) ?? UNKNOWN_PROFILE;
}

/** The user's override: `auto` (the host's profile), `none` (no limit), or a number of characters. */
export type ReplyMaxChars = 'auto' | 'none' | number;

/** The smallest limit an override may set: a page needs room for its header and a few rows. */
export const MIN_REPLY_CHARS = 1024;

/** Copilot's two settings as VS Code holds them now (the extension reads them at each call). */
export interface CopilotSpill {
  enabled: boolean;
  thresholdBytes: number;
}

export interface LimitInputs {
  override?: ReplyMaxChars;
  /** Inside VS Code: the live Copilot settings, used for the `Visual Studio Code` (or `code-server`) client. */
  copilot?: CopilotSpill;
}

/** The limit for a client, or undefined for none. */
export function replyLimitFor(clientName: string | undefined, inputs: LimitInputs = {}): ReplyLimit | undefined {
  const o = inputs.override ?? 'auto';
  if (o === 'none') return undefined;
  if (typeof o === 'number') return { unit: 'chars', max: Math.max(MIN_REPLY_CHARS, Math.floor(o)), source: 'override' };
  const p = profileFor(clientName);
  if (p.id === 'vscode-copilot' && inputs.copilot) {
    // Spill off: Copilot still keeps at most half the prompt per result (MAX_TOOL_RESPONSE_PCT), far above a page.
    if (!inputs.copilot.enabled) return undefined;
    const t = inputs.copilot.thresholdBytes;
    const max = Number.isFinite(t) && t > 0 ? Math.max(MIN_REPLY_CHARS, Math.floor(t)) : COPILOT_THRESHOLD_DEFAULT;
    return { unit: 'chars', max, source: `${p.id} (thresholdBytes ${max})` };
  }
  return p.limit ? { ...p.limit, source: p.id } : undefined;
}

/** `--reply-max-chars`: a positive integer (at least MIN_REPLY_CHARS), `0` or `none` for no limit, `auto`. */
export function parseReplyMaxChars(value: string): ReplyMaxChars {
  const v = value.trim().toLowerCase();
  if (v === 'none' || v === '0') return 'none';
  if (v === 'auto') return 'auto';
  if (!/^\d+$/.test(v) || Number(v) < MIN_REPLY_CHARS) {
    throw new Error(`--reply-max-chars must be an integer of at least ${MIN_REPLY_CHARS}, 0 or "none" (no limit), or "auto", got "${value}"`);
  }
  return Number(v);
}

/** Where the pipeline asks for the limit of a call: the client's name in, the limit (or none) out; read at each call. */
export type ReplyLimitSource = (clientName: string | undefined) => ReplyLimit | undefined;
