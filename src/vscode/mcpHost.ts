/**
 * Owns the loopback HTTP MCP host: lazy start, restart, stop, and a state others can show (status bar, info).
 * The host itself (src/mcp/httpHost.ts) is passed in as a start function, so this file knows no MCP details.
 */
import * as vscode from 'vscode';

export interface HostHandle {
  url: string;
  port: number;
  token: string;
  close(): Promise<void> | void;
}

export type HostState = { kind: 'stopped' } | { kind: 'starting' } | { kind: 'running'; handle: HostHandle; since: number } | { kind: 'error'; message: string } | { kind: 'disabled' };

export class McpHostController implements vscode.Disposable {
  private current: HostState = { kind: 'stopped' };
  private starting?: Promise<HostHandle>;
  private readonly stateChanged = new vscode.EventEmitter<HostState>();
  readonly onDidChangeState = this.stateChanged.event;
  /** Fires after a restart or a stop, so the provider can tell VS Code its definition changed. */
  private readonly definitionsChanged = new vscode.EventEmitter<void>();
  readonly onDidChangeDefinitions = this.definitionsChanged.event;

  constructor(
    private readonly startHost: () => Promise<HostHandle>,
    private readonly enabled: () => boolean,
    private readonly log: vscode.LogOutputChannel,
  ) {
    if (!enabled()) this.current = { kind: 'disabled' };
  }

  get state(): HostState {
    return this.current;
  }

  /** Start on first use (VS Code's resolveMcpServerDefinition, Cursor registration, server info). */
  async ensureStarted(): Promise<HostHandle> {
    if (this.current.kind === 'running') return this.current.handle;
    if (!this.enabled()) throw new Error(vscode.l10n.t('The Better Edit Tools MCP server is disabled (setting betterEditTools.server.enabled).'));
    if (!this.starting) {
      this.set({ kind: 'starting' });
      this.starting = this.startHost().then(
        (handle) => {
          this.set({ kind: 'running', handle, since: Date.now() });
          this.log.info(`MCP server listening on ${handle.url}`);
          return handle;
        },
        (err: unknown) => {
          const message = err instanceof Error ? err.message : String(err);
          this.set({ kind: 'error', message });
          this.log.error(`MCP server failed to start: ${message}`);
          throw err;
        },
      ).finally(() => (this.starting = undefined));
    }
    return this.starting;
  }

  async stop(): Promise<void> {
    await this.starting?.catch(() => undefined);
    if (this.current.kind === 'running') {
      const { handle } = this.current;
      this.set({ kind: 'stopped' });
      await handle.close();
      this.log.info('MCP server stopped');
    }
  }

  /** New port and token; VS Code is told the definition changed and resolves it again. */
  async restart(): Promise<HostHandle | undefined> {
    await this.stop();
    if (!this.enabled()) {
      this.set({ kind: 'disabled' });
      this.definitionsChanged.fire();
      return undefined;
    }
    const handle = await this.ensureStarted();
    this.definitionsChanged.fire();
    return handle;
  }

  private set(state: HostState): void {
    this.current = state;
    this.stateChanged.fire(state);
  }

  dispose(): void {
    void this.stop();
    this.stateChanged.dispose();
    this.definitionsChanged.dispose();
  }
}
