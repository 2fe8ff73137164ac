// Builds the two plugin folders from dist/ (run `node esbuild.mjs` first; `npm run package` does):
//   dist/plugin/agent-plugin/   an Agent Plugins 1.0 plugin (agent-plugins.org): plugin.json (closed schema), mcp.json
//                               ($schema + mcpServers, each with `type`), skills/better-edit-tools/SKILL.md,
//                               com.github.copilot/hooks/hooks.json (VS Code: SessionStart runs `recap`)
//   dist/plugin/claude-code/    a Claude Code plugin (Codex loads it too): .claude-plugin/plugin.json, .mcp.json,
//                               hooks/hooks.json (SessionStart matcher `compact` runs `recap`), the same skill
// and one archive of each (dist/plugin/better-edit-tools-<kind>-<version>.tar.gz). Each folder carries the server
// under server/: the stdio CLI with the grammars, tokenizer ranks and codecs it loads at run time, so it starts with
// `node` (20 or newer) and needs no download, no npx and no node_modules.
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/** What dist/cli.js needs beside it at run time (see scripts/copy-wasm.mjs and esbuild.mjs). */
export const SERVER_FILES = ['cli.js', 'cli-main.js', 'outline-worker.js', 'records-worker.js', 'wasm', 'ranks', 'vendor'];
export const PLUGIN_NAME = 'better-edit-tools';
export const AGENT_PLUGIN_SCHEMA = 'https://agent-plugins.org/schemas/1.0.0/plugin.schema.json';
export const AGENT_MCP_SCHEMA = 'https://agent-plugins.org/schemas/1.0.0/mcp.schema.json';

/** The folder VS Code reads Copilot-specific parts of an Agent Plugin from (spec §8 client extension namespace). */
export const COPILOT_NAMESPACE = 'com.github.copilot';
/** The re-grounding hook commands: the bundled CLI's `recap` of the project the host runs the hook in. */
export const RECAP_CLAUDE = 'node "${CLAUDE_PLUGIN_ROOT}/server/cli.js" recap --root "${CLAUDE_PROJECT_DIR:-.}"';
export const RECAP_AGENT_PLUGIN = 'node "${PLUGIN_ROOT}/server/cli.js" recap';

const json = (v) => JSON.stringify(v, null, 2) + '\n';

function put(file, text) {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, text);
}

function copyServer(dist, dir) {
  for (const f of SERVER_FILES) {
    const from = path.join(dist, f);
    if (!existsSync(from)) throw new Error(`${from} is missing: run \`node esbuild.mjs\` before packaging the plugins`);
    cpSync(from, path.join(dir, 'server', f), { recursive: true, filter: (src) => !src.endsWith('.map') });
  }
  cpSync(path.join(ROOT, 'plugin', 'skills'), path.join(dir, 'skills'), { recursive: true });
  cpSync(path.join(ROOT, 'LICENSE'), path.join(dir, 'LICENSE'));
}

