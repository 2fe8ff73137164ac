/**
 * The one path of a tools/call, an agent's (src/mcp/server.ts, over any transport) and the extension's own
 * commands' (src/vscode/uiTools.ts) alike: the tool resolved by its listed name, argument sizes and path lengths
 * checked, aliases applied, strict arguments, the handler run as its session's author, the reply rendered, a chip
 * of the arguments when the call fails, and every observer told. Nothing here knows the transport.
 */
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { isToolError, ToolError } from '../core/errors';
import { boundChipArgs, boundErrorText, CHIP_CONTENT_ARG, headOfArg } from '../core/chips/bound';
import { assertWellFormedText } from '../core/text/validate';
import type { ServerDeps } from './deps';
import { toolTable } from './tools/index';
import { replyOf, type ReplyStyle } from './render/index';
import { listedNames } from './render/common';
import type { CallObserver, ToolModule } from './types';
import type { ReplyLimit, ReplyLimitSource } from './hostProfiles';
import { firstPageTokens, measureFor, modelView, ReplyPages, smallerPageTokens } from './replyFit';
import { BUILT_PLAIN } from './builtSchemas';
import { parsePlain, type PlainShape } from './plainArgs';

/** Per-argument size limit: contents up to 16 MiB work; larger ones get a clear error. */
export const DEFAULT_MAX_ARG_BYTES = 16 * 1024 * 1024;
/** A chip of an oversized argument keeps this much of its head, plus the size. */
export const OVERSIZED_CHIP_HEAD_BYTES = 16 * 1024;

const PREFIX = 'be-';
/** A page's header and hint beside its rows (beRead.ts PAGE_HEADER_TOKENS): the budget a page of `n` tokens was cut to. */
const PAGE_OVERHEAD_TOKENS = 120;

export interface ToolCallerOptions {
  /** MCP session id (HTTP), a per-process id (stdio), or the UI's own. */
  sessionId: string;
  /** List tools without the `be-` prefix; calls accept both forms. */
  noPrefix?: boolean;
  observers?: CallObserver[];
  /** Defaults to the built-in table (src/mcp/tools/index.ts). */
  tools?: ToolModule<ServerDeps>[];
  /** text (default): replies written for the model; json: upstream's JSON fields in structuredContent. */
  reply?: ReplyStyle;
  /** Per-argument limit in bytes (default 16 MiB). */
  maxArgBytes?: number;
  /**
   * The limit of a reply for the calling client (hostProfiles.ts), asked at each call so a changed setting applies
   * at once. Absent: no limit (the extension's own UI reads data, not a model).
   */
  replyLimit?: ReplyLimitSource;
  /** Logger for middleware failures (observer threw, chip could not be saved); default: none. */
  log?: (message: string) => void;
  /** Argument shapes checked before zod, by tool name (default: the bundle's built ones, for the built-in tools). */
  plainShapes?: Readonly<Record<string, PlainShape>>;
}

export interface CallContext {
  signal?: AbortSignal;
  /** The calling client's name (its initialize request), recorded with the edits it makes. */
  client?: string;
}

export interface ToolCaller {
  readonly tools: readonly ToolModule<ServerDeps>[];
  /** A tool's name as this caller lists it (`read` with noPrefix). */
  listedName(tool: ToolModule<ServerDeps>): string;
  /** Never throws for a tool's failure: the result says isError, with the chip that kept the arguments. */
  call(name: string, rawArgs: unknown, ctx?: CallContext): Promise<CallToolResult>;
  /** Whether `name` names a tool of this caller (with or without the prefix as `call` accepts it). */
  knows(name: string): boolean;
  /**
   * Builds the argument schemas of `names` (all tools when absent) and checks each tool's example against its own,
   * as a call would; no handler runs, no observer hears of it. For an idle moment: a tool's first call then does
   * not build its zod object nor run zod's first parse of it.
   */
  warm(names?: readonly string[]): void;
}

