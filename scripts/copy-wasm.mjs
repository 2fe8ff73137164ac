// Copies the tree-sitter runtime and the grammars the context modes use into dist/wasm/, so the packaged
// extension (no node_modules) can parse; the extension calls setGrammarDir(<ext>/dist/wasm) on activation.
import { copyFileSync, mkdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { tsImport } from 'tsx/esm/api';

const require = createRequire(import.meta.url);
const { GRAMMAR_FILES } = await tsImport('../src/core/context/treeSitter.ts', import.meta.url);
const out = path.resolve('dist/wasm');
rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
copyFileSync(require.resolve('web-tree-sitter/tree-sitter.wasm'), path.join(out, 'tree-sitter.wasm'));
const grammars = path.join(path.dirname(require.resolve('tree-sitter-wasms/package.json')), 'out');
for (const stem of new Set(Object.values(GRAMMAR_FILES))) {
  copyFileSync(path.join(grammars, `tree-sitter-${stem}.wasm`), path.join(out, `tree-sitter-${stem}.wasm`));
}
console.log(`dist/wasm: runtime + ${new Set(Object.values(GRAMMAR_FILES)).size} grammars`);
