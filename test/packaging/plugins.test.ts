/**
 * The two plugins `npm run package` builds (scripts/package-plugins.mjs): an Agent Plugin and a Claude Code plugin.
 * Their manifests validate against the published Agent Plugins 1.0.0 schemas (vendored in
 * test/fixtures/agent-plugins, see SOURCE.md there) and Claude Code's own `claude plugin validate`; each unpacked
 * folder, copied away from this repository (no node_modules above it), serves a real MCP SDK client from its bundled
 * server started exactly as its manifest says, and each re-grounding hook (VS Code's SessionStart in the Agent
 * Plugin, the SessionStart `compact` hook Claude Code and Codex read in the Claude Code plugin) prints the recap.
 */
import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import Ajv2020 from 'ajv/dist/2020';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { buildDist } from '../distBuild';
import { cleanEnv, isolatedDir, REPO, run } from './packaged';

const FIXTURES = path.join(REPO, 'test', 'fixtures', 'agent-plugins');
/** Claude Code's CLI, installed from npm into the user's cache on first use; its `plugin validate` runs offline. */
const CLAUDE_CODE_VERSION = '2.1.332';

type StdioEntry = { type?: string; command: string; args?: string[]; cwd?: string; env?: Record<string, string> };
const readJson = (f: string) => JSON.parse(fs.readFileSync(f, 'utf8')) as Record<string, unknown>;

/** Runs a hook command as the hosts do: through a shell (Codex: `$SHELL -lc`), in `cwd`, with `env`; its stdout. */
function runHook(command: string, cwd: string, env: Record<string, string>, shellArgs = ['-c']): Promise<string> {
  return new Promise((resolve, reject) =>
    execFile('sh', [...shellArgs, command], { cwd, env, timeout: 60000 }, (err, stdout, stderr) =>
      err ? reject(new Error(`${command}: ${err.message}\n${stderr}`)) : resolve(stdout)));
}

function loudSkip(ctx: Mocha.Context, why: string): never {
  console.log(`\n  ##########\n  ## SKIPPED: ${why}\n  ##########`);
  ctx.skip();
}

/** Starts a manifest's stdio entry as a host would (placeholders expanded, the given cwd) and runs one session. */
async function session(entry: StdioEntry, vars: Record<string, string>, cwd: string, env: Record<string, string>) {
  const expand = (s: string) => Object.entries(vars).reduce((acc, [k, v]) => acc.split('${' + k + '}').join(v), s);
  assert.equal(entry.type, 'stdio');
  const command = entry.command === 'node' ? process.execPath : entry.command; // `node` on PATH: this Node (≥ 20)
  const transport = new StdioClientTransport({ command, args: (entry.args ?? []).map(expand), cwd, env, stderr: 'pipe' });
  let stderr = '';
  transport.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  const client = new Client({ name: 'plugin-test', version: '1.0.0' });
  await client.connect(transport).catch((e: Error) => {
    throw new Error(`the plugin's server did not start: ${e.message}\nstderr:\n${stderr}`);
  });
  try {
    const { tools } = await client.listTools();
    assert.ok(tools.some((t) => t.name === 'be-read') && tools.some((t) => t.name === 'be-apply'), tools.map((t) => t.name).join(', '));
    const r = (await client.callTool({ name: 'be-read', arguments: { file: 'src/math.py', mode: 'structure' } })) as { isError?: boolean; content: { text?: string }[] };
    const text = r.content.map((c) => c.text ?? '').join('');
    assert.ok(!r.isError, text);
    assert.match(text, /\bmul\b/);
    assert.doesNotMatch(text, /indent/i, 'tree-sitter grammars from the plugin folder, not the indentation fallback');
    const edit = (await client.callTool({ name: 'be-replace', arguments: { file: 'src/math.py:2', content: '    return b + a\n' } })) as { isError?: boolean };
    assert.ok(!edit.isError);
    assert.match(fs.readFileSync(path.join(cwd, 'src', 'math.py'), 'utf8'), /return b \+ a/);
  } finally {
    await client.close();
  }
}

