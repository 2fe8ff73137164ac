/**
 * Lazy tree-sitter: the runtime initialises on the first parse, each grammar loads the first time a
 * file of its language is asked for (and is kept by the TreeSitterParsers that loaded it).
 *
 * Runtime and grammars: @vscode/tree-sitter-wasm 0.3.1, the build VS Code itself parses with (its own
 * web-tree-sitter 0.25 runtime, grammars of ABI 14/15 from tree-sitter-typescript 0.23, -python/-go 0.25, …).
 * The older tree-sitter-wasms 0.1.13 TypeScript grammar turned real files into one ERROR node (generic call
 * signatures in interfaces); see test/core/context/modernOutline.test.ts. C is not in the VS Code set, so its
 * grammar still comes from tree-sitter-wasms (ABI 14, loads in this runtime). YAML's tree-sitter-wasms grammar
 * does not load in it, so YAML keeps the hand-written key outline.
 *
 * Where the .wasm files come from is a port (GrammarLocator) the composition root picks:
 *  - a bundle (the extension, the stdio CLI, wherever it is installed: .vsix, npm package) finds them in
 *    `wasm/` next to itself, where esbuild.mjs copies `tree-sitter.wasm` and the files of GRAMMAR_FILES;
 *  - run from source, from the packages in node_modules (GRAMMAR_PACKAGES).
 * grammarsBeside(dir) picks between the two; TreeSitterParsers takes the locator, so no root can forget it.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Language, Parser } from '@vscode/tree-sitter-wasm';
import { grammarStems } from '../../text/languages';

/** The npm packages holding .wasm files, by the folder (relative to the package) they keep them in. */
export const GRAMMAR_PACKAGES = {
  vscode: { name: '@vscode/tree-sitter-wasm', dir: 'wasm' },
  wasms: { name: 'tree-sitter-wasms', dir: 'out' },
} as const;

export interface GrammarFile {
  from: keyof typeof GRAMMAR_PACKAGES;
  file: string;
}

/** C is not in VS Code's set of grammars: it comes from tree-sitter-wasms. */
const FROM_WASMS = new Set(['c']);

/**
 * VS Code language id → the grammar file and the package it comes from, for every language the registry
 * (text/languages.ts) gives a grammar. A null-prototype table: `constructor` or `toString` is no language.
 */
export const GRAMMAR_FILES: Record<string, GrammarFile> = Object.assign(
  Object.create(null) as Record<string, GrammarFile>,
  Object.fromEntries(
    Object.entries(grammarStems()).map(([id, stem]): [string, GrammarFile] => [id, { from: FROM_WASMS.has(stem) ? 'wasms' : 'vscode', file: `tree-sitter-${stem}.wasm` }]),
  ),
);

/** The runtime's own .wasm, in the @vscode/tree-sitter-wasm package. */
export const RUNTIME_FILE: GrammarFile = { from: 'vscode', file: 'tree-sitter.wasm' };

export { hasGrammar } from '../../text/languages';

/** Absolute path of a .wasm file in node_modules (run from source, and the build's copy step). */
export function packagedWasm(g: GrammarFile): string {
  const pkg = GRAMMAR_PACKAGES[g.from];
  return join(dirname(require.resolve(`${pkg.name}/package.json`)), pkg.dir, g.file);
}

/** Where the runtime and grammar .wasm files are. */
export interface GrammarLocator {
  wasmPath(g: GrammarFile): string;
}

/** The .wasm files of the npm packages in node_modules (run from source, tests). */
export const packagedGrammars: GrammarLocator = { wasmPath: packagedWasm };

/** The `wasm/` folder beside a bundle at `dir` when it holds the runtime, else the npm packages (run from source). */
export function grammarsBeside(dir: string): GrammarLocator {
  const wasmDir = join(dir, 'wasm');
  if (!existsSync(join(wasmDir, RUNTIME_FILE.file))) return packagedGrammars;
  return { wasmPath: (g) => join(wasmDir, g.file) };
}

/** What structure and the symbol locator parse with. */
export interface ParserSource {
  /** A fresh parser set to the grammar of `languageId`; undefined when there is no grammar for it. */
  parserFor(languageId: string): Promise<Parser | undefined>;
}

type TreeSitterModule = typeof import('@vscode/tree-sitter-wasm');
/**
 * The runtime is the library's own process-wide module (Parser.init sets up one WASM instance): initialised once,
 * from the first locator that asks. Grammars are per TreeSitterParsers.
 */
let modulePromise: Promise<TreeSitterModule> | undefined;

function runtime(grammars: GrammarLocator): Promise<TreeSitterModule> {
  // Cache the promise, not the value: concurrent first callers share one init.
  modulePromise ??= (async () => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on first use; the bundle keeps it lazy
    const mod = require('@vscode/tree-sitter-wasm') as TreeSitterModule;
    // Bytes, not a path: given a path, the runtime reads it through import('fs/promises'), which the CLI's
    // code-cache loader would have to serve through an experimental vm hook (a warning on Node 20).
    const wasmBinary = await readFile(grammars.wasmPath(RUNTIME_FILE));
    await mod.Parser.init({ wasmBinary } as never);
    return mod;
  })();
  modulePromise.catch(() => (modulePromise = undefined)); // let a later call retry
  return modulePromise;
}

/** Parsers over the grammars a locator finds; each grammar loads on first use and stays for this instance. */
export class TreeSitterParsers implements ParserSource {
  private readonly languages = new Map<string, Promise<Language>>();

  constructor(private readonly grammars: GrammarLocator) {}

  /** Loads the runtime ahead of the first parse (the outline worker does it as it starts). */
  async runtimeReady(): Promise<void> {
    await runtime(this.grammars);
  }

  private language(g: GrammarFile): Promise<Language> {
    let p = this.languages.get(g.file);
    if (!p) {
      p = (async () => {
        const mod = await runtime(this.grammars);
        return mod.Language.load(await readFile(this.grammars.wasmPath(g)));
      })();
      this.languages.set(g.file, p);
      p.catch(() => this.languages.delete(g.file));
    }
    return p;
  }

  /**
   * A parser set to the grammar of `languageId`, or undefined when tree-sitter has no grammar for it.
   * Parsers are cheap; each call returns a fresh one so concurrent parses never share state.
   */
  async parserFor(languageId: string): Promise<Parser | undefined> {
    const g = GRAMMAR_FILES[languageId];
    if (!g) return undefined;
    const [mod, lang] = await Promise.all([runtime(this.grammars), this.language(g)]);
    const parser = new mod.Parser();
    parser.setLanguage(lang);
    return parser;
  }
}