export function createToolCaller(deps: ServerDeps, opts: ToolCallerOptions): ToolCaller {
  const tools = opts.tools ?? toolTable;
  const observers = opts.observers ?? [];
  const maxArgBytes = opts.maxArgBytes ?? DEFAULT_MAX_ARG_BYTES;
  const log = opts.log ?? (() => {});
  const reply = opts.reply ?? 'text';
  const byName = new Map(tools.map((t) => [t.name, t]));
  const listedName = (t: ToolModule<ServerDeps>) =>
    opts.noPrefix && t.name.startsWith(PREFIX) ? t.name.slice(PREFIX.length) : t.name;
  const renderContext = {
    listedName: (name: string) => {
      const t = byName.get(name);
      return t ? listedName(t) : name;
    },
  };
  const resolveTool = (name: string) =>
    byName.get(name) ?? (opts.noPrefix ? byName.get(PREFIX + name) : undefined);
  const pages = new ReplyPages();
  // built once per tool: building a zod object (and compiling it at its first parse) took ~0.3 ms per call
  const schemas = new Map<ToolModule<ServerDeps>, z.ZodType<Record<string, unknown>>>();
  const schemaOf = (tool: ToolModule<ServerDeps>): z.ZodType<Record<string, unknown>> => {
    let schema = schemas.get(tool);
    if (!schema) {
      const object = z.object(tool.inputSchema);
      schemas.set(tool, (schema = tool.allowUnknownArgs ? object : object.strict()));
    }
    return schema;
  };
  // Plainly valid arguments pass without zod (plainArgs.ts: its evaluation and a first schema cost the first call
  // ~7 ms); anything else, or a build without the plain shapes (run from source), is zod's to judge and word.
  const plainShapes: Readonly<Record<string, PlainShape>> = opts.plainShapes ?? BUILT_PLAIN ?? {};
  const parseArgs = (tool: ToolModule<ServerDeps>, args: Record<string, unknown>) => {
    // the built shapes are the built-in tools' (a table of other modules may reuse a name)
    const shape = opts.plainShapes || toolTable.includes(tool) ? plainShapes[tool.name] : undefined;
    const data = shape && parsePlain(shape, args);
    return data ? { success: true as const, data } : schemaOf(tool).safeParse(args);
  };
  /** A reply over the limit, measured as the host counts it, becomes pages of whole lines (replyFit.ts). */
  const fit = (tool: string, result: CallToolResult, limit: ReplyLimit | undefined): CallToolResult => {
    if (!limit) return result;
    const measure = measureFor(limit, deps.context?.tokenizer);
    const seen = modelView(result);
    // within the limit in UTF-8 bytes is within it in chars and tokens too: most replies need no count (nor ranks)
    if (withinBytes(seen, limit.max) || measure(seen) <= limit.max) return result;
    const text = pages.page(tool, renderContext.listedName(tool), seen, limit, measure);
    return { content: [{ type: 'text', text }], ...(result.isError ? { isError: true } : {}) };
  };

  const call = async (requested: string, rawArgs: unknown, cc: CallContext = {}): Promise<CallToolResult> => {
    const tool = resolveTool(requested);
    const toolName = tool?.name ?? headOfArg(requested); // an unknown name is echoed, recorded and saved: short
    const callId = randomUUID();
    notifyObservers(observers, log, (o) => o.onToolCall({ sessionId: opts.sessionId, callId, tool: toolName, args: rawArgs }));
    const waits = observers.map((o) => o.beforeCall?.({ sessionId: opts.sessionId, tool: toolName })).filter((w) => w !== undefined);
    if (waits.length) await Promise.allSettled(waits);
    const started = performance.now();
    const finish = (r: CallToolResult) => finishCall(observers, log, { sessionId: opts.sessionId, callId, tool: toolName, args: rawArgs, started }, r);

    let result: CallToolResult;
    const limit = opts.replyLimit?.(cc.client);
    const pageRef = pageRequest(rawArgs);
    try {
      if (tool && pageRef !== undefined) {
        result = { content: [{ type: 'text', text: pages.get(pageRef, renderContext.listedName) }] };
        return finish(result);
      }
      if (!tool) {
        throw new ToolError(
          'not_found',
          `unknown tool: ${toolName}; available: ${tools.map(listedName).join(', ')}`,
        );
      }
      if (typeof rawArgs !== 'object' || rawArgs === null || Array.isArray(rawArgs)) {
        throw new ToolError(
          'invalid_argument',
          `${toolName}: arguments must be a JSON object of named arguments, got ${Array.isArray(rawArgs) ? 'an array' : typeof rawArgs}.` +
            (tool.example ? ` Example: ${JSON.stringify(tool.example)}` : ''),
        );
      }
      checkArgumentSizes(toolName, rawArgs, maxArgBytes);
      checkPathLengths(tool, rawArgs as Record<string, unknown>);
      if (!isReadOnlyCall(tool, rawArgs)) checkContentIsUnicode(toolName, rawArgs as Record<string, unknown>);
      const args = applyAliases(tool, rawArgs as Record<string, unknown>);
      const parsed = parseArgs(tool, args);
      if (!parsed.success) {
        throw new ToolError('invalid_argument', describeZodFailure(tool, args, parsed.error));
      }
      // A paged tool is asked for a page its host shows whole (smaller until it fits, at most 4 tries); a read-only
      // call only, since a repeated write would write twice.
      const paged = limit && tool.pageable === true && isReadOnlyCall(tool, rawArgs);
      let pageTokens = paged ? firstPageTokens(limit) : undefined;
      const runOnce = async () => {
        const ctx = { services: deps, sessionId: opts.sessionId, signal: cc.signal, reply, pageTokens };
        // edits record which session (and client) made them: conflicts and be-trx status name it
        const run = () => tool.handler(parsed.data, ctx);
        const obj = deps.authors ? await deps.authors.run({ session: opts.sessionId, client: cc.client }, run) : await run();
        // No invalidation here: every write announces itself from the file store (core/files/notifyingFileStore.ts).
        return replyOf(obj, tool.render, reply, renderContext);
      };
      result = await runOnce();
      if (paged && pageTokens !== undefined) {
        const measure = measureFor(limit, deps.context?.tokenizer);
        let view = modelView(result);
        for (let i = 0; i < 4; i++) {
          if (withinBytes(view, limit.max)) break;
          const measured = measure(view);
          if (measured <= limit.max) break;
          // From what the page holds, not the budget it was given: a page that fit its budget in tokens with room
          // to spare but not the host's characters (indented comments) must come out smaller than it is.
          const held = deps.context?.tokenizer.count(view) ?? pageTokens;
          pageTokens = smallerPageTokens(Math.min(pageTokens, held + PAGE_OVERHEAD_TOKENS), measured, limit);
          result = await runOnce();
          const again = modelView(result);
          if (again === view) break; // the budget does not shape this reply (a target read): the guard pages it
          view = again;
        }
      }
      result = fit(toolName, result, limit);
    } catch (e) {
      // Arguments quoted by the core (a 15 MiB path was echoed twice) are cut to a short head.
      // Tool names in the text as the client lists them (`read` with --no-prefix), so a named next call works as written.
      const message = listedNames(boundErrorText(errorText(toolName, e), rawArgs), renderContext);
      // A failed read carries nothing of the agent's work: no chip (30 of them used to push deleted text out).
      const saved = isReadOnlyCall(tool, rawArgs) || pageRef !== undefined ? undefined : await saveFailedCall(deps, toolName, rawArgs, message, maxArgBytes, log);
      result = fit(toolName, { content: [{ type: 'text', text: saved ? `${message}\n${chipNote(saved)}` : message }], isError: true }, limit);
    }
    return finish(result);
  };
  const warm = (names?: readonly string[]) => {
    for (const tool of names ? names.map(resolveTool) : tools) {
      // a few parses: zod compiles an object's parser at its first, V8 the compiled one after a few more
      if (tool?.example) for (let i = 0; i < 3; i++) schemaOf(tool).safeParse(applyAliases(tool, tool.example));
    }
  };
  return { tools, listedName, call, knows: (name) => resolveTool(name) !== undefined, warm };
}

