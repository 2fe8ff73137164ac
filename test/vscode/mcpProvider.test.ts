/**
 * The MCP server definition provider and the host controller (src/vscode/mcpProvider.ts, mcpHost.ts) through the
 * vscode double: what VS Code is given before and after it resolves the server, restarts, the disabled setting, and
 * Cursor's registration API.
 */
import { double, testLog } from './double/install';
import assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { McpHostController, type HostHandle } from '../../src/vscode/mcpHost';
import { PROVIDER_ID, registerMcpProvider, SERVER_LABEL } from '../../src/vscode/mcpProvider';

function fakeHost() {
  let started = 0;
  let closed = 0;
  const start = async (): Promise<HostHandle> => {
    const n = ++started;
    return { url: `http://127.0.0.1:${4000 + n}/mcp`, port: 4000 + n, token: `token-${n}`, close: () => void closed++ };
  };
  return { start, started: () => started, closed: () => closed };
}

type Provider = vscode.McpServerDefinitionProvider<vscode.McpHttpServerDefinition>;

describe('vscode/mcpProvider and mcpHost (through the vscode double)', () => {
  beforeEach(() => double.reset());

  it('offers a placeholder definition; resolving it starts the host and fills in the real URL and token', async () => {
    const fake = fakeHost();
    const host = new McpHostController(fake.start, () => true, testLog());
    const reg = registerMcpProvider(host, '1.2.3', testLog());
    try {
      assert.equal(double.recorded.mcpProviders.length, 1);
      const { id, provider } = double.recorded.mcpProviders[0]! as { id: string; provider: Provider };
      assert.equal(id, PROVIDER_ID);
      const defs = (await provider.provideMcpServerDefinitions(new vscode.CancellationTokenSource().token))!;
      assert.equal(defs.length, 1);
      assert.equal(defs[0]!.label, SERVER_LABEL);
      assert.equal(defs[0]!.version, '1.2.3');
      assert.equal(fake.started(), 0, 'listing does not start the server');
      assert.match(defs[0]!.uri.toString(), /invalid\.invalid/);
      const resolved = (await provider.resolveMcpServerDefinition!(defs[0]!, new vscode.CancellationTokenSource().token))!;
      assert.equal(resolved.uri.toString(), 'http://127.0.0.1:4001/mcp');
      assert.deepEqual(resolved.headers, { Authorization: 'Bearer token-1' });
      assert.equal(host.state.kind, 'running');
      await provider.resolveMcpServerDefinition!(defs[0]!, new vscode.CancellationTokenSource().token);
      assert.equal(fake.started(), 1, 'a second resolve reuses the running host');
    } finally {
      reg.dispose();
      host.dispose();
    }
    assert.equal(double.recorded.mcpProviders.length, 0, 'disposed with the extension');
  });

  it('a restart gives a new port and token and tells VS Code the definitions changed', async () => {
    const fake = fakeHost();
    const host = new McpHostController(fake.start, () => true, testLog());
    const reg = registerMcpProvider(host, '1', testLog());
    const provider = double.recorded.mcpProviders[0]!.provider as Provider;
    let changes = 0;
    provider.onDidChangeMcpServerDefinitions!(() => changes++);
    const states: string[] = [];
    host.onDidChangeState((s) => states.push(s.kind));
    try {
      await host.ensureStarted();
      const handle = await host.restart();
      assert.equal(handle?.token, 'token-2');
      assert.equal(fake.closed(), 1, 'the old host closed');
      assert.equal(changes, 1);
      assert.deepEqual(states, ['starting', 'running', 'stopped', 'starting', 'running']);
    } finally {
      reg.dispose();
      host.dispose();
    }
  });

  it('disabled by the setting: no definition, a clear error on start, restart reports disabled', async () => {
    let enabled = false;
    const fake = fakeHost();
    const host = new McpHostController(fake.start, () => enabled, testLog());
    const reg = registerMcpProvider(host, '1', testLog());
    const provider = double.recorded.mcpProviders[0]!.provider as Provider;
    try {
      assert.equal(host.state.kind, 'disabled');
      assert.deepEqual(await provider.provideMcpServerDefinitions(new vscode.CancellationTokenSource().token), []);
      await assert.rejects(host.ensureStarted(), /disabled \(setting betterEditTools\.server\.enabled\)/);
      assert.equal(await host.restart(), undefined);
      enabled = true;
      assert.equal((await host.restart())?.token, 'token-1');
      assert.equal((await provider.provideMcpServerDefinitions(new vscode.CancellationTokenSource().token))!.length, 1);
    } finally {
      reg.dispose();
      host.dispose();
    }
  });

  it('a host that fails to start is in the error state with its message, and the next resolve tries again', async () => {
    let fail = true;
    const fake = fakeHost();
    const host = new McpHostController(async () => (fail ? Promise.reject(new Error('EADDRINUSE')) : fake.start()), () => true, testLog());
    await assert.rejects(host.ensureStarted(), /EADDRINUSE/);
    assert.deepEqual(host.state, { kind: 'error', message: 'EADDRINUSE' });
    fail = false;
    assert.equal((await host.ensureStarted()).token, 'token-1');
    host.dispose();
  });

  it('without the provider API (an older host) nothing is registered; Cursor gets the running server instead', async () => {
    double.noMcpApi = true;
    const registered: { name: string; server: { url: string; headers?: Record<string, string> } }[] = [];
    const unregistered: string[] = [];
    double.cursorMcp = { registerServer: (c: (typeof registered)[0]) => registered.push(c), unregisterServer: (n: string) => unregistered.push(n) };
    const fake = fakeHost();
    const host = new McpHostController(fake.start, () => true, testLog());
    const reg = registerMcpProvider(host, '1', testLog());
    try {
      assert.equal(double.recorded.mcpProviders.length, 0);
      await host.ensureStarted();
      await new Promise((r) => setImmediate(r));
      assert.deepEqual(registered, [{ name: 'better-edit-tools', server: { url: 'http://127.0.0.1:4001/mcp', headers: { Authorization: 'Bearer token-1' } } }]);
      await host.restart();
      await new Promise((r) => setImmediate(r));
      assert.equal(registered.at(-1)!.server.headers!.Authorization, 'Bearer token-2', 're-registered with the new token');
      assert.ok(unregistered.length >= 1);
    } finally {
      reg.dispose();
      host.dispose();
    }
    assert.ok(unregistered.length >= 2, 'unregistered on dispose');
  });
});
