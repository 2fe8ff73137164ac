/**
 * Dual-era serving: MCP 2026-07-28 beside 2025-11-25 on one server. A transport wrapper between the wire and the
 * SDK v1 Server: a request whose `_meta` claims 2026-07-28 is checked (era2026.ts) and answered statelessly —
 * `server/discover` here, the methods of that revision by the same handlers as a 2025 session, their results
 * encoded as 2026 sends them (`resultType`, cache fields, serverInfo) and "resource not found" renumbered; any
 * other message (the `initialize` handshake and everything of a 2025 session) passes through untouched, so a
 * 2025 client sees exactly what it saw before. Per message, not per connection: the spec lets a dual-era server
 * serve both eras at once (basic/versioning.mdx, "A dual-era server MAY serve both eras concurrently").
 *
 * Why a layer and not the SDK v2 server: v2 is a new API (server, resources, transports, HTTP handler on fetch
 * Request/Response) and would replace every piece the 2025 behaviour and its tests rest on; the 2026 difference
 * for a tools-and-resources server without server-to-client requests is this envelope and these result fields.
 */
import type { Transport, TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage, MessageExtraInfo } from '@modelcontextprotocol/sdk/types.js';
import {
  checkEnvelope,
  claimsModern,
  discoverResult,
  encodeModernErrorCode,
  encodeModernResult,
  errorMessage,
  isObject,
  resultMessage,
  unknownModernMethod,
  type Json,
} from './era2026';

type Id = string | number;

export interface ServerIdentity {
  /** The capabilities the server declares (read when a discover arrives: resources are registered after creation). */
  capabilities(): Json;
  serverInfo: Json;
}

/** Wraps `inner` (the wire) for a server: connect the server to the returned transport. */
export function dualEraTransport(inner: Transport, identity: ServerIdentity): Transport {
  /** Modern requests handed to the server and not answered yet: their method, for the result encoding. */
  const modern = new Map<Id, string>();
  const reply = (m: Json) => inner.send(m as JSONRPCMessage);

  const wrapper: Transport = {
    start: () => inner.start(),
    close: () => inner.close(),
    async send(message: JSONRPCMessage, options?: TransportSendOptions) {
      const m = message as Json;
      const id = m.id as Id | undefined;
      if (id !== undefined && m.method === undefined && modern.has(id)) {
        const method = modern.get(id)!;
        modern.delete(id);
        if (isObject(m.result)) return inner.send(resultMessage(id, encodeModernResult(method, m.result, identity.serverInfo)) as JSONRPCMessage, options);
        if (isObject(m.error) && typeof m.error.code === 'number') {
          return inner.send({ ...m, error: { ...m.error, code: encodeModernErrorCode(m.error.code) } } as JSONRPCMessage, options);
        }
      }
      return inner.send(message, options);
    },
  };
  Object.defineProperty(wrapper, 'sessionId', { get: () => inner.sessionId });
  // the server tells the transport the version initialize negotiated (the HTTP transport checks its header)
  if (inner.setProtocolVersion) wrapper.setProtocolVersion = (v: string) => inner.setProtocolVersion!(v);

  inner.onclose = () => wrapper.onclose?.();
  inner.onerror = (e) => wrapper.onerror?.(e);
  inner.onmessage = (message: JSONRPCMessage, extra?: MessageExtraInfo) => {
    const m = message as Json;
    const id = m.id as Id | undefined;
    if (typeof m.method !== 'string' || !claimsModern(m.params)) return wrapper.onmessage?.(message, extra);
    // notifications (notifications/cancelled) carry no reply: the server handles them as in 2025
    if (id === undefined) return wrapper.onmessage?.(message, extra);
    const checked = checkEnvelope(m.params);
    const refusal = 'error' in checked ? checked.error : unknownModernMethod(m.method);
    if (refusal) return void reply(errorMessage(id, refusal));
    if (m.method === 'server/discover') return void reply(resultMessage(id, discoverResult(identity.capabilities(), identity.serverInfo)));
    modern.set(id, m.method);
    wrapper.onmessage?.(message, extra);
  };
  return wrapper;
}

/**
 * The client of a call, in either era: a 2026 request names it in its own `_meta` (the era has no initialize),
 * a 2025 session in its initialize. Reply sizing (hostProfiles.ts) keys on this name.
 */
export function clientNameOf(requestMeta: unknown, initialized: { name?: string } | undefined): string | undefined {
  if (claimsModern({ _meta: requestMeta }) && isObject(requestMeta)) {
    const info = requestMeta['io.modelcontextprotocol/clientInfo'];
    if (isObject(info) && typeof info.name === 'string') return info.name;
  }
  return initialized?.name;
}
