/**
 * Lazy tree-sitter: the runtime initialises on the first parse, each grammar loads the first time a
 * file of its language is asked for, and both are cached for the process.
 *
 * Pinned pair: web-tree-sitter 0.25.10 + tree-sitter-wasms 0.1.13 (grammars built with tree-sitter-cli
 * 0.20; web-tree-sitter >= 0.26 cannot load them). YAML's grammar fails to load with that pair, so YAML
 * uses the hand-written key outline instead.
 *
 * Where the .wasm files come from:
 *  - a bundle (the extension, the stdio CLI, wherever it is installed: .vsix, npm package) finds them in
 *    `wasm/` next to itself, where esbuild.mjs copies `tree-sitter.wasm` and the grammars of GRAMMAR_FILES;
 *  - run from source, from `tree-sitter-wasms/out/` and `web-tree-sitter/tree-sitter.wasm` in node_modules.
 * Nothing to configure, so no composition root can forget it (the CLI once did).
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Language, Parser } from 'web-tree-sitter';
import { grammarStems } from '../text/languages';

/** VS Code language id → grammar file stem in tree-sitter-wasms/out (from the language registry). */
export const GRAMMAR_FILES: Record<string, string> = grammarStems();

export function hasGrammar(languageId: string): boolean {
  return languageId in GRAMMAR_FILES;
}

interface WasmLocation {
  runtime: string; // tree-sitter.wasm
  grammarDir: string; // holds tree-sitter-<stem>.wasm
}

let location: WasmLocation | undefined;
function wasmLocation(): WasmLocation {
  if (!location) {
    const bundled = join(__dirname, 'wasm');
    location = existsSync(join(bundled, 'tree-sitter.wasm'))
      ? { runtime: join(bundled, 'tree-sitter.wasm'), grammarDir: bundled }
      : {
          runtime: require.resolve('web-tree-sitter/tree-sitter.wasm'),
          grammarDir: join(dirname(require.resolve('tree-sitter-wasms/package.json')), 'out'),
        };
  }
  return location;
}

type TreeSitterModule = typeof import('web-tree-sitter');
let modulePromise: Promise<TreeSitterModule> | undefined;
const languages = new Map<string, Promise<Language>>();

function runtime(): Promise<TreeSitterModule> {
  // Cache the promise, not the value: concurrent first callers share one init.
  modulePromise ??= (async () => {
    const mod = require('web-tree-sitter') as TreeSitterModule;
    const wasm = wasmLocation().runtime;
    await mod.Parser.init({ locateFile: () => wasm } as never);
    return mod;
  })();
  return modulePromise;
}

async function language(stem: string): Promise<Language> {
  let p = languages.get(stem);
  if (!p) {
    p = (async () => {
      const mod = await runtime();
      const file = join(wasmLocation().grammarDir, `tree-sitter-${stem}.wasm`);
      // Bytes, not the path: given a path, web-tree-sitter reads it through import('fs/promises'), which the
      // CLI's code-cache loader would have to serve through an experimental vm hook (a warning on Node 20).
      return mod.Language.load(await readFile(file));
    })();
    languages.set(stem, p);
    p.catch(() => languages.delete(stem)); // let a later call retry
  }
  return p;
}

/**
 * A parser set to the grammar of `languageId`, or undefined when tree-sitter has no grammar for it.
 * Parsers are cheap; each call returns a fresh one so concurrent parses never share state.
 */
export async function parserFor(languageId: string): Promise<Parser | undefined> {
  const stem = GRAMMAR_FILES[languageId];
  if (!stem) return undefined;
  const [mod, lang] = await Promise.all([runtime(), language(stem)]);
  const parser = new mod.Parser();
  parser.setLanguage(lang);
  return parser;
}
