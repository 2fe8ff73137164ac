/**
 * Per-repository figures that are not a task replay, measured on fresh copies through the real servers:
 *  - our full read of each answer file (every page) vs server-filesystem's read_text_file of the same file;
 *  - median structure/full over the non-test source files of more than 200 lines (every page of each);
 *  - what a "full" page that hit the page limit costs as the model receives it.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { pageContent, pageLimited } from './adapter';
import { callWhole, readFull } from './agents';
import { outlineNext } from './adapter';
import { COPILOT } from './hosts';
import { countTokens, modelView } from './mcp';
import { openWorkspace, type ServerPaths } from './run';
import { isTestOrDoc, SOURCE_EXT, type RepoTasks } from './tasks';

export interface FullVsFs {
  file: string;
  ours: number;
  fs: number;
  pages: number;
}

export interface RepoFigures {
  repo: string;
  codeFiles: number;
  codeLines: number;
  /** every source file of the language, tests included: the repository's size */
  allFiles: number;
  allLines: number;
  fullVsFs: FullVsFs[];
  /** structure tokens / full tokens per non-test source file > 200 lines */
  structureRatios: number[];
  /** model-view tokens of full pages that stopped at the page limit, and of their numbered-lines content alone */
  limitedPages: { file: string; view: number; content: number }[];
}

function sourceFiles(root: string, lang: RepoTasks['language']): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      if (e.name === '.git' || e.name === 'node_modules') continue;
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile() && SOURCE_EXT[lang].test(e.name)) out.push(relative(root, p).split('\\').join('/'));
    }
  };
  walk(root);
  return out.sort();
}

export const median = (xs: number[]): number => {
  if (!xs.length) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

export async function repoFigures(repo: RepoTasks, paths: ServerPaths): Promise<RepoFigures> {
  const ours = await openWorkspace(repo, 'ours', paths, COPILOT);
  const fs = await openWorkspace(repo, 'fs', paths);
  try {
    const all = sourceFiles(ours.root, repo.language);
    const files = all.filter((f) => !isTestOrDoc(f));
    const lineCount = (f: string) => readFileSync(join(ours.root, f), 'utf8').split('\n').length;
    const fig: RepoFigures = {
      repo: repo.repo,
      codeFiles: files.length,
      codeLines: 0,
      allFiles: all.length,
      allLines: all.reduce((n, f) => n + lineCount(f), 0),
      fullVsFs: [],
      structureRatios: [],
      limitedPages: [],
    };
    const fullCost = new Map<string, { tokens: number; pages: number }>();
    const full = async (file: string) => {
      let cost = fullCost.get(file);
      if (!cost) {
        const { pages } = await readFull(ours.server, file, 'figure');
        cost = { tokens: pages.reduce((n, p) => n + countTokens(modelView(p)), 0), pages: pages.length };
        for (const p of pages) if (pageLimited(p)) fig.limitedPages.push({ file, view: countTokens(modelView(p)), content: countTokens(pageContent(p)) });
        fullCost.set(file, cost);
      }
      return cost;
    };
    for (const file of files) {
      const lines = lineCount(file);
      fig.codeLines += lines;
      if (lines <= 200) continue;
      // the whole outline (every page of it) against the whole file (every page)
      let outline = 0;
      for (let args: Record<string, unknown> | undefined = { file, mode: 'structure' }, i = 0; args && i < 100; i++) {
        const result = await callWhole(ours.server, 'be-read', args, 'figure');
        outline += countTokens(modelView(result));
        args = outlineNext(result);
      }
      fig.structureRatios.push(outline / (await full(file)).tokens);
    }
    for (const file of [...new Set(repo.tasks.filter((t) => !t.skip).map((t) => t.answer.file))]) {
      const { view } = await fs.server.call('read_text_file', { path: join(fs.root, file) }, 'figure');
      const cost = await full(file);
      fig.fullVsFs.push({ file, ours: cost.tokens, fs: countTokens(view), pages: cost.pages });
    }
    return fig;
  } finally {
    await ours.close();
    await fs.close();
  }
}
