/**
 * Lazy tree-sitter: the runtime initialises on the first parse, each grammar loads the first time a
 * file of its language is asked for, and both are cached for the process.
 *
 * Pinned pair: web-tree-sitter 0.25.10 + tree-sitter-wasms 0.1.13 (grammars built with tree-sitter-cli
 * 0.20; web-tree-sitter >= 0.26 cannot load them). YAML's grammar fails to load with that pair, so YAML
 * uses the hand-written key outline instead.
 *
 * Where the .wasm files come from:
 *  - default: `tree-sitter-wasms/out/` and `web-tree-sitter/tree-sitter.wasm`, resolved from node_modules;
 *  - a bundle (the VS Code extension) copies the needed files into one folder (e.g. `dist/wasm/`) and calls
 *    `setGrammarDir(thatFolder)` before the first parse. The folder must hold `tree-sitter.wasm` and the
 *    `tree-sitter-<grammar>.wasm` files of GRAMMAR_FILES.
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Language, Parser } from 'web-tree-sitter';
import { grammarStems } from '../text/languages';

/** VS Code language id → grammar file stem in tree-sitter-wasms/out (from the language registry). */
export const GRAMMAR_FILES: Record<string, string> = grammarStems();

export function hasGrammar(languageId: string): boolean {
  return languageId in GRAMMAR_FILES;
}

let grammarDir: string | undefined;
let runtimeDir: string | undefined;

/**
 * Use `dir` for every .wasm file (runtime and grammars). Call before the first parse; later calls only
 * affect grammars not loaded yet.
 */
export function setGrammarDir(dir: string | undefined): void {
  grammarDir = dir;
  runtimeDir = dir;
}

function defaultGrammarDir(): string {
  return join(dirname(require.resolve('tree-sitter-wasms/package.json')), 'out');
}

function runtimeWasmPath(): string {
  if (runtimeDir && existsSync(join(runtimeDir, 'tree-sitter.wasm'))) return join(runtimeDir, 'tree-sitter.wasm');
  return require.resolve('web-tree-sitter/tree-sitter.wasm');
}

type TreeSitterModule = typeof import('web-tree-sitter');
let modulePromise: Promise<TreeSitterModule> | undefined;
const languages = new Map<string, Promise<Language>>();

function runtime(): Promise<TreeSitterModule> {
  // Cache the promise, not the value: concurrent first callers share one init.
  modulePromise ??= (async () => {
    const mod = require('web-tree-sitter') as TreeSitterModule;
    const wasm = runtimeWasmPath();
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
      const file = join(grammarDir ?? defaultGrammarDir(), `tree-sitter-${stem}.wasm`);
      return mod.Language.load(file);
    })();
    languages.set(stem, p);
    p.catch(() => languages.delete(stem)); // let a later call retry (e.g. after setGrammarDir)
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
