/**
 * MCP 2026-07-28 ("modern": no initialize, every request carries its version and client in `params._meta`) as
 * plain functions on JSON values, shared by the dual-era layer in front of the server (modernEra.ts), the HTTP
 * host and the stdio fast start (fastStart.ts): one definition of the envelope check and of the reply shapes, so
 * the fast start's early `server/discover` reply is the full server's byte for byte.
 *
 * Spec: specification/2026-07-28 basic/versioning.mdx, server/discover.mdx, basic/transports/*, changelog.mdx.
 * Nothing here imports the SDK: this module is bundled into the small loader (dist/cli.js) too.
 */

export const MODERN_PROTOCOL_VERSION = '2026-07-28';
export const MODERN_PROTOCOL_VERSIONS: readonly string[] = [MODERN_PROTOCOL_VERSION];

export const PROTOCOL_VERSION_KEY = 'io.modelcontextprotocol/protocolVersion';
export const CLIENT_INFO_KEY = 'io.modelcontextprotocol/clientInfo';
export const CLIENT_CAPABILITIES_KEY = 'io.modelcontextprotocol/clientCapabilities';
export const LOG_LEVEL_KEY = 'io.modelcontextprotocol/logLevel';
export const SERVER_INFO_KEY = 'io.modelcontextprotocol/serverInfo';

/** Error codes of the 2026-07-28 spec (basic/index "Error codes"). */
export const HEADER_MISMATCH = -32020;
export const UNSUPPORTED_PROTOCOL_VERSION = -32022;
const INVALID_PARAMS = -32602;
const METHOD_NOT_FOUND = -32601;
const RESOURCE_NOT_FOUND_2025 = -32002;

/** Client-to-server requests of 2026-07-28 this server serves; the others are -32601 (ping, logging/setLevel,
 * resources/subscribe and initialize are gone from this revision). */
export const MODERN_METHODS: readonly string[] = ['server/discover', 'tools/list', 'tools/call', 'resources/list', 'resources/read', 'resources/templates/list'];
/** Results that carry `ttlMs`/`cacheScope` (SEP-2549 CacheableResult). */
const CACHEABLE: readonly string[] = ['tools/list', 'resources/list', 'resources/templates/list', 'resources/read', 'server/discover'];
const LOG_LEVELS: readonly string[] = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'];

type Id = string | number;
export type Json = Record<string, unknown>;

export interface Envelope {
  version: string;
  clientInfo?: { name: string; version: string };
}

/** The JSON-RPC error a request gets instead of being served (code, message, data as the spec names them). */
export interface EnvelopeError {
  code: number;
  message: string;
  data?: unknown;
}

export function isObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** `params._meta` when it is an object. */
export function metaOf(params: unknown): Json | undefined {
  return isObject(params) && isObject(params._meta) ? params._meta : undefined;
}

/** A message claims 2026-07-28 when its `_meta` has the protocol-version key (whatever its value). */
export function claimsModern(params: unknown): boolean {
  const meta = metaOf(params);
  return meta !== undefined && PROTOCOL_VERSION_KEY in meta;
}

/**
 * Checks the envelope of a request that claims the modern era: the version must be a string this server serves,
 * the client capabilities an object, the client info (optional since the spec's PR #3002) a name and version.
 */