describe('packaging: the Agent Plugin and the Claude Code plugin', function () {
  this.timeout(300000);
  let base = '';
  let built = '';
  before(async () => {
    await buildDist();
    base = isolatedDir('bet-plugin-');
    built = path.join(base, 'built');
    await run(process.execPath, [path.join(REPO, 'scripts', 'package-plugins.mjs'), '--out', built], { cwd: REPO, env: cleanEnv() });
  });
  after(() => fs.rmSync(base, { recursive: true, force: true }));

  const workspace = (name: string) => {
    const ws = path.join(base, name);
    fs.mkdirSync(path.join(ws, 'src'), { recursive: true });
    fs.writeFileSync(path.join(ws, 'src', 'math.py'), 'def add(a, b):\n    return a + b\n\n\nclass Calc:\n    def mul(self, a, b):\n        return a * b\n');
    return ws;
  };

  it('plugin.json and mcp.json validate against the published Agent Plugins 1.0.0 schemas', () => {
    const ajv = new Ajv2020({ allErrors: true, strict: false });
    const dir = path.join(built, 'agent-plugin');
    for (const [file, schema] of [['plugin.json', 'plugin.schema.json'], ['mcp.json', 'mcp.schema.json']]) {
      const validate = ajv.compile(readJson(path.join(FIXTURES, schema)));
      const doc = readJson(path.join(dir, file));
      assert.ok(validate(doc), `${file}: ${ajv.errorsText(validate.errors)}`);
      // the check has teeth: the closed schema refuses a field it does not list, mcp.json one without $schema
      assert.equal(validate({ ...doc, extra: 1 }), false, `${schema} rejects an unknown top-level field`);
    }
    const validateMcp = ajv.getSchema('https://agent-plugins.org/schemas/1.0.0/mcp.schema.json');
    assert.ok(validateMcp);
    const { $schema: _s, ...noSchema } = readJson(path.join(dir, 'mcp.json'));
    assert.equal(validateMcp(noSchema), false, 'an mcp.json without $schema is invalid (clients disable its MCP servers)');
    assert.ok(fs.statSync(path.join(dir, 'skills', 'better-edit-tools', 'SKILL.md')).isFile());
    const skill = fs.readFileSync(path.join(dir, 'skills', 'better-edit-tools', 'SKILL.md'), 'utf8');
    // Agent Skills frontmatter: name = the folder's name, a description
    assert.match(skill, /^---\nname: better-edit-tools\ndescription: .+\n---\n/);
  });

  it('the Claude Code plugin: manifest, .mcp.json and the SessionStart compact hook that runs recap', () => {
    const dir = path.join(built, 'claude-code');
    const manifest = readJson(path.join(dir, '.claude-plugin', 'plugin.json'));
    assert.equal(manifest.name, 'better-edit-tools');
    const hooks = readJson(path.join(dir, 'hooks', 'hooks.json')) as { hooks: { SessionStart: { matcher: string; hooks: { command: string }[] }[] } };
    const start = hooks.hooks.SessionStart.find((h) => h.matcher === 'compact');
    assert.ok(start, 'a SessionStart hook with matcher compact');
    assert.match(start.hooks[0].command, /\$\{CLAUDE_PLUGIN_ROOT\}\/server\/cli\.js" recap --root/);
    // the published Claude Code hook schema (an excerpt, test/fixtures/claude-code/SOURCE.md); Codex reads the same shape
    const ajv = new Ajv2020({ allErrors: true, strict: false });
    const hookSchema = readJson(path.join(REPO, 'test', 'fixtures', 'claude-code', 'hooks.schema.json'));
    delete hookSchema.$schema; // draft-07 keywords only; Ajv2020 reads them alike
    const validate = ajv.compile(hookSchema);
    assert.ok(validate(hooks), ajv.errorsText(validate.errors));
    assert.equal(validate({ hooks: { SessionStart: [{ matcher: 'compact', hooks: [{ type: 'command', command: 'x', timout: 3 }] }] } }), false, 'the schema has teeth: a misspelt field is refused');
    // VS Code's flat form in the Agent Plugin: each entry is a command hook of the same schema
    const vscodeHooks = readJson(path.join(built, 'agent-plugin', 'com.github.copilot', 'hooks', 'hooks.json')) as { hooks: Record<string, unknown[]> };
    const validateCommand = ajv.compile((hookSchema.$defs as Record<string, object>).hookCommand);
    for (const entry of vscodeHooks.hooks.SessionStart) assert.ok(validateCommand(entry), ajv.errorsText(validateCommand.errors));
    for (const f of ['cli.js', 'cli-main.js', 'wasm/tree-sitter.wasm', 'ranks/o200k_base.bin', 'vendor/iconv-lite.js']) {
      assert.ok(fs.existsSync(path.join(dir, 'server', f)), `server/${f} is in the plugin`);
    }
    assert.ok(!fs.readdirSync(path.join(dir, 'server')).some((f) => f.endsWith('.map')), 'no source maps');
  });

  it('the Agent Plugin, unpacked from its archive into a folder of its own, serves a real MCP client', async function () {
    const archive = fs.readdirSync(built).find((f) => /^better-edit-tools-agent-plugin-.*\.tar\.gz$/.test(f));
    assert.ok(archive, 'the archive is built');
    const unpacked = path.join(base, 'agent-unpacked');
    fs.mkdirSync(unpacked);
    await run('tar', ['-xzf', path.join(built, archive), '-C', unpacked], { cwd: base, env: cleanEnv() });
    const root = path.join(unpacked, 'better-edit-tools');
    const entry = (readJson(path.join(root, 'mcp.json')).mcpServers as Record<string, StdioEntry>)['better-edit-tools'];
    const ws = workspace('ws-agent');
    const env = cleanEnv({ XDG_CACHE_HOME: path.join(base, 'cache-agent'), PLUGIN_ROOT: root, PLUGIN_DATA: path.join(base, 'data') });
    await session(entry, { PLUGIN_ROOT: root, PLUGIN_DATA: path.join(base, 'data') }, ws, env);

    // VS Code's SessionStart hook (com.github.copilot/hooks/hooks.json), run in the workspace folder as VS Code runs
    // it: once with only the PLUGIN_ROOT variable set (the shell expands it), once with the text replaced by the host
    const hooks = readJson(path.join(root, 'com.github.copilot', 'hooks', 'hooks.json')) as { hooks: Record<string, { type: string; command: string; timeout?: number }[]> };
    assert.deepEqual(Object.keys(hooks.hooks), ['SessionStart']);
    const [hook] = hooks.hooks.SessionStart;
    assert.equal(hook.type, 'command');
    for (const command of [hook.command, hook.command.split('${PLUGIN_ROOT}').join(root)]) {
      const out = await runHook(command, ws, command === hook.command ? env : cleanEnv({ XDG_CACHE_HOME: path.join(base, 'cache-agent') }));
      assert.match(out, /be-replace|math\.py/, `the recap names the session's edit: ${out}`);
    }
  });

  it('started in the plugin folder as the spec says, the Agent Plugin server works in the client\'s MCP roots and follows their changes', async () => {
    const root = path.join(base, 'agent-roots');
    fs.cpSync(path.join(built, 'agent-plugin'), root, { recursive: true });
    const entry = (readJson(path.join(root, 'mcp.json')).mcpServers as Record<string, StdioEntry>)['better-edit-tools'];
    const ws1 = workspace('ws-roots-1');
    const ws2 = workspace('ws-roots-2');
    fs.writeFileSync(path.join(ws2, 'src', 'other.py'), 'def other():\n    return 2\n');
    const env = cleanEnv({ XDG_CACHE_HOME: path.join(base, 'cache-roots'), PLUGIN_ROOT: root, PLUGIN_DATA: path.join(base, 'data') });
    const args = (entry.args ?? []).map((a) => a.replace('${PLUGIN_ROOT}', root));
    const connect = async (roots: string[] | undefined) => {
      const transport = new StdioClientTransport({ command: process.execPath, args, cwd: root, env, stderr: 'pipe' });
      let stderr = '';
      transport.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
      const client = new Client({ name: 'roots-test', version: '1.0.0' }, roots ? { capabilities: { roots: { listChanged: true } } } : {});
      if (roots) client.setRequestHandler(ListRootsRequestSchema, () => ({ roots: roots.map((d) => ({ uri: pathToFileURL(d).href, name: path.basename(d) })) }));
      await client.connect(transport);
      return { client, stderr: () => stderr };
    };
    const text = (r: unknown) => (r as { content: { text?: string }[] }).content.map((c) => c.text ?? '').join('');
    const call = async (client: Client, name: string, args: Record<string, unknown>) => {
      const r = (await client.callTool({ name, arguments: args })) as { isError?: boolean };
      return { isError: !!r.isError, text: text(r) };
    };

    const roots = [ws1];
    const a = await connect(roots);
    try {
      const read = await call(a.client, 'be-read', { file: 'src/math.py', mode: 'structure' }); // sent right after initialize
      assert.ok(!read.isError, read.text + a.stderr());
      assert.match(read.text, /\bmul\b/);
      assert.ok(!(await call(a.client, 'be-replace', { file: 'src/math.py:2', content: '    return b + a\n' })).isError);
      assert.match(fs.readFileSync(path.join(ws1, 'src', 'math.py'), 'utf8'), /return b \+ a/);
      assert.match(a.stderr(), /roots from the client \(initialized\): .*ws-roots-1/);
      assert.ok(!fs.existsSync(path.join(root, 'src')), 'nothing written into the plugin folder');
      // the client's roots change: the next calls work in the new folder
      roots.splice(0, 1, ws2);
      await a.client.sendRootsListChanged();
      const deadline = Date.now() + 20000;
      let other = await call(a.client, 'be-read', { file: 'src/other.py' });
      while (other.isError && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 100));
        other = await call(a.client, 'be-read', { file: 'src/other.py' });
      }
      assert.ok(!other.isError, other.text + a.stderr());
      assert.match(a.stderr(), /roots from the client \(list changed\): .*ws-roots-2/);
    } finally {
      await a.client.close();
    }
    // the memory went where the client's root says: VS Code's SessionStart hook, run in that folder, recaps the edit
    const [hook] = (readJson(path.join(root, 'com.github.copilot', 'hooks', 'hooks.json')) as { hooks: { SessionStart: { command: string }[] } }).hooks.SessionStart;
    assert.match(await runHook(hook.command, ws1, env), /be-replace|math\.py/);

    // A client without roots: the server still answers, and each tool call says what to add
    const b = await connect(undefined);
    try {
      assert.ok((await b.client.listTools()).tools.some((t) => t.name === 'be-read'));
      const refused = await call(b.client, 'be-read', { file: 'src/math.py' });
      assert.ok(refused.isError);
      assert.match(refused.text, /the client offers no MCP roots\. Add "--root"/);
      assert.match(b.stderr(), /offers no MCP roots/);
    } finally {
      await b.client.close();
    }
  });

  it('the Claude Code plugin folder, copied away from the repository, serves a real MCP client; its hook prints the recap', async () => {
    const root = path.join(base, 'claude-copy');
    fs.cpSync(path.join(built, 'claude-code'), root, { recursive: true });
    const entry = (readJson(path.join(root, '.mcp.json')).mcpServers as Record<string, StdioEntry>)['better-edit-tools'];
    const ws = workspace('ws-claude');
    const env = cleanEnv({ XDG_CACHE_HOME: path.join(base, 'cache-claude') });
    await session(entry, { CLAUDE_PLUGIN_ROOT: root }, ws, env); // Claude Code starts servers in the project
    const hooks = readJson(path.join(root, 'hooks', 'hooks.json')) as { hooks: { SessionStart: { matcher: string; hooks: { command: string }[] }[] } };
    const command = hooks.hooks.SessionStart[0].hooks[0].command;
    // as Claude Code runs a command hook: through the shell, with the plugin root and project dir in the environment
    const out = await runHook(command, ws, { ...env, CLAUDE_PLUGIN_ROOT: root, CLAUDE_PROJECT_DIR: ws });
    assert.match(out, /be-replace|math\.py/, `the recap names the session's edit: ${out}`);
    // as Codex runs the same file: the matcher is a regex on SessionStart's source, the command goes to `$SHELL -lc`
    // in the session's folder with CLAUDE_PLUGIN_ROOT and PLUGIN_ROOT set and no CLAUDE_PROJECT_DIR
    const matcher = new RegExp(`^(?:${hooks.hooks.SessionStart[0].matcher})$`);
    assert.ok(matcher.test('compact') && !matcher.test('startup') && !matcher.test('resume'), 'runs after a compaction only');
    const codexEnv = { ...env, CLAUDE_PLUGIN_ROOT: root, PLUGIN_ROOT: root };
    delete (codexEnv as Record<string, string | undefined>).CLAUDE_PROJECT_DIR;
    const codexOut = await runHook(command, ws, codexEnv, ['-lc']);
    assert.match(codexOut, /be-replace|math\.py/, `the recap (Codex) names the session's edit: ${codexOut}`);
  });

  it("Claude Code's own validator (`claude plugin validate`) passes the Claude Code plugin", async function () {
    const cache = path.join(process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache'), 'better-edit-tools-test', `claude-code-${CLAUDE_CODE_VERSION}`);
    const bin = path.join(cache, 'node_modules', '@anthropic-ai', `claude-code-${process.platform}-${process.arch}`, process.platform === 'win32' ? 'claude.exe' : 'claude');
    if (!fs.existsSync(bin)) {
      fs.mkdirSync(cache, { recursive: true });
      try {
        // --ignore-scripts: the platform binary comes as an optional dependency; nothing of it runs at install
        await run(process.platform === 'win32' ? 'npm.cmd' : 'npm', ['install', '--no-save', '--ignore-scripts', '--no-audit', '--no-fund', '--prefix', cache, `@anthropic-ai/claude-code@${CLAUDE_CODE_VERSION}`],
          { cwd: cache, env: cleanEnv(), timeout: 240000 });
      } catch (e) {
        loudSkip(this, `Claude Code ${CLAUDE_CODE_VERSION} could not be installed from npm (${(e as Error).message.split('\n')[0]}); the plugin was NOT checked by its validator`);
      }
      if (!fs.existsSync(bin)) loudSkip(this, `no Claude Code binary for ${process.platform}-${process.arch}; the plugin was NOT checked by its validator`);
    }
    const copy = path.join(base, 'claude-validate');
    fs.cpSync(path.join(built, 'claude-code'), copy, { recursive: true });
    const r = spawnSync(bin, ['plugin', 'validate', copy], { env: cleanEnv({ HOME: path.join(base, 'home') }), encoding: 'utf8', timeout: 120000 });
    if (r.error) loudSkip(this, `claude plugin validate could not run (${r.error.message}); the plugin was NOT checked by its validator`);
    assert.equal(r.status, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /Validation passed/);
    assert.match(r.stdout, /SessionStart compact/);
    assert.match(r.stdout, /mcpServers: better-edit-tools stdio/);
    assert.match(r.stdout, /skills: better-edit-tools/);
    // Claude Code loads the plugin folder and its health check connects to the bundled server, started in the project
    const ws = workspace('ws-claude-cli');
    const list = spawnSync(bin, ['--plugin-dir', copy, 'mcp', 'list'], { cwd: ws, env: cleanEnv({ HOME: path.join(base, 'home'), XDG_CACHE_HOME: path.join(base, 'cache-cli') }), encoding: 'utf8', timeout: 120000 });
    assert.match(list.stdout, /plugin:better-edit-tools:better-edit-tools: node .*server\/cli\.js - ✔ Connected/, list.stdout + list.stderr);
  });
});
