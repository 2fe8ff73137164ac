/**
 * GitHub Copilot CLI's own reading of what we hand it, with its real binary (installed from npm into the user's cache
 * on first use; these commands run offline and without a GitHub login): the README's `~/.copilot/mcp-config.json`
 * snippet exactly as written, and the Agent Plugin folder installed with `copilot plugin install <folder>`, whose
 * bundled server Copilot then lists as a plugin server. A session with GitHub's models needs a GitHub login; one with
 * a custom provider (BYOK: COPILOT_PROVIDER_BASE_URL) does not, so a session runs here against a local stand-in for
 * an OpenAI-compatible endpoint, which is enough to see which of the plugin's hooks Copilot runs.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { buildDist } from '../distBuild';
import { cleanEnv, isolatedDir, REPO, run } from './packaged';

const COPILOT_VERSION = '1.0.102';

/**
 * A stand-in for an OpenAI-compatible chat endpoint: every completion answers "done" (streamed when asked). Keeps
 * the request bodies, which hold all the session put into the model's context.
 */
async function fakeModelEndpoint(): Promise<{ url: string; bodies: string[]; close: () => Promise<void> }> {
  const bodies: string[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      bodies.push(body);
      if (req.url?.endsWith('/models')) {
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ object: 'list', data: [{ id: 'gpt-4.1', object: 'model' }] }));
        return;
      }
      const base = { id: 'c1', created: 1, model: 'gpt-4.1' };
      const usage = { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 };
      if (!body.includes('"stream":true')) {
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ ...base, object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content: 'done' }, finish_reason: 'stop' }], usage }));
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const chunk = (v: object) => res.write(`data: ${JSON.stringify({ ...base, object: 'chat.completion.chunk', ...v })}\n\n`);
      chunk({ choices: [{ index: 0, delta: { role: 'assistant', content: 'done' }, finish_reason: null }] });
      chunk({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }], usage });
      res.end('data: [DONE]\n\n');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/v1`, bodies, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

function loudSkip(ctx: Mocha.Context, why: string): never {
  console.log(`\n  ##########\n  ## SKIPPED: ${why}\n  ##########`);
  ctx.skip();
}

/** The JSON block that follows the README line naming `~/.copilot/mcp-config.json`. */
function readmeCopilotSnippet(readme: string): string {
  const at = readme.indexOf('Copilot CLI (`~/.copilot/mcp-config.json`');
  assert.ok(at >= 0, 'the README has the Copilot CLI snippet');
  const block = /```json\n([\s\S]*?)```/.exec(readme.slice(at));
  assert.ok(block, 'a json block follows it');
  return block[1]!;
}

