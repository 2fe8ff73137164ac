/** Command-line parsing for the stdio server (pure: no process access, so it is testable). */
import { parseArgs } from 'node:util';
import { parseEncodingRule } from '../core/files/encodingRules';
import { WORKSPACE_OPTIONS } from './workspaceOptions';
import type { Lang } from '../core/lang';
import { MAX_TOKEN_CHARS, MIN_TOKEN_CHARS, TOKEN_ENV } from './token';

export const MIN_IDLE_MS = 100;
/** A week: longer than any pause of an agent, short enough that a lost client's session ends. */
export const MAX_IDLE_MS = 7 * 24 * 3600 * 1000;

/** A numeric option as an integer in min..max, or an error naming the option and the range. */
export function intOption(name: string, raw: string, min: number, max: number, unit = ''): number {
  const n = /^\s*-?\d+\s*$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isSafeInteger(n) || n < min || n > max) {
    throw new Error(`${name} must be an integer from ${min} to ${max}${unit ? ` (${unit})` : ''}, got "${raw}"`);
  }
  return n;
}
import { parseReplyMaxChars, type ReplyMaxChars } from '../mcp/hostProfiles';

export interface CliOptions {
  roots: string[];
  chipDir?: string;
  historyDir?: string;
  memoryDir?: string;
  noPrefix: boolean;
  lang: Lang;
  /** text: replies written for the model (default); json: upstream's JSON fields */
  reply: 'text' | 'json';
  /** --reply-max-chars: auto (the client's host profile, default), none, or a number of characters */
  replyMaxChars: ReplyMaxChars;
  allowRootDir: boolean;
  /** globs of `.git` paths the tools may write anyway (--allow-write, repeatable) */
  allowWrite: string[];
  /** record each session's calls in a ChatMemory (be-memory); --no-memory turns it off */
  memory: boolean;
  http: boolean;
  port?: number;
  /** --http: close a session after this many ms without a request (default: the host's 30 min) */
  sessionIdleMs?: number;
  /** --http: read a fixed bearer token from this file (else BETTER_EDIT_TOOLS_TOKEN, else a random one) */
  tokenFile?: string;
  /** `--encoding GLOB=NAME`, repeatable: the encoding of matching files (else BOM, UTF-8, or a guess) */
  encodings: string[];
  version: boolean;
  help: boolean;
}

export const USAGE = `Usage: better-edit-tools [options]

An MCP server (stdio) with line-addressed edit tools: be-read, be-replace, be-insert, be-delete, be-write,
be-apply, be-func-range, be-tag-range, be-balance, be-insert-chip, be-trx, be-chip; context modes (be-read mode,
be-overview) and a per-session chat memory (be-memory).

Options:
  --root DIR          a directory the tools may read and write (repeatable; default: the current directory).
                      Relative paths in tool calls are taken from the first root.
  --chip-dir DIR      where chips are kept (default: <cache>/better-edit-tools-mcp/chips/<workspace key>)
  --history-dir DIR   where be-trx snapshots are kept (default: <cache>/better-edit-tools-mcp/history/<workspace key>)
  --memory-dir DIR    where each session's chat memory is saved (default: <cache>/better-edit-tools-mcp/memory/<workspace key>)
  --encoding GLOB=NAME  files matching GLOB (gitignore-style, relative to the root) are in NAME, e.g.
                      "**/*.c=gbk"; repeatable, the last match wins. Without it: BOM, UTF-8, else a guess.
                      gb18030, gbk, big5, shift_jis, euc-kr, windows-1250/1251/1252/1253, koi8-r,
                      iso-8859-1/2/5/7/15, utf16le, utf16be, utf8
  --no-prefix         list tools without the "be-" prefix (calls accept both forms)
  --lang en|zh        language of the tool descriptions (default: en; also from LANG)
  --reply text|json   text: compact replies written for the model (default); json: upstream's JSON fields
  --reply-max-chars N|0|none|auto  the longest reply in characters; longer ones come as pages naming the
                      next call. auto (default): the client's limit (Copilot 8192 characters, Claude Code
                      25,000 tokens, Codex 10,000 bytes, others 8192 characters); 0 or none: no limit
  --allow-root-dir    allow "/" (or a drive root) as a root; refused by default because MCP clients often
                      start servers with the working directory "/", which would sandbox nothing
  --allow-write GLOB  let the tools write paths inside .git that match GLOB (gitignore syntax, relative to a
                      root; repeatable), e.g. --allow-write .git/info/exclude. Writes under .git are refused
                      by default (also in folders shaped like a git dir: HEAD with objects, refs or
                      commondir): a changed .git/config or hook runs commands at the next git call.
  --no-memory         do not record calls in a per-session chat memory (drops the be-memory tool)
  --http [--port N]   serve Streamable HTTP on 127.0.0.1 instead of stdio (debugging); prints the URL and a new
                      random token to stderr
  --token-file FILE   with --http: a fixed token, read from FILE (a regular file, mode 0600, ${MIN_TOKEN_CHARS}..${MAX_TOKEN_CHARS}
                      characters); or set ${TOKEN_ENV}. Clients send "Authorization: Bearer <token>"
  --session-idle-ms N with --http: close a session idle for N ms (${MIN_IDLE_MS}..${MAX_IDLE_MS}; default 30 minutes)
  -V, --version       print the version
  -h, --help          print this help

Subcommand: better-edit-tools recap --root DIR prints the workspace's latest chat-memory recap for a host hook
(after a compaction); see recap --help.

Paths written (folders created 0700, files 0600), and nothing else:
  - the chip, history and memory folders above (memory: also its recall/ folder);
  - <history dir>-journal: be-apply's journal of a batch in progress;
  - <cache>/better-edit-tools-mcp/chips/chip-hmac.key: the key that signs chips (one per user, whatever --chip-dir);
  - <cache>/better-edit-tools-mcp/code-cache (compiled code, for a fast start); the old locks folder there is
    only read and cleaned of dead owners' records (earlier versions wrote it);
  - inside the roots, only the files an agent edits, with a transient lock file (.<name>.be-lock) and a temp file
    beside the file being edited while it is written (removed after the rename).
<cache> is $XDG_CACHE_HOME, else ~/.cache (%LOCALAPPDATA% on Windows); the workspace key is a hash of the roots,
so no state lands inside a root unless a --*-dir option puts it there.

Logs go to stderr; stdout is the protocol.`;

