/**
 * Real MCP servers over stdio, with a meter: every call's reply is counted as the model receives it.
 *
 * The model view (what VS Code, Claude Code and Codex hand the model): `JSON.stringify(result.structuredContent)`
 * when the result has it, else the text of its `content` parts. Computed from the result alone, whatever the
 * server's reply shape, so it stays right when the rendering changes.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { getTokenizer } from '../../src/core/memory/node/tokenizer';

export const tokenizer = getTokenizer('o200k_base');
export const countTokens = (text: string): number => tokenizer.count(text);

export function modelView(result: CallToolResult): string {
  if (result.structuredContent !== undefined) return JSON.stringify(result.structuredContent);
  return (result.content ?? []).map((part) => (part.type === 'text' ? part.text : JSON.stringify(part))).join('\n');
}

/** The catalog a client sends the model each turn: name, description and inputSchema of every listed tool. */
export function catalogText(tools: Tool[]): string {
  return JSON.stringify(tools.map((t) => ({ name: t.name, description: t.description, inputSchema: t.inputSchema })));
}

export interface CallRecord {
  tool: string;
  args: unknown;
  /** what the agent was doing, for the per-task log and the "outlines of other files" figure */
  label: string;
  replyTokens: number;
  /** the model view's length (UTF-16 units) and UTF-8 bytes, for the host limits (hosts.ts) */
  chars: number;
  bytes: number;
  /** the model view itself, kept only when it is over the smallest host limit (hosts.ts prices what a host does with it) */
  view?: string;
  argTokens: number;
  isError: boolean;
}

/** A record of one reply's model view (the meter of every server, ours, server-filesystem's and the built-in tools'). */
export function callRecord(tool: string, args: unknown, label: string, view: string, isError: boolean): CallRecord {
  const bytes = Buffer.byteLength(view, 'utf8');
  return {
    tool,
    args,
    label,
    replyTokens: countTokens(view),
    chars: view.length,
    bytes,
    ...(view.length > KEEP_VIEW_OVER_CHARS ? { view } : {}),
    argTokens: countTokens(JSON.stringify(args)),
    isError,
  };
}

/** The smallest limit of a profile: 8,192 characters (Copilot's default, the unknown client's). */
const KEEP_VIEW_OVER_CHARS = 8192;

export interface Server {
  readonly name: string;
  readonly catalogTokens: number;
  /** Call a tool, count its model view; throws on a protocol error, returns isError results as they are. */
  call(tool: string, args: Record<string, unknown>, label: string): Promise<{ result: CallToolResult; view: string }>;
  /** calls since the last take() */
  take(): CallRecord[];
  close(): Promise<void>;
}

export interface ServerCommand {
  name: string;
  command: string;
  args: string[];
  env?: Record<string, string>;
  cwd?: string;
  /** the client name sent in initialize: our server sizes its replies to it (src/mcp/hostProfiles.ts) */
  clientName?: string;
}

export async function startServer(cmd: ServerCommand): Promise<Server> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
  Object.assign(env, cmd.env ?? {});
  const transport = new StdioClientTransport({ command: cmd.command, args: cmd.args, env, cwd: cmd.cwd, stderr: 'pipe' });
  let stderr = '';
  transport.stderr?.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-4000)));
  const client = new Client({ name: cmd.clientName ?? 'bench-context', version: '1.0.0' });
  try {
    await client.connect(transport);
  } catch (e) {
    throw new Error(`${cmd.name}: could not start (${(e as Error).message}); stderr: ${stderr}`);
  }
  const { tools } = await client.listTools();
  const catalogTokens = countTokens(catalogText(tools));
  let records: CallRecord[] = [];
  return {
    name: cmd.name,
    catalogTokens,
    async call(tool, args, label) {
      const result = (await client.callTool({ name: tool, arguments: args }, undefined, { timeout: 120_000 })) as CallToolResult;
      const view = modelView(result);
      records.push(callRecord(tool, args, label, view, result.isError === true));
      return { result, view };
    },
    take() {
      const out = records;
      records = [];
      return out;
    },
    close: () => client.close(),
  };
}