export function manifests(pkg) {
  const common = {
    name: PLUGIN_NAME,
    version: pkg.version,
    description: pkg.description,
    author: { name: 'Better Edit Tools' },
    homepage: pkg.repository.url,
    repository: pkg.repository.url,
    license: pkg.license,
    keywords: pkg.keywords,
  };
  return {
    agent: {
      'plugin.json': { $schema: AGENT_PLUGIN_SCHEMA, ...common },
      // No --root: the project is the directory the host starts the server in. The spec (§7.2.1) says hosts use the
      // plugin root there; the CLI refuses that folder as a sandbox with a message that says to add --root
      // (src/cli/roots.ts). No variable for the workspace exists in the spec (only PLUGIN_ROOT and PLUGIN_DATA).
      'mcp.json': {
        $schema: AGENT_MCP_SCHEMA,
        mcpServers: { [PLUGIN_NAME]: { type: 'stdio', command: 'node', args: ['${PLUGIN_ROOT}/server/cli.js'] } },
      },
      // VS Code agent hooks: Agent Plugins 1.0 leaves hooks to clients (spec §8); VS Code reads Copilot's components
      // from the `com.github.copilot/` folder of an Agent Plugin (VS Code docs, "Agent plugin authoring reference").
      // SessionStart is the event VS Code has for a fresh context (no PostCompact; "Hooks reference"); the command
      // runs in the workspace folder. `${PLUGIN_ROOT}` works whether the host replaces the text or only sets the
      // variable (the shell expands it then); some VS Code builds did neither for this format
      // (microsoft/vscode#335006), which the README says. Copilot CLI (1.0.80 on) reads an Agent Plugin's hooks from this
      // folder only, not from a hooks/hooks.json at the root (test/packaging/copilotCli.test.ts runs a session); it
      // runs the hook in the plugin folder (the project is in COPILOT_PROJECT_DIR) and takes only a JSON
      // `additionalContext` from its stdout: `recap` does both when COPILOT_CLI is set (src/cli/recap.ts).
      [`${COPILOT_NAMESPACE}/hooks/hooks.json`]: {
        hooks: {
          SessionStart: [{ type: 'command', command: RECAP_AGENT_PLUGIN, timeout: 30 }],
        },
      },
    },
    claude: {
      '.claude-plugin/plugin.json': common,
      // Claude Code starts plugin servers in the project directory: the CLI's default root (the current directory).
      '.mcp.json': { mcpServers: { [PLUGIN_NAME]: { type: 'stdio', command: 'node', args: ['${CLAUDE_PLUGIN_ROOT}/server/cli.js'] } } },
      // SessionStart with matcher `compact`: its stdout enters the context after a compaction (README, Re-grounding).
      // The same file serves Codex, which loads a plugin with only `.claude-plugin/plugin.json` (openai/codex
      // codex-rs/utils/plugins/src/plugin_namespace.rs), reads its hooks from `hooks/hooks.json` (core-plugins
      // loader.rs DEFAULT_HOOKS_CONFIG_FILE), matches SessionStart's `matcher` against the source (`compact` after a
      // compaction) and runs the command with `$SHELL -lc` in the session's folder with CLAUDE_PLUGIN_ROOT and
      // PLUGIN_ROOT in its environment (hooks/src/engine/command_runner.rs, discovery.rs). Codex sets no
      // CLAUDE_PROJECT_DIR: the project is then the folder the hook runs in.
      'hooks/hooks.json': {
        description: 'Re-grounds the agent after a compaction with the session recap of better-edit-tools.',
        hooks: {
          SessionStart: [{
            matcher: 'compact',
            hooks: [{ type: 'command', command: RECAP_CLAUDE, timeout: 30 }],
          }],
        },
      },
    },
  };
}

/** Writes both plugin folders and their archives under `out` (default `<dist>/plugin`); returns their paths. */
export function packagePlugins({ dist = path.join(ROOT, 'dist'), out = path.join(dist, 'plugin'), archives = true } = {}) {
  const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
  rmSync(out, { recursive: true, force: true });
  const m = manifests(pkg);
  const result = {};
  for (const [kind, files] of [['agent-plugin', m.agent], ['claude-code', m.claude]]) {
    const dir = path.join(out, kind);
    copyServer(dist, dir);
    for (const [name, value] of Object.entries(files)) put(path.join(dir, name), json(value));
    result[kind] = { dir };
    if (archives) {
      const archive = path.join(out, `${PLUGIN_NAME}-${kind}-${pkg.version}.tar.gz`);
      // the folder's content at the top of the archive, named after the plugin: `tar -xzf … && ls better-edit-tools`
      execFileSync('tar', ['-czf', archive, '--transform', `s,^\\.,${PLUGIN_NAME},`, '-C', dir, '.']);
      result[kind].archive = archive;
    }
  }
  return result;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  // `--clean`: only remove dist/plugin (`npm run package` does before `vsce package`: the package.json "files" that
  // put the archives into the npm tarball would put them into the .vsix too)
  if (process.argv.includes('--clean')) {
    rmSync(path.join(ROOT, 'dist', 'plugin'), { recursive: true, force: true });
    process.exit(0);
  }
  // `--out DIR`: somewhere else than dist/plugin (the tests build into a temp folder)
  const i = process.argv.indexOf('--out');
  const r = packagePlugins(i > 0 ? { out: path.resolve(process.argv[i + 1]) } : {});
  for (const [kind, { dir, archive }] of Object.entries(r)) console.log(`${kind}: ${path.relative(ROOT, dir)}${archive ? `, ${path.relative(ROOT, archive)}` : ''}`);
}
