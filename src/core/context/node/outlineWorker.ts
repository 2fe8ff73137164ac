/**
 * The outline worker's script (a worker thread of node/outlinePool.ts): it loads the tree-sitter runtime and each
 * grammar once, and answers `{ id, text, languageId }` with the outline treeOutline.ts extracts, so a 4 MB file's
 * parse (seconds) never holds the server's event loop. Bundled as `outline-worker.js` beside the server bundle.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { grammarsBeside } from './treeSitter';
import { TreeSitterParsers } from './treeSitter';
import { treeSitterOutline } from '../treeOutline';

export interface OutlineJob {
  id: number;
  text: string;
  languageId: string;
}

export type OutlineAnswer = { id: number; outline: Awaited<ReturnType<typeof treeSitterOutline>> } | { id: number; error: string };

const parsers = new TreeSitterParsers(grammarsBeside((workerData as { grammarsDir: string }).grammarsDir));
parentPort!.on('message', (job: OutlineJob) => {
  treeSitterOutline(job.text, job.languageId, parsers).then(
    (outline) => parentPort!.postMessage({ id: job.id, outline } satisfies OutlineAnswer),
    (err: unknown) => parentPort!.postMessage({ id: job.id, error: err instanceof Error ? err.message : String(err) } satisfies OutlineAnswer),
  );
});