/** Ends a call: every observer hears of its result. */
function finishCall(
  observers: readonly CallObserver[],
  log: (m: string) => void,
  e: { sessionId: string; callId: string; tool: string; args: unknown; started: number },
  result: CallToolResult,
): CallToolResult {
  {
    const { sessionId, callId, tool: toolName, args: rawArgs, started } = e;
    const durationMs = performance.now() - started;
    notifyObservers(observers, log, (o) =>
      o.onToolResult({
        sessionId,
        callId,
        tool: toolName,
        args: rawArgs,
        result,
        isError: result.isError === true,
        durationMs,
      }),
    );
    return result;
  }
}

/** `{"reply_page":"id/n"}` alone: a page of a reply that did not fit (replyFit.ts), else undefined. */
function pageRequest(rawArgs: unknown): string | undefined {
  if (rawArgs === null || typeof rawArgs !== 'object' || Array.isArray(rawArgs)) return undefined;
  const keys = Object.keys(rawArgs);
  const ref = (rawArgs as Record<string, unknown>).reply_page;
  return keys.length === 1 && typeof ref === 'string' ? ref : undefined;
}

/** Observers must not throw; one that does is logged and the others still hear of the call. */
export function notifyObservers(observers: readonly CallObserver[], log: ((m: string) => void) | undefined, call: (o: CallObserver) => void): void {
  for (const o of observers) {
    try {
      call(o);
    } catch (e) {
      log?.(`call observer failed: ${e instanceof Error ? e.message : String(e)}`);
    }
  }
}

