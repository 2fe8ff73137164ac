/**
 * The project folders from the client's MCP roots, for a server an Agent Plugins host starts in the plugin folder
 * with no --root (spec 1.0.0 §7.2.1: hosts start plugin servers there; src/cli/roots.ts refuses that folder as the
 * sandbox). After `notifications/initialized` the server asks `roots/list` when the client declared the `roots`
 * capability, and again on `notifications/roots/list_changed`; until the roots are composed, the requests that touch
 * the workspace (tools/call, resources/read) wait in GatedTransport. A client without roots gets, for each of them,
 * the message that says what to add (the tool call as an error result, so the agent reads it).
 */
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { RootsListChangedNotificationSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { resolveRoots } from './roots';

export const NO_CLIENT_ROOTS =
  'no project folder: the host started the server in the plugin folder, gave no --root, and the client offers no MCP roots. ' +
  'Add "--root", "<your project directory>" to the args of better-edit-tools in the plugin\'s mcp.json, or use a client that sends roots.';

/** The client's `file:` roots as real directories (other schemes are skipped: the tools edit local files). */
export function rootsFromClient(roots: readonly { uri: string }[], allowRootDir = false): string[] {
  const dirs = roots.flatMap((r) => {
    if (!r.uri.startsWith('file:')) return [];
    try {
      return [fileURLToPath(r.uri)];
    } catch {
      return [];
    }
  });
  if (dirs.length === 0) {
    const got = roots.map((r) => r.uri).join(', ') || 'none';
    throw new Error(`the client's MCP roots hold no local folder (${got}); ${NO_CLIENT_ROOTS.slice(NO_CLIENT_ROOTS.indexOf('Add'))}`);
  }
  // resolveRoots: each must exist and be a directory; "/" only with --allow-root-dir
  return resolveRoots({ roots: dirs, allowRootDir }, path.parse(dirs[0]).root);
}

const HELD = new Set(['tools/call', 'resources/read']);

type Request = { jsonrpc: '2.0'; id: string | number; method: string };
const isHeldRequest = (m: JSONRPCMessage): m is JSONRPCMessage & Request =>
  'method' in m && 'id' in m && HELD.has((m as Request).method);

const isCancellation = (m: JSONRPCMessage): m is JSONRPCMessage & { params: { requestId: unknown } } =>
  'method' in m && m.method === 'notifications/cancelled' && !('id' in m) && typeof m.params === 'object' && m.params !== null;

/** A transport that holds the workspace requests until `open()`; `fail(message)` answers them with it instead. */
export class GatedTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: Transport['onmessage'];
  private state: { kind: 'holding' } | { kind: 'open' } | { kind: 'failed'; message: string } = { kind: 'holding' };
  private held: (JSONRPCMessage & Request)[] = [];
  /** Workspace requests passed on and not answered yet: a change of roots waits for them (the old services serve them). */
  private inFlight = new Set<string | number>();
  private drained?: () => void;

  constructor(private readonly inner: Transport) {
    inner.onmessage = (m, extra) => {
      // a held request the client cancels never runs (passed on later, it would run and answer: the cancellation,
      // which arrived first, found no request to stop)
      if (isCancellation(m) && this.state.kind === 'holding') this.held = this.held.filter((h) => h.id !== m.params.requestId);
      if (isHeldRequest(m) && this.state.kind === 'holding') this.held.push(m);
      else if (isHeldRequest(m) && this.state.kind === 'failed') void this.refuse(m, this.state.message);
      else this.forward(m, extra);
    };
    inner.onclose = () => this.onclose?.();
    inner.onerror = (e) => this.onerror?.(e);
  }

  get sessionId() {
    return this.inner.sessionId;
  }
  setProtocolVersion(version: string) {
    this.inner.setProtocolVersion?.(version);
  }
  start() {
    return this.inner.start();
  }
  send(message: JSONRPCMessage, options?: Parameters<Transport['send']>[1]) {
    if (!('method' in message) && 'id' in message && message.id !== undefined && this.inFlight.delete(message.id) && this.inFlight.size === 0) this.drained?.();
    return this.inner.send(message, options);
  }
  close() {
    return this.inner.close();
  }

  /** Holds the workspace requests again (while the roots change); resolves once those already passed on are answered. */
  hold(): Promise<void> {
    if (this.state.kind === 'open') this.state = { kind: 'holding' };
    if (this.inFlight.size === 0) return Promise.resolve();
    return new Promise((resolve) => (this.drained = resolve));
  }
  open(): void {
    this.state = { kind: 'open' };
    this.flush((m) => this.forward(m));
  }

  private forward(m: JSONRPCMessage, extra?: Parameters<NonNullable<Transport['onmessage']>>[1]): void {
    if (isHeldRequest(m)) this.inFlight.add(m.id);
    this.onmessage?.(m, extra);
  }
  fail(message: string): void {
    this.state = { kind: 'failed', message };
    this.flush((m) => void this.refuse(m, message));
  }

  private flush(each: (m: JSONRPCMessage & Request) => void): void {
    const held = this.held;
    this.held = [];
    for (const m of held) each(m);
  }

  private refuse(m: JSONRPCMessage & Request, message: string): Promise<void> {
    return this.inner.send(m.method === 'tools/call'
      ? { jsonrpc: '2.0', id: m.id, result: { content: [{ type: 'text', text: `better-edit-tools: ${message}` }], isError: true } }
      : { jsonrpc: '2.0', id: m.id, error: { code: -32603, message: `better-edit-tools: ${message}` } });
  }
}

/**
 * Asks the client for its roots once it is initialized and whenever they change; `compose` builds the services for
 * them (and retires the previous ones). Serialized: one composition at a time, requests held meanwhile.
 */
export function followClientRoots(server: Server, gate: GatedTransport, opts: {
  compose(roots: string[]): Promise<void>;
  log(message: string): void;
  allowRootDir?: boolean;
}): void {
  let chain = Promise.resolve();
  let composed = false;
  const refresh = (why: string) => {
    chain = chain.then(async () => {
      await gate.hold();
      try {
        const { roots } = await server.listRoots();
        const dirs = rootsFromClient(roots, opts.allowRootDir);
        await opts.compose(dirs);
        opts.log(`roots from the client (${why}): ${dirs.join(', ')}`);
        gate.open();
        composed = true;
      } catch (e) {
        const message = e instanceof Error ? e.message : String(e);
        opts.log(`roots/list: ${message}${composed ? ' (the tools keep the roots they had)' : ''}`);
        if (composed) gate.open();
        else gate.fail(message);
      }
    });
    return chain;
  };
  const previous = server.oninitialized;
  server.oninitialized = () => {
    previous?.();
    const roots = server.getClientCapabilities()?.roots;
    if (!roots) {
      opts.log(NO_CLIENT_ROOTS);
      gate.fail(NO_CLIENT_ROOTS);
      return;
    }
    if (roots.listChanged) server.setNotificationHandler(RootsListChangedNotificationSchema, () => void refresh('list changed'));
    void refresh('initialized');
  };
}
