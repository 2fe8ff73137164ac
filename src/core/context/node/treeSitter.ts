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
 * Compiled .wasm modules shared by the threads of one process, by file name. V8 keeps a module's machine code, and
 * what its optimizing tier has made of the hot functions, with the module: a worker that starts with the module an
 * earlier worker compiled parses at once at that speed (a fresh outline worker's first 2 MB of C: ~0.8 s from the
 * bytes, ~0.6 s with the module). The outline pool keeps them for its workers (outlinePool.ts).
 */
export interface CompiledModules {
  get(file: string): WebAssembly.Module | undefined;
  /** A module this thread compiled from the file's bytes. */
  add(file: string, module: WebAssembly.Module): void;
}

/** The object given to Parser.init, which the library makes its binding (emscripten's Module) and keeps. */
interface Binding {
  instantiateWasm?: (imports: WebAssembly.Imports, done: (instance: WebAssembly.Instance, module: WebAssembly.Module) => object) => object;
  /** Set by the library at init. */
  loadWebAssemblyModule?: (binary: unknown, ...rest: unknown[]) => unknown;
}

/**
 * The runtime is the library's own per-thread module (Parser.init sets up one WASM instance): initialised once,
 * from the first locator that asks. Grammars are per TreeSitterParsers.
 */
let modulePromise: Promise<{ mod: TreeSitterModule; binding: Binding }> | undefined;

/** The module of a .wasm file: the store's, else compiled here (off the thread: WebAssembly.compile) and added. */
async function compiled(grammars: GrammarLocator, g: GrammarFile, store?: CompiledModules): Promise<WebAssembly.Module> {
  const known = store?.get(g.file);
  if (known) return known;
  const module = await WebAssembly.compile(await readFile(grammars.wasmPath(g)));
  store?.add(g.file, module);
  return module;
}

function runtime(grammars: GrammarLocator, store?: CompiledModules): Promise<{ mod: TreeSitterModule; binding: Binding }> {
  // Cache the promise, not the value: concurrent first callers share one init.
  modulePromise ??= (async () => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on first use; the bundle keeps it lazy
    const mod = require('@vscode/tree-sitter-wasm') as TreeSitterModule;
    // A compiled module, not a path: given a path, the runtime reads it through import('fs/promises'), which the
    // CLI's code-cache loader would have to serve through an experimental vm hook (a warning on Node 20). The
    // instance is made in the hook, so that a failure there rejects init.
    const module = await compiled(grammars, RUNTIME_FILE, store);
    const binding: Binding = {
      // made at once, `done` returns the exports, which the hook returns (emscripten's synchronous form)
      instantiateWasm: (imports, done) => done(new WebAssembly.Instance(module, imports), module),
    };
    await mod.Parser.init(binding as never);
    return { mod, binding };
  })();
  modulePromise.catch(() => (modulePromise = undefined)); // let a later call retry
  return modulePromise;
}

/**
 * A grammar loaded from its compiled module. Language.load takes only bytes or a path, and hands them to the
 * binding's loadWebAssemblyModule, which also takes a compiled module: the binding is the object given to
 * Parser.init, so the module is swapped in there for a stand-in array. Should a later library version not call it
 * so, the file's bytes load instead (compiled again: slower, the same grammar).
 */
async function loadLanguage(mod: TreeSitterModule, binding: Binding, module: WebAssembly.Module, bytes: () => Promise<Uint8Array>): Promise<Language> {
  const load = binding.loadWebAssemblyModule;
  if (typeof load !== 'function') return mod.Language.load(await bytes());
  const standIn = new Uint8Array(0);
  let swapped = false;
  binding.loadWebAssemblyModule = (binary: unknown, ...rest: unknown[]) => {
    if (binary !== standIn) return load(binary, ...rest);
    swapped = true;
    return load(module, ...rest);
  };
  try {
    return await mod.Language.load(standIn);
  } catch (err) {
    if (swapped) throw err;
    return mod.Language.load(await bytes());
  } finally {
    binding.loadWebAssemblyModule = load;
  }
}

/** Parsers over the grammars a locator finds; each grammar loads on first use and stays for this instance. */
export class TreeSitterParsers implements ParserSource {
  private readonly languages = new Map<string, Promise<Language>>();

  /** `store`: compiled modules to take and to add to (the outline worker's, shared through its pool). */
  constructor(
    private readonly grammars: GrammarLocator,
    private readonly store?: CompiledModules,
  ) {}

  /** Loads the runtime ahead of the first parse (the outline worker does it as it starts). */
  async runtimeReady(): Promise<void> {
    await runtime(this.grammars, this.store);
  }

  private language(g: GrammarFile): Promise<Language> {
    let p = this.languages.get(g.file);
    if (!p) {
      p = (async () => {
        const [{ mod, binding }, module] = await Promise.all([runtime(this.grammars, this.store), compiled(this.grammars, g, this.store)]);
        return loadLanguage(mod, binding, module, () => readFile(this.grammars.wasmPath(g)));
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
    const [{ mod }, lang] = await Promise.all([runtime(this.grammars, this.store), this.language(g)]);
    const parser = new mod.Parser();
    parser.setLanguage(lang);
    return parser;
  }
}