/** What the agent reads: the core's own message for ToolErrors, a labelled one for anything unexpected. */
function errorText(tool: string, e: unknown): string {
  if (isToolError(e)) return e.message;
  const msg = e instanceof Error ? e.message : String(e);
  return `${tool} failed unexpectedly: ${msg}`;
}

/** The UTF-8 size of an argument when it exceeds `limit`, else undefined (cheap for the common small case). */
function oversizedBytes(value: unknown, limit: number): number | undefined {
  let bytes: number;
  if (typeof value === 'string') {
    if (value.length * 3 <= limit) return undefined; // 3 bytes per UTF-16 unit bounds UTF-8
    bytes = Buffer.byteLength(value, 'utf8');
  } else if (value !== null && typeof value === 'object') {
    try {
      bytes = Buffer.byteLength(JSON.stringify(value) ?? '', 'utf8');
    } catch {
      return undefined;
    }
  } else {
    return undefined;
  }
  return bytes > limit ? bytes : undefined;
}

/** Refuse oversized arguments before zod and the core see them. */
function checkArgumentSizes(tool: string, rawArgs: unknown, limit: number): void {
  if (rawArgs === null || typeof rawArgs !== 'object') return;
  for (const [key, value] of Object.entries(rawArgs)) {
    const bytes = oversizedBytes(value, limit);
    if (bytes !== undefined) {
      throw new ToolError(
        'too_large',
        `${tool}: argument "${headOfArg(key)}" is ${bytes} bytes (${mib(bytes)}); the limit is ${limit} bytes (${mib(limit)}) per argument. ` +
          'Split the change: write or replace a first part, then add the rest with be-insert after its last line.',
        { argument: key, bytes, limit },
      );
    }
  }
}

/** Arguments that name a file: `file`, and be-insert-chip's `to` and `from` (file:///abs or chip://id). */
const PATH_ARGS = ['file', 'to', 'from'] as const;
/** PATH_MAX is 4096 bytes on Linux (1024 on macOS); room is left for ":S-E" and "file://". */
export const MAX_PATH_ARG_CHARS = 4096 + 64;

/**
 * A path no file system accepts is refused before the core sees it: resolving a 4 MiB path made of short
 * segments took minutes (the sandbox walks its parents), and every layer echoed it back.
 */
function checkPathLengths(tool: ToolModule<ServerDeps>, args: Record<string, unknown>): void {
  for (const key of PATH_ARGS) {
    const value = args[key];
    if (typeof value !== 'string' || value.length <= MAX_PATH_ARG_CHARS) continue;
    throw new ToolError(
      'invalid_argument',
      `${tool.name}: argument "${key}" is ${value.length} characters long (${headOfArg(value, 80)}); a path is at most ` +
        `4096 bytes, so no file has this name.` + (tool.grammar ? ` Expected ${tool.grammar}` : ''),
      { argument: key, chars: value.length, limit: MAX_PATH_ARG_CHARS },
    );
  }
}

function mib(bytes: number): string {
  return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
}

/** Arguments as stored in a chip: `content` whole up to `limit` (else a 16 KiB head and its size), the rest cut short. */
export function argsForChip(rawArgs: unknown, limit: number): unknown {
  return boundFailedCallArgs(rawArgs, limit).args;
}

function boundFailedCallArgs(rawArgs: unknown, limit: number): { args: unknown; contentCut?: { bytes: number; keptBytes: number } } {
  if (rawArgs === null || typeof rawArgs !== 'object') return { args: typeof rawArgs === 'string' ? headOfArg(rawArgs) : rawArgs };
  if (Array.isArray(rawArgs)) return { args: boundChipArgs({ _args: rawArgs }, limit, OVERSIZED_CHIP_HEAD_BYTES).args._args };
  return boundChipArgs(rawArgs as Record<string, unknown>, limit, OVERSIZED_CHIP_HEAD_BYTES);
}

