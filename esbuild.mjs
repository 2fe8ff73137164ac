// Bundles the stdio CLI and (when present) the VS Code extension into dist/, minified, and copies the data
// files they load on first use (grammars, tokenizer ranks) beside them: see scripts/copy-wasm.mjs.
// `node esbuild.mjs cli` builds the stdio CLI only (the MCP tests use it).
import process from 'node:process';
import { build } from 'esbuild';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { copyAssets } from './scripts/copy-wasm.mjs';

const common = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  // Minified: V8 parses the whole file on every VS Code start and every CLI session (5.3 MB -> ~1 MB).
  minify: true,
  sourcemap: true, // dist/*.map, not shipped: for reading a stack trace from a user's log
  logLevel: 'warning',
  // Loaded from dist/wasm and dist/ranks at run time (see copy-wasm.mjs); from node_modules when run from source.
  external: ['tree-sitter-wasms/package.json', '@vscode/tree-sitter-wasm/package.json', 'js-tiktoken/ranks/*'],
  // jsonc-parser's `main` is a UMD build that requires its parts by computed name, which a bundle cannot follow
  // (the installed extension failed with "Cannot find module './impl/format'"): its ES module build bundles.
  alias: { 'jsonc-parser': 'jsonc-parser/lib/esm/main.js' },
};

