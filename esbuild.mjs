// Bundles the stdio CLI and (when present) the VS Code extension into dist/.
import process from 'node:process';
import { build } from 'esbuild';
import { existsSync } from 'node:fs';

const common = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  sourcemap: true,
  logLevel: 'warning',
  // Only looked up with require.resolve (grammar files next to node_modules); the extension sets its own dir.
  external: ['tree-sitter-wasms/package.json', 'web-tree-sitter/tree-sitter.wasm'],
};

const entries = [
  { entryPoints: ['src/cli/main.ts'], outfile: 'dist/cli.js', banner: { js: '#!/usr/bin/env node' } },
];
// `node esbuild.mjs cli` builds the stdio CLI only (the MCP tests use it).
if (process.argv[2] !== 'cli' && existsSync('src/vscode/extension.ts')) {
  entries.push({ entryPoints: ['src/vscode/extension.ts'], outfile: 'dist/extension.js', external: [...common.external, 'vscode'] });
}

await Promise.all(entries.map((e) => build({ ...common, ...e })));