export function checkEnvelope(params: unknown): { envelope: Envelope } | { error: EnvelopeError } {
  const meta = metaOf(params) ?? {};
  const invalid = (key: string, problem: string): { error: EnvelopeError } => ({
    error: { code: INVALID_PARAMS, message: `Invalid _meta envelope for protocol revision ${MODERN_PROTOCOL_VERSION}: ${key}: ${problem}` },
  });
  const version = meta[PROTOCOL_VERSION_KEY];
  if (typeof version !== 'string') return invalid(PROTOCOL_VERSION_KEY, 'must be a string, e.g. "2026-07-28"');
  if (!(CLIENT_CAPABILITIES_KEY in meta)) return invalid(CLIENT_CAPABILITIES_KEY, 'missing (send {} when the client has none)');
  const caps = meta[CLIENT_CAPABILITIES_KEY];
  if (!isObject(caps)) return invalid(CLIENT_CAPABILITIES_KEY, 'must be an object');
  for (const k of ['experimental', 'sampling', 'elicitation', 'roots', 'extensions']) {
    if (caps[k] !== undefined && !isObject(caps[k])) return invalid(`${CLIENT_CAPABILITIES_KEY}.${k}`, 'must be an object');
  }
  const info = meta[CLIENT_INFO_KEY];
  if (info !== undefined && !(isObject(info) && typeof info.name === 'string' && typeof info.version === 'string')) {
    return invalid(CLIENT_INFO_KEY, 'must be an object with string name and version');
  }
  const level = meta[LOG_LEVEL_KEY];
  if (level !== undefined && !(typeof level === 'string' && LOG_LEVELS.includes(level))) return invalid(LOG_LEVEL_KEY, `must be one of ${LOG_LEVELS.join(', ')}`);
  const progress = meta.progressToken;
  if (progress !== undefined && typeof progress !== 'string' && typeof progress !== 'number') return invalid('progressToken', 'must be a string or a number');
  if (!MODERN_PROTOCOL_VERSIONS.includes(version)) {
    return { error: { code: UNSUPPORTED_PROTOCOL_VERSION, message: `Unsupported protocol version: ${version}`, data: { supported: [...MODERN_PROTOCOL_VERSIONS], requested: version } } };
  }
  const clientInfo = isObject(info) ? { name: info.name as string, version: info.version as string } : undefined;
  return { envelope: { version, ...(clientInfo ? { clientInfo } : {}) } };
}

/** The error for a method 2026-07-28 does not have here, or undefined when it is served. */
export function unknownModernMethod(method: string): EnvelopeError | undefined {
  return MODERN_METHODS.includes(method) ? undefined : { code: METHOD_NOT_FOUND, message: `Method not found: ${method} (not served on protocol revision ${MODERN_PROTOCOL_VERSION})` };
}

/**
 * A result as 2026-07-28 sends it: `resultType` (required on every result), `ttlMs`/`cacheScope` on cacheable
 * ones (0 and private: our lists and resources follow the files), the server's identity in `_meta`.
 */
export function encodeModernResult(method: string, result: Json, serverInfo: Json): Json {
  const out: Json = { ...result, resultType: typeof result.resultType === 'string' ? result.resultType : 'complete' };
  if (CACHEABLE.includes(method)) {
    if (!(Number.isSafeInteger(out.ttlMs) && (out.ttlMs as number) >= 0)) out.ttlMs = 0;
    if (out.cacheScope !== 'public' && out.cacheScope !== 'private') out.cacheScope = 'private';
  }
  const meta = isObject(result._meta) ? result._meta : {};
  out._meta = { ...meta, [SERVER_INFO_KEY]: serverInfo };
  return out;
}

/** 2026-07-28 renumbered "resource not found" to -32602 (changelog, minor change 6). */
export function encodeModernErrorCode(code: number): number {
  return code === RESOURCE_NOT_FOUND_2025 ? INVALID_PARAMS : code;
}

/** The DiscoverResult: versions, capabilities, identity (in `_meta`). */
export function discoverResult(capabilities: Json, serverInfo: Json): Json {
  return encodeModernResult('server/discover', { supportedVersions: [...MODERN_PROTOCOL_VERSIONS], capabilities }, serverInfo);
}

/** The reply line to a modern request, key order as the SDK's Protocol writes a response (result, jsonrpc, id). */
export function resultMessage(id: Id, result: Json): Json {
  return { result, jsonrpc: '2.0', id };
}

export function errorMessage(id: Id | null, error: EnvelopeError): Json {
  return { jsonrpc: '2.0', id, error: { code: error.code, message: error.message, ...(error.data !== undefined ? { data: error.data } : {}) } };
}