// zod re-exports all its ~40 message locales (264 KB minified) through `z.locales`; nothing here uses them
// (zod configures English from its own en.js import), so the namespace is an empty module in the bundles.
const noZodLocales = {
  name: 'no-zod-locales',
  setup(b) {
    b.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (a) => (/[\\/]zod[\\/]/.test(a.importer) ? { path: 'zod-locales', namespace: 'empty' } : undefined));
    b.onLoad({ filter: /.*/, namespace: 'empty' }, () => ({ contents: 'export {};', loader: 'js' }));
  },
};
// @vscode/tree-sitter-wasm's runtime loads `module` and `fs/promises` with import(); inside the CLI's code-cache loader
// (a vm script) that needs an experimental vm hook and prints a warning on every start. The bundle's own require()
// does the same (the runtime only made itself a require from `module`).
const treeSitterRequire = {
  name: 'tree-sitter-require',
  setup(b) {
    b.onLoad({ filter: /[\\/]@vscode[\\/]tree-sitter-wasm[\\/]wasm[\\/]tree-sitter\.js$/ }, async (a) => ({
      contents: (await readFile(a.path, 'utf8'))
        .replace(/const \{ createRequire \} = await import\("module"\);\s*var require = createRequire\([^;]*\);/, '')
        .replace(/await import\("fs\/promises"\)/, 'require("fs/promises")'),
      loader: 'js',
    }));
  },
};
// The tool table's listed JSON schemas and plain argument shapes, computed here once instead of at every start
// (src/mcp/builtSchemas.ts, src/mcp/plainArgs.ts).
let schemasJson; // computed once for all the bundles
const builtSchemas = {
  name: 'built-schemas',
  setup(b) {
    b.onLoad({ filter: /[\\/]src[\\/]mcp[\\/]builtSchemas\.ts$/ }, async () => {
      schemasJson ??= (async () => {
        const { tsImport } = await import('tsx/esm/api');
        const { listedSchemasOf } = await tsImport('./src/mcp/listing.ts', import.meta.url);
        const { toolTable } = await tsImport('./src/mcp/tools/index.ts', import.meta.url);
        const { plainShapesOf } = await tsImport('./src/mcp/plainArgs.ts', import.meta.url);
        return { listed: JSON.stringify(listedSchemasOf(toolTable)), plain: JSON.stringify(plainShapesOf(toolTable)) };
      })();
      const { listed, plain } = await schemasJson;
      // a JSON.parse of a string literal: V8 reads that faster than the same object literal
      return { contents: `export const BUILT_SCHEMAS = JSON.parse(${JSON.stringify(listed)});\nexport const BUILT_PLAIN = JSON.parse(${JSON.stringify(plain)});`, loader: 'js' };
    });
  },
};
// node:crypto costs a start ~5-10 ms to load (its bindings initialise OpenSSL) and was loaded at every bundle
// evaluation, by modules that hash or draw random names only when they write: our modules get it on first use.
const LAZY_CRYPTO = ['createHash', 'createHmac', 'randomBytes', 'randomUUID', 'timingSafeEqual'];
const lazyCrypto = {
  name: 'lazy-crypto',
  setup(b) {
    b.onResolve({ filter: /^node:crypto$/ }, (a) => (/[\\/]src[\\/]/.test(a.importer) && !/[\\/]node_modules[\\/]/.test(a.importer) ? { path: 'lazy-crypto', namespace: 'lazy-crypto' } : undefined));
    b.onLoad({ filter: /.*/, namespace: 'lazy-crypto' }, () => ({
      contents: `let m; const c = () => (m ??= require('node:crypto'));\n` + LAZY_CRYPTO.map((f) => `export const ${f} = (...a) => c().${f}(...a);`).join('\n'),
      loader: 'js',
    }));
  },
};
// node:worker_threads (its internals and message ports, ~1-3 ms of a start) loaded at every bundle evaluation for a
// `new Worker(...)` that a session may never make: our modules get a Worker that loads it on first use.
const lazyWorker = {
  name: 'lazy-worker',
  setup(b) {
    b.onResolve({ filter: /^node:worker_threads$/ }, (a) =>
      /[\\/]src[\\/]/.test(a.importer) && !/[\\/](outline|records)Worker\.ts$/.test(a.importer) ? { path: 'lazy-worker', namespace: 'lazy-worker' } : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'lazy-worker' }, () => ({
      contents: `export function Worker(...a) { return new (require('node:worker_threads').Worker)(...a); }\n`,
      loader: 'js',
    }));
  },
};
// The SDK's Server makes an ajv JSON Schema validator at construction (ajv, its formats and their URI parser: ~5 ms
// of every start) for one thing, checking an elicitation's answer, which these servers never ask for. The Server
// gets a stand-in that loads the real one on first use, from a file of its own (dist/vendor/ajv-provider.js): in the
// bundle, its ~130 KB were still read at every start and parsed at every first one (no code cache yet).
const lazyAjv = {
  name: 'lazy-ajv',
  setup(b) {
    b.onResolve({ filter: /[\\/]validation[\\/]ajv-provider\.js$/ }, (a) =>
      /[\\/]@modelcontextprotocol[\\/]sdk[\\/].*[\\/]server[\\/]index\.js$/.test(a.importer) ? { path: 'ajv-provider', namespace: 'lazy-ajv' } : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'lazy-ajv' }, () => ({
      contents:
        `const vendorFile = () => require('node:path').join(__dirname, 'vendor', 'ajv-provider.js');\nlet Real;\n` +
        `export class AjvJsonSchemaValidator {\n  constructor(ajv) { this.ajv = ajv; }\n` +
        `  getValidator(schema) { Real ??= require(vendorFile()).AjvJsonSchemaValidator; this.real ??= new Real(this.ajv); return this.real.getValidator(schema); }\n}\n`,
      loader: 'js',
    }));
  },
};
// zod's evaluation (~5 ms of every start) and its first object's build and parse (~2-3 ms) came before the first
// answer; a call whose arguments are plainly valid is checked without zod (src/mcp/plainArgs.ts). Our modules get a
// `z` that evaluates zod at its first use (a schema built, an argument zod must judge, the CLI's idle warm-up).
/** `vendored`: the stdio CLI's bundle, whose zod is dist/vendor/zod.js (vendorZod below): `z` comes from there. */
const lazyZodPlugin = (vendored) => ({
  name: 'lazy-zod',
  setup(b) {
    b.onResolve({ filter: /^zod$/ }, (a) => (a.namespace !== 'lazy-zod' && /[\\/]src[\\/]/.test(a.importer) && !/[\\/]node_modules[\\/]/.test(a.importer) ? { path: 'lazy-zod', namespace: 'lazy-zod' } : undefined));
    b.onLoad({ filter: /.*/, namespace: 'lazy-zod' }, async () => {
      // zod's ES module build, the one the SDK imports: a require() of `zod` would bundle its CommonJS build beside it
      const from = vendored ? 'zod' : (await b.resolve('zod', { kind: 'import-statement', resolveDir: process.cwd() })).path;
      return {
        contents: `let z;\nObject.defineProperty(exports, 'z', { enumerable: true, get: () => (z ??= require(${JSON.stringify(from)}).z) });\n`,
        loader: 'js',
        resolveDir: process.cwd(),
      };
    });
  },
});
// zod in a file of its own for the stdio CLI (dist/vendor/zod.js), loaded at its first use through the loader's code
// cache (src/cli/bin.ts, LOAD_VENDOR_KEY). Lazily evaluated inside the bundle, it still cost every start its share of
// the cache's deserialisation and its namespaces' getters (first tools/call of a later start: README, bench:startup;
// 81.7 / 91.1 ms against the build before in 21 interleaved runs on Node 24). Every zod entry the bundle imports (ours, the SDK's,
// zod-to-json-schema's) is a namespace of that one file, so all share one zod; an entry not listed fails the build.
const ZOD_ENTRIES = { zod: 'zod', 'zod/v3': 'v3', 'zod/v4': 'v4', 'zod/v4-mini': 'v4mini', 'zod/v4/core': 'v4core' };
const vendorZod = {
  name: 'vendor-zod',
  setup(b) {
    b.onResolve({ filter: /^zod(\/.*)?$/ }, (a) => {
      if (!Object.hasOwn(ZOD_ENTRIES, a.path)) throw new Error(`vendor-zod: ${a.path} (imported by ${a.importer}) is not in ZOD_ENTRIES`);
      return { path: ZOD_ENTRIES[a.path], namespace: 'vendor-zod' };
    });
    b.onResolve({ filter: /^vendor-zod-file$/ }, () => ({ path: 'file', namespace: 'vendor-zod-file' }));
    b.onLoad({ filter: /.*/, namespace: 'vendor-zod' }, (a) => ({ contents: `module.exports = require('vendor-zod-file')()[${JSON.stringify(a.path)}];\n`, loader: 'js' }));
    b.onLoad({ filter: /.*/, namespace: 'vendor-zod-file' }, () => ({
      contents:
        `let zod;\nmodule.exports = () => {\n  if (zod) return zod;\n  const file = require('node:path').join(__dirname, 'vendor', 'zod.js');\n` +
        `  const load = globalThis[Symbol.for('better-edit-tools.load-vendor')];\n  return (zod = typeof load === 'function' ? load(file) : require(file));\n};\n`,
      loader: 'js',
    }));
  },
};
const VENDOR_ZOD_ENTRY = Object.entries(ZOD_ENTRIES).map(([from, key]) => `export * as ${key} from '${from}';`).join('\n');
// `import * as path from 'node:path'` is a copy of the module's properties as getters, made again in each of the ~50
// modules that say it (esbuild's __toESM): ~4 ms of every start. Our modules share one namespace per builtin.
const SHARED_BUILTINS = /^node:(path|fs|os|process|fs\/promises)$/;
const sharedBuiltins = {
  name: 'shared-builtins',
  setup(b) {
    b.onResolve({ filter: SHARED_BUILTINS }, (a) =>
      a.namespace !== 'shared-builtin' && /[\\/]src[\\/]/.test(a.importer) && !/[\\/]node_modules[\\/]/.test(a.importer) ? { path: a.path, namespace: 'shared-builtin' } : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'shared-builtin' }, (a) => ({
      contents: `export * from ${JSON.stringify(a.path)};\nexport { default } from ${JSON.stringify(a.path)};\n`,
      loader: 'js',
    }));
  },
};
common.plugins = [noZodLocales, treeSitterRequire, builtSchemas, lazyCrypto, lazyWorker, lazyAjv, lazyZodPlugin(false), sharedBuiltins];
const cliPlugins = [noZodLocales, treeSitterRequire, builtSchemas, lazyCrypto, lazyWorker, lazyAjv, lazyZodPlugin(true), vendorZod, sharedBuiltins];

