// The data files the bundles load at run time, copied next to them (dist/ holds no node_modules, neither does
// the .vsix nor the npm package):
//   dist/wasm/   tree-sitter's runtime and the grammars of GRAMMAR_FILES (loaded on the first structure parse)
//   dist/ranks/  js-tiktoken's o200k_base / cl100k_base rank tables laid out for loading without parsing
//                (<encoding>.bin, src/core/memory/rankTable.ts: what a bundle reads on its first count; the JSON
//                form they came from is not shipped, ~3.4 MB no bundle reads)
// Both stay out of the bundles so that loading the extension or starting the CLI never parses them.
// Idempotent and safe to run concurrently (tests build in parallel): each file is written to a temp name and
// renamed, and skipped when an identical one is already there.
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const require = createRequire(import.meta.url);
export const ENCODINGS = ['o200k_base', 'cl100k_base'];

function put(file, data) {
  if (existsSync(file) && readFileSync(file).equals(data)) return;
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, data);
  renameSync(tmp, file);
}

const RANK_TABLE_SOURCES = ['../src/core/memory/rankTable.ts', '../src/core/memory/node/tokenizer.ts'].map((f) => new URL(f, import.meta.url));

/** The prebuilt rank table (~1 s to lay out): made again only when it is older than its inputs. */
async function putRankTable(file, bpe, ranksModule) {
  const newest = Math.max(statSync(ranksModule).mtimeMs, ...RANK_TABLE_SOURCES.map((u) => statSync(u).mtimeMs));
  if (existsSync(file) && statSync(file).mtimeMs >= newest) return;
  const { tsImport } = await import('tsx/esm/api');
  const { parseRanks } = await tsImport('../src/core/memory/node/tokenizer.ts', import.meta.url);
  const { encodeRankTable } = await tsImport('../src/core/memory/rankTable.ts', import.meta.url);
  put(file, Buffer.from(encodeRankTable(parseRanks(bpe.bpe_ranks), bpe.pat_str)));
  const now = new Date();
  utimesSync(file, now, now); // put() leaves an identical file as it was: it is up to date now
}

/** Copies the runtime data into `dist` (default: ./dist); returns what it wrote, for the build log. */
export async function copyAssets(dist = path.resolve('dist')) {
  const { tsImport } = await import('tsx/esm/api');
  const { GRAMMAR_FILES, RUNTIME_FILE, packagedWasm } = await tsImport('../src/core/context/node/treeSitter.ts', import.meta.url);
  const wasm = path.join(dist, 'wasm');
  const ranks = path.join(dist, 'ranks');
  mkdirSync(wasm, { recursive: true });
  mkdirSync(ranks, { recursive: true });
  const files = new Map([RUNTIME_FILE, ...Object.values(GRAMMAR_FILES)].map((g) => [g.file, g]));
  for (const g of files.values()) put(path.join(wasm, g.file), readFileSync(packagedWasm(g)));
  // A grammar no longer listed (renamed, dropped) must not ride along into the .vsix and the npm package.
  for (const f of readdirSync(wasm)) if (f.endsWith('.wasm') && !files.has(f)) rmSync(path.join(wasm, f), { force: true });
  for (const enc of ENCODINGS) {
    const mod = require(`js-tiktoken/ranks/${enc}`);
    const bpe = 'default' in mod ? mod.default : mod;
    rmSync(path.join(ranks, `${enc}.json`), { force: true }); // shipped by earlier builds
    await putRankTable(path.join(ranks, `${enc}.bin`), bpe, require.resolve(`js-tiktoken/ranks/${enc}`));
  }
  return `dist/wasm: runtime + ${files.size - 1} grammars; dist/ranks: ${ENCODINGS.join(', ')}`;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) console.log(await copyAssets());