describe('packaging: GitHub Copilot CLI reads our config snippet and installs the Agent Plugin', function () {
  this.timeout(300000);
  let base = '';
  let bin = '';
  const copilot = (home: string, args: string[], cwd: string) => {
    const r = spawnSync(bin, args, { cwd, env: cleanEnv({ HOME: home, COPILOT_HOME: path.join(home, '.copilot') }), encoding: 'utf8', timeout: 120000 });
    assert.ifError(r.error);
    return { status: r.status, out: r.stdout + r.stderr };
  };

  /** The Agent Plugin folder as `npm run package` builds it, copied to `base/<name>` (Copilot names the plugin after it). */
  const agentPluginCopy = async (name: string): Promise<string> => {
    const built = path.join(base, 'built');
    if (!fs.existsSync(built)) await run(process.execPath, [path.join(REPO, 'scripts', 'package-plugins.mjs'), '--out', built], { cwd: REPO, env: cleanEnv() });
    const folder = path.join(base, name);
    fs.cpSync(path.join(built, 'agent-plugin'), folder, { recursive: true });
    return folder;
  };

  before(async function () {
    const cache = path.join(process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache'), 'better-edit-tools-test', `copilot-cli-${COPILOT_VERSION}`);
    bin = path.join(cache, 'node_modules', '@github', `copilot-${process.platform}-${process.arch}`, 'copilot');
    if (!fs.existsSync(bin)) {
      fs.mkdirSync(cache, { recursive: true });
      try {
        await run('npm', ['install', '--no-save', '--ignore-scripts', '--no-audit', '--no-fund', '--prefix', cache, `@github/copilot@${COPILOT_VERSION}`], { cwd: cache, env: cleanEnv(), timeout: 240000 });
      } catch (e) {
        loudSkip(this, `Copilot CLI ${COPILOT_VERSION} could not be installed from npm (${(e as Error).message.split('\n')[0]}); NOT checked by Copilot CLI`);
      }
      if (!fs.existsSync(bin)) loudSkip(this, `no Copilot CLI binary for ${process.platform}-${process.arch}; NOT checked by Copilot CLI`);
    }
    await buildDist();
    base = isolatedDir('bet-copilot-');
  });
  after(() => base && fs.rmSync(base, { recursive: true, force: true }));

  it('the README snippet, as written with the tarball and project filled in, is a user server Copilot CLI can start', () => {
    const home = path.join(base, 'home-snippet');
    const project = path.join(base, 'project');
    fs.mkdirSync(path.join(home, '.copilot'), { recursive: true });
    fs.mkdirSync(project, { recursive: true });
    const tgz = path.join(base, 'better-edit-tools-0.0.0.tgz');
    const snippet = readmeCopilotSnippet(fs.readFileSync(path.join(REPO, 'README.md'), 'utf8')).split('<tgz>').join(tgz).split('/abs/project').join(project);
    fs.writeFileSync(path.join(home, '.copilot', 'mcp-config.json'), snippet);
    const list = copilot(home, ['mcp', 'list'], project);
    assert.equal(list.status, 0, list.out);
    assert.match(list.out, /User servers:\s+better-edit-tools \(local\)/, list.out);
    const get = copilot(home, ['mcp', 'get', 'better-edit-tools'], project);
    assert.equal(get.status, 0, get.out);
    assert.ok(get.out.includes(`Command: npx -y -p ${tgz} better-edit-tools --root ${project}`), get.out);
    assert.match(get.out, /Tools: \* \(all\)/);
    // the check has teeth: a snippet Copilot cannot parse is not listed
    fs.writeFileSync(path.join(home, '.copilot', 'mcp-config.json'), snippet.replace('"mcpServers"', '"mcp_servers"'));
    assert.doesNotMatch(copilot(home, ['mcp', 'list'], project).out, /better-edit-tools \(local\)/);
  });

  it('`copilot plugin install <folder>` installs the Agent Plugin: its skill and its bundled server', async () => {
    const folder = await agentPluginCopy('better-edit-tools');
    const home = path.join(base, 'home-plugin');
    fs.mkdirSync(home, { recursive: true });
    const install = copilot(home, ['plugin', 'install', folder], base);
    assert.equal(install.status, 0, install.out);
    assert.match(install.out, /Plugin "better-edit-tools" installed successfully\. Installed 1 skill\./, install.out);
    assert.match(copilot(home, ['plugin', 'list'], base).out, /Installed plugins:\s+• better-edit-tools \(v\d+\.\d+\.\d+\)/);
    const get = copilot(home, ['mcp', 'get', 'better-edit-tools'], base);
    assert.match(get.out, /Source: Plugin/, get.out);
    assert.match(get.out, /Command: node \$\{PLUGIN_ROOT\}\/server\/cli\.js/, get.out);
    assert.match(get.out, /PLUGIN_ROOT: /, 'Copilot sets PLUGIN_ROOT for the server it starts');
    // what Copilot copied in carries the server: the same tree the packaging tests start
    const installed = path.join(home, '.copilot', 'installed-plugins', '_direct', 'better-edit-tools');
    assert.ok(fs.statSync(path.join(installed, 'server', 'cli.js')).isFile(), `the server was copied into ${installed}`);
  });

  it('a Copilot CLI session runs the Agent Plugin\'s SessionStart hook from com.github.copilot/hooks/ (not a hooks/hooks.json at its root), and the project\'s recap reaches the model', async () => {
    const folder = await agentPluginCopy('better-edit-tools');
    // a probe where Claude Code and Codex look: Copilot CLI reads an Agent Plugin's hooks only under its namespace
    // folder (its changelog, 1.0.80: no longer from the plugin root), so this must never run
    const rootProbe = path.join(base, 'root-hook-ran');
    fs.mkdirSync(path.join(folder, 'hooks'), { recursive: true });
    fs.writeFileSync(path.join(folder, 'hooks', 'hooks.json'), JSON.stringify({ hooks: { SessionStart: [{ type: 'command', command: `echo ran > ${rootProbe}` }] } }));
    const home = path.join(base, 'home-session');
    fs.mkdirSync(home, { recursive: true });
    const install = copilot(home, ['plugin', 'install', folder], base);
    assert.equal(install.status, 0, install.out);
    const project = path.join(base, 'project-session');
    fs.mkdirSync(project, { recursive: true });
    const logs = path.join(base, 'session-logs');
    const model = await fakeModelEndpoint();
    try {
      const env = cleanEnv({ HOME: home, COPILOT_HOME: path.join(home, '.copilot'), COPILOT_PROVIDER_BASE_URL: model.url, COPILOT_MODEL: 'gpt-4.1' });
      // a chat-memory session of this project, saved by the built server as an earlier session would
      const seed = new Client({ name: 'seed', version: '1.0.0' });
      await seed.connect(new StdioClientTransport({ command: process.execPath, args: [path.join(REPO, 'dist', 'cli.js'), '--root', project], cwd: project, env, stderr: 'ignore' }));
      const wrote = await seed.callTool({ name: 'be-write', arguments: { file: 'seeded-by-an-earlier-session.txt', content: 'x\n' } });
      assert.ok(!wrote.isError, JSON.stringify(wrote));
      await seed.close();
      const out = await run(bin, ['-p', 'say done', '--allow-all-tools', '--log-dir', logs, '--log-level', 'all'], { cwd: project, env, timeout: 120000 });
      assert.match(out, /done/, out);
      assert.ok(model.bodies.some((b) => b.includes('say done')), 'the session asked the stand-in model');
    } finally {
      await model.close();
    }
    // our hook ran in the plugin folder, read the project's session (COPILOT_PROJECT_DIR) and its JSON reached the model
    const prompts = model.bodies.filter((b) => b.includes('say done'));
    assert.ok(prompts.some((b) => b.includes('Better Edit Tools recap of session') && b.includes('seeded-by-an-earlier-session.txt')), 'the recap is in the model\'s context');
    assert.ok(!fs.existsSync(rootProbe), 'a hooks/hooks.json at the plugin root is not run');
  });
});