/** Read-only by annotation (be-read, be-func-range, ...) or by action (be-memory window, be-trx status, ...). */
function isReadOnlyCall(tool: ToolModule<ServerDeps> | undefined, rawArgs: unknown): boolean {
  if (!tool) return false; // an unknown tool name may be a misspelt edit: keep its arguments
  if (tool.annotations?.readOnlyHint === true) return true;
  if (!tool.readOnlyCall || rawArgs === null || typeof rawArgs !== 'object' || Array.isArray(rawArgs)) return false;
  try {
    return tool.readOnlyCall(rawArgs as Record<string, unknown>);
  } catch {
    return false;
  }
}

/**
 * Text that is not Unicode would be written as U+FFFD without a word: refused, nothing written (the failed call
 * keeps its content in a chip). Lone surrogates (JSON "\ud800") are detectable here; invalid UTF-8 bytes are not:
 * the transport has already decoded them to U+FFFD, which is also a valid character a file may hold.
 */
function checkContentIsUnicode(tool: string, args: Record<string, unknown>): void {
  const content = args[CHIP_CONTENT_ARG];
  if (typeof content === 'string') assertWellFormedText(content, `${tool}: argument "${CHIP_CONTENT_ARG}"`);
}

interface SavedChip {
  id: string;
  contentCut?: { bytes: number; keptBytes: number };
}

function chipNote(saved: SavedChip): string {
  const cut = saved.contentCut
    ? ` (content cut to its first ${saved.contentCut.keptBytes} of ${saved.contentCut.bytes} bytes: a chip keeps a whole content up to the per-argument limit)`
    : '';
  return `arguments saved as chip://${saved.id}${cut}`;
}

async function saveFailedCall(
  deps: ServerDeps,
  tool: string,
  rawArgs: unknown,
  message: string,
  limit: number,
  log: (m: string) => void,
): Promise<SavedChip | undefined> {
  try {
    const bounded = boundFailedCallArgs(rawArgs, limit);
    const saved = await deps.chips.saveFailedCall(tool, bounded.args, message);
    if (!saved) return undefined;
    return bounded.contentCut ? { id: saved.chip.id, contentCut: bounded.contentCut } : { id: saved.chip.id };
  } catch (e) {
    log(`could not save the failed call of ${tool} as a chip: ${e instanceof Error ? e.message : String(e)}`);
    return undefined;
  }
}

function applyAliases(tool: ToolModule<ServerDeps>, args: Record<string, unknown>): Record<string, unknown> {
  if (!tool.aliases) return args;
  let out: Record<string, unknown> | undefined;
  for (const [alias, name] of Object.entries(tool.aliases)) {
    if (alias in args && !(name in args)) {
      out ??= { ...args };
      out[name] = out[alias];
      delete out[alias];
    }
  }
  return out ?? args;
}

/** A zod failure as an agent can act on it: which argument, what was expected, the grammar and a valid call. */
export function describeZodFailure(tool: ToolModule<ServerDeps>, rawArgs: unknown, error: z.ZodError): string {
  const problems = error.issues.filter((issue) => issue.code !== 'unrecognized_keys').map((issue) => {
    const path = issue.path.length ? issue.path.map(String).join('.') : '(arguments)';
    const missing = issue.code === 'invalid_type' && /received undefined/.test(issue.message) ? ' (missing)' : '';
    return `${path}: ${issue.message}${missing}`;
  });
  const known = new Set(Object.keys(tool.inputSchema));
  const unknown =
    rawArgs && typeof rawArgs === 'object' ? Object.keys(rawArgs).filter((k) => !known.has(k)) : [];
  const parts = [`${tool.name}: invalid arguments:`];
  if (problems.length) parts.push(`${problems.join('; ')}.`);
  if (unknown.length) parts.push(`Unknown argument(s): ${unknown.join(', ')}; accepted: ${[...known].join(', ')}.`);
  if (tool.grammar) parts.push(`Expected ${tool.grammar}`);
  if (tool.example) parts.push(`Example: ${JSON.stringify(tool.example)}`);
  return parts.join(' ');
}

/** A bound that holds for every unit a host counts in: chars <= UTF-8 bytes, tokens <= UTF-8 bytes. */
function withinBytes(text: string, max: number): boolean {
  return text.length <= max && Buffer.byteLength(text, 'utf8') <= max;
}