function allowWriteGlobs(globs: string[]): string[] {
  for (const g of globs) {
    if (g.trim() === '') throw new Error('--allow-write needs a glob, e.g. --allow-write .git/info/exclude');
    if (/^\s*[!#]/.test(g)) throw new Error(`--allow-write "${g}": a glob cannot start with "!" or "#"; give the paths to allow`);
  }
  return globs.map((g) => g.trim());
}

export function parseCli(argv: string[], env: Record<string, string | undefined>): CliOptions {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    allowPositionals: false,
    options: {
      ...WORKSPACE_OPTIONS,
      'chip-dir': { type: 'string' },
      'history-dir': { type: 'string' },
      'no-prefix': { type: 'boolean', default: false },
      lang: { type: 'string' },
      reply: { type: 'string' },
      'reply-max-chars': { type: 'string' },
      'allow-write': { type: 'string', multiple: true },
      'no-memory': { type: 'boolean', default: false },
      http: { type: 'boolean', default: false },
      port: { type: 'string' },
      'session-idle-ms': { type: 'string' },
      'token-file': { type: 'string' },
      encoding: { type: 'string', multiple: true },
      version: { type: 'boolean', short: 'V', default: false },
    },
  });
  const lang = values.lang ?? (env.LANG?.toLowerCase().startsWith('zh') ? 'zh' : 'en');
  if (lang !== 'en' && lang !== 'zh') throw new Error(`--lang must be "en" or "zh", got "${lang}"`);
  const reply = values.reply ?? 'text';
  if (reply !== 'text' && reply !== 'json') throw new Error(`--reply must be "text" or "json", got "${reply}"`);
  const port = values.port === undefined ? undefined : intOption('--port', values.port, 0, 65535);
  const sessionIdleMs = values['session-idle-ms'] === undefined ? undefined : intOption('--session-idle-ms', values['session-idle-ms'], MIN_IDLE_MS, MAX_IDLE_MS, 'ms');
  const tokenFile = values['token-file'];
  if (tokenFile !== undefined && !values.http) throw new Error('--token-file needs --http (stdio has no token)');
  if (tokenFile === '') throw new Error('--token-file needs a file name');
  return {
    roots: values.root ?? [],
    chipDir: values['chip-dir'],
    historyDir: values['history-dir'],
    memoryDir: values['memory-dir'],
    noPrefix: values['no-prefix'] ?? false,
    lang,
    reply,
    replyMaxChars: values['reply-max-chars'] === undefined ? 'auto' : parseReplyMaxChars(values['reply-max-chars']),
    allowRootDir: values['allow-root-dir'] ?? false,
    allowWrite: allowWriteGlobs(values['allow-write'] ?? []),
    memory: !(values['no-memory'] ?? false),
    http: values.http ?? false,
    port,
    sessionIdleMs,
    tokenFile,
    encodings: (values.encoding ?? []).map((e) => (parseEncodingRule(e), e)),
    version: values.version ?? false,
    help: values.help ?? false,
  };
}