const entries = [
  // The command is a small loader that runs the server bundle through V8's code cache (src/cli/bin.ts).
  { entryPoints: ['src/cli/bin.ts'], outfile: 'dist/cli.js', banner: { js: '#!/usr/bin/env node' } },
  { entryPoints: ['src/cli/main.ts'], outfile: 'dist/cli-main.js', plugins: cliPlugins },
  // every zod entry the CLI bundle imports, as namespaces of one file (vendorZod)
  { stdin: { contents: VENDOR_ZOD_ENTRY, resolveDir: process.cwd(), sourcefile: 'vendor-zod.js', loader: 'js' }, outfile: 'dist/vendor/zod.js', sourcemap: false },
  // The outline worker's script (src/core/context/node/outlinePool.ts starts it beside the bundle that runs).
  { entryPoints: ['src/core/context/node/outlineWorker.ts'], outfile: 'dist/outline-worker.js' },
  // The records worker's script (src/core/context/node/recordsPool.ts: a cold overview's second describer).
  { entryPoints: ['src/core/context/node/recordsWorker.ts'], outfile: 'dist/records-worker.js' },
];
if (process.argv[2] !== 'cli' && existsSync('src/vscode/extension.ts')) {
  // Same split as the CLI: VS Code loads a small loader (src/vscode/boot.ts), which runs the bundle through V8's code cache.
  entries.push(
    { entryPoints: ['src/vscode/boot.ts'], outfile: 'dist/extension.js', external: [...common.external, 'vscode'] },
    {
      entryPoints: ['src/vscode/extension.ts'], outfile: 'dist/extension-main.js', external: [...common.external, 'vscode'],
      banner: { js: 'var __BET_LOAD_START = performance.now();' }, // read by extension.ts: module evaluation time
    },
  );
}

// iconv-lite (CJK tables) and jschardet in files of their own, loaded on first use (src/core/text/node/vendor.ts)
import { createRequire } from 'node:module';
const requireHere = createRequire(import.meta.url);
for (const name of ['iconv-lite', 'jschardet']) entries.push({ entryPoints: [requireHere.resolve(name)], outfile: `dist/vendor/${name}.js`, sourcemap: false });
entries.push({ entryPoints: [requireHere.resolve('@modelcontextprotocol/sdk/validation/ajv')], outfile: 'dist/vendor/ajv-provider.js', sourcemap: false });

const [summary] = await Promise.all([copyAssets(), ...entries.map((e) => build({ ...common, ...e }))]);
if (process.argv.includes('--verbose')) console.log(summary);
