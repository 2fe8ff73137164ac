/**
 * The outline worker's script (a worker thread of node/outlinePool.ts): it loads the tree-sitter runtime and each
 * grammar once, and answers `{ id, text, languageId }` with the outline treeOutline.ts extracts, so a 4 MB file's
 * parse (seconds) never holds the server's event loop. Bundled as `outline-worker.js` beside the server bundle.
 *
 *  - The answer goes out before the tree is freed (that takes ~40 ms for a 4 MB file).
 *  - The last outlines are kept with their exact texts (OutlineCache): the same file asked again (be-read structure,
 *    then its function ranges for an edit) is not parsed again.
 *  - The runtime and the grammars load from the modules an earlier worker compiled (the pool keeps them), and
 *    the modules compiled here go to the pool.
 *  - The last large text's tree is kept (one: a tree holds tens of MB of the worker's memory), so that the same
 *    file after an edit re-parses only what changed (treeOutline.ts parseOutline), with its outline: a large C,
 *    Go, Rust or Java file is parsed with its function bodies blanked, a large JavaScript, TypeScript or Python file
 *    without its data literals' tails (treeOutline.ts outlineText), and an edit there that kept every line's length
 *    (the blanked bodies) or the line breaks (the others) leaves the parsed text as it was.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { Tree } from '@vscode/tree-sitter-wasm';
import { grammarsBeside } from './treeSitter';
import { TreeSitterParsers } from './treeSitter';
import { outlineInputs, parseOutline, type Base, type Extracted } from '../treeOutline';
import { textEdit } from '../textEdit';
import { OutlineCache } from '../outlineCache';

export interface OutlineJob {
  id: number;
  text: string;
  languageId: string;
}

export type OutlineAnswer = { id: number; outline: Extracted | undefined } | { id: number; error: string };
/** A .wasm module this worker compiled, for the pool to give the workers after it (treeSitter.ts CompiledModules). */
export interface CompiledNote {
  compiled: string;
  module: WebAssembly.Module;
}

export interface OutlineWorkerData {
  grammarsDir: string;
  /** Modules earlier workers compiled, by file name. */
  compiled: [string, WebAssembly.Module][];
}

const data = workerData as OutlineWorkerData;
const known = new Map(data.compiled);
const parsers = new TreeSitterParsers(grammarsBeside(data.grammarsDir), {
  get: (file) => known.get(file),
  add: (file, module) => {
    known.set(file, module);
    parentPort!.postMessage({ compiled: file, module } satisfies CompiledNote);
  },
});
const cache = new OutlineCache();
/** Texts from this size on keep their tree for the next parse (smaller ones parse in milliseconds). */
const KEEP_TREE_CHARS = 64 * 1024;
let kept: { text: string; languageId: string; tree: Tree; outline: Extracted | undefined } | undefined;

async function answer(job: OutlineJob): Promise<void> {
  const hit = cache.get(job.text, job.languageId);
  if (hit) {
    parentPort!.postMessage({ id: job.id, outline: hit.outline } satisfies OutlineAnswer);
    return;
  }
  // what is parsed (a large C text's bodies blanked, ...); the kept tree is of the text parsed before
  const { text, whole } = outlineInputs(job.text, job.languageId);
  if (kept?.languageId === job.languageId && kept.text === text) {
    // an edit inside what outlineText takes out that kept its line breaks: the parsed text, so the outline, is the same
    parentPort!.postMessage({ id: job.id, outline: kept.outline } satisfies OutlineAnswer);
    cache.set(job.text, job.languageId, kept.outline);
    return;
  }
  const edit = kept?.languageId === job.languageId && text.length >= KEEP_TREE_CHARS ? textEdit(kept.text, text) : undefined;
  const base: Base | undefined = edit && kept ? { tree: kept.tree, edit } : undefined;
  // A base is edited by the parse for this text (of no use for another): freed after the answer. A tree this text
  // would replace goes before the parse, which then reuses its memory (else it touches fresh pages: +10% CPU).
  if (base) kept = undefined;
  else if (text.length >= KEEP_TREE_CHARS) dropKept();
  const parsed = await parseOutline(text, job.languageId, parsers, base, whole).catch((err: unknown) => {
    base?.tree.delete();
    throw err;
  });
  parentPort!.postMessage({ id: job.id, outline: parsed?.outline } satisfies OutlineAnswer);
  base?.tree.delete();
  const tree = parsed && text.length >= KEEP_TREE_CHARS ? parsed.keep() : undefined;
  if (tree) {
    dropKept();
    kept = { text, languageId: job.languageId, tree, outline: parsed!.outline };
  }
  parsed?.free();
  if (parsed) cache.set(job.text, job.languageId, parsed.outline);
}

function dropKept(): void {
  kept?.tree.delete();
  kept = undefined;
}

parentPort!.on('message', (job: OutlineJob) => {
  answer(job).catch((err: unknown) => parentPort!.postMessage({ id: job.id, error: err instanceof Error ? err.message : String(err) } satisfies OutlineAnswer));
});

// The runtime loads while the first job's text is still on its way (it is needed for any grammar).
parsers.runtimeReady().catch(() => undefined); // a failed load is retried, and reported, by the first job
