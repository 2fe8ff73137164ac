/**
 * The scripted agents. Each follows one fixed rule for every task (no per-task tuning) and makes real calls
 * on a real server; the edit is checked on disk afterwards by the runner.
 *  (a) tree:   server-filesystem directory_tree, then whole-file reads of the best-named files
 *  (b) list:   server-filesystem list_directory (best-named folder first), then the same reads
 *  (c) oracle: server-filesystem, reads only the answer file whole
 *  (d) ours:   be-overview (query) → be-read structure of the key files → be-read the function's range → be-replace
 *  (e) search: server-filesystem search_files (every query word in one glob), then read_multiple_files
 *  (f) built-in tools (no MCP server): Grep → a 120-line cat -n window around the best hit → exact-string Edit
 * Every agent stops reading when it has read the answer file (it "recognises" it); after MAX_READS misses it
 * reads the answer file anyway (as if found by other means), so every agent pays for a miss and still edits.
 */
import { join, relative, sep } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Server } from './mcp';
import { nextPage, outlineAll, outlineNext, outlineRange, overviewFiles, readLines, replyPageBody, replyPageNext, viewedCodeId } from './adapter';
import { isTestOrDoc, type RepoTasks, type Task } from './tasks';
import { SOURCE_EXT } from './tasks';

export const MAX_READS = 5;
export const MAX_LISTINGS = 12;

export interface AgentRun {
  /** 1-based position at which the agent reached the answer file among what it read; undefined = fell back */
  foundAt?: number;
  notes: string[];
  /** (d) only: 1-based rank of the answer file in the overview's key files, tests included; undefined = absent */
  overviewRank?: number;
  /** (d) only: the viewed_code_id handed back by the range read */
  viewedCodeId?: string;
}

export interface AgentContext {
  server: Server;
  root: string;
  repo: RepoTasks;
  task: Task;
}

export type Agent = (ctx: AgentContext) => Promise<AgentRun>;

const textOf = (r: CallToolResult) => (r.content ?? []).map((p) => (p.type === 'text' ? p.text : '')).join('\n');

function check(r: CallToolResult, what: string): CallToolResult {
  if (r.isError) throw new Error(`${what} failed: ${textOf(r).slice(0, 400)}`);
  return r;
}

/** Words of a path: folders, file name parts, camelCase parts; lower case. */
function pathWords(rel: string): string[] {
  return rel
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
}

const wordMatches = (q: string, p: string) => q === p || (Math.min(q.length, p.length) >= 4 && (p.startsWith(q) || q.startsWith(p)));

/** How well a path is named for the query: the number of query words that match one of its words. */
export function nameScore(rel: string, query: string[]): number {
  const words = pathWords(rel);
  return query.filter((q) => words.some((p) => wordMatches(q, p))).length;
}

/** The best-named source files: score, then shallower, then alphabetical. Tests and docs are never candidates. */
export function bestNamed(files: string[], query: string[], lang: RepoTasks['language']): string[] {
  return files
    .filter((f) => SOURCE_EXT[lang].test(f) && !isTestOrDoc(f))
    .map((f) => ({ f, s: nameScore(f, query), d: f.split('/').length }))
    .sort((a, b) => b.s - a.s || a.d - b.d || (a.f < b.f ? -1 : a.f > b.f ? 1 : 0))
    .map((x) => x.f);
}

/** Read whole files in order until the answer file is read; then edit it with edit_file. */
async function readWholeAndEdit(ctx: AgentContext, ranked: string[], labelPrefix: string): Promise<AgentRun> {
  const { server, root, task } = ctx;
  const run: AgentRun = { notes: [] };
  for (const [i, rel] of ranked.slice(0, MAX_READS).entries()) {
    const other = rel !== task.answer.file;
    check((await server.call('read_text_file', { path: join(root, rel) }, `${labelPrefix}read ${other ? 'other' : 'answer'}`)).result, `read ${rel}`);
    if (!other) {
      run.foundAt = i + 1;
      break;
    }
  }
  if (run.foundAt === undefined) {
    run.notes.push(`answer not in the first ${MAX_READS} best-named files`);
    check((await server.call('read_text_file', { path: join(root, task.answer.file) }, 'read answer (fallback)')).result, 'read answer');
  }
  await editFile(ctx);
  return run;
}

async function editFile({ server, root, task }: AgentContext): Promise<void> {
  const args = { path: join(root, task.answer.file), edits: [{ oldText: task.edit.old, newText: task.edit.new }] };
  check((await server.call('edit_file', args, 'edit')).result, 'edit_file');
}

interface TreeNode {
  name: string;
  type: 'file' | 'directory';
  children?: TreeNode[];
}

function treeFiles(nodes: TreeNode[], base = ''): string[] {
  return nodes.flatMap((n) =>
    n.type === 'directory' ? treeFiles(n.children ?? [], `${base}${n.name}/`) : [`${base}${n.name}`],
  );
}

export const treeAgent: Agent = async (ctx) => {
  const { result } = await ctx.server.call('directory_tree', { path: ctx.root }, 'directory_tree');
  const files = treeFiles(JSON.parse(textOf(check(result, 'directory_tree'))) as TreeNode[]);
  return readWholeAndEdit(ctx, bestNamed(files, ctx.task.query, ctx.repo.language), '');
};

/**
 * Best-first listing: list the root, then always the best-named unlisted folder (score, then shallower, then
 * alphabetical; tests/docs/hidden folders skipped) until the best remaining folder scores 0 and some file scores
 * above 0, or MAX_LISTINGS listings were made.
 */
export const listAgent: Agent = async (ctx) => {
  const { server, root, task, repo } = ctx;
  const files: string[] = [];
  const frontier: string[] = [''];
  let listings = 0;
  const dirScore = (d: string) => nameScore(d, task.query);
  while (frontier.length && listings < MAX_LISTINGS) {
    frontier.sort((a, b) => dirScore(b) - dirScore(a) || a.split('/').length - b.split('/').length || (a < b ? -1 : 1));
    const bestFile = bestNamed(files, task.query, repo.language)[0];
    if (listings > 0 && dirScore(frontier[0]!) === 0 && bestFile && nameScore(bestFile, task.query) > 0) break;
    const dir = frontier.shift()!;
    const { result } = await server.call('list_directory', { path: join(root, dir) }, 'list_directory');
    listings++;
    for (const line of textOf(check(result, 'list_directory')).split('\n')) {
      const m = /^\[(DIR|FILE)\] (.+)$/.exec(line);
      if (!m) continue;
      const rel = `${dir}${m[2]}`;
      if (m[1] === 'FILE') files.push(rel);
      else if (!isTestOrDoc(`${rel}/`)) frontier.push(`${rel}/`);
    }
  }
  const run = await readWholeAndEdit(ctx, bestNamed(files, task.query, repo.language), '');
  run.notes.push(`${listings} listings`);
  return run;
};

export const oracleAgent: Agent = async (ctx) => {
  check((await ctx.server.call('read_text_file', { path: join(ctx.root, ctx.task.answer.file) }, 'read answer')).result, 'read');
  await editFile(ctx);
  return { foundAt: 1, notes: [] };
};

/**
 * A call to our server, whole: a reply the server paged as a last resort (over the host's limit even at its
 * smallest page) is followed through its `reply_page` calls, each one counted, and handed back as one text.
 */
export async function callWhole(server: Server, tool: string, args: Record<string, unknown>, label: string): Promise<CallToolResult> {
  let { result } = await server.call(tool, args, label);
  let next = replyPageNext(result);
  if (!next) return result;
  const parts = [replyPageBody(result)];
  for (let i = 0; next && i < 100; i++) {
    ({ result } = await server.call(tool, next, `${label} (reply page)`));
    parts.push(replyPageBody(check(result, `${tool} reply page`)));
    next = replyPageNext(result);
  }
  return { content: [{ type: 'text', text: parts.join('\n') }], ...(result.isError ? { isError: true } : {}) };
}

/**
 * The range of `fn` in the answer file's outline: this reply, then (not found) the next page of a paged outline or
 * the whole of one narrowed to a query, as a model that did not find the name would ask for them.
 */
async function findInOutline(server: Server, first: CallToolResult, fn: string): Promise<{ start: number; end: number } | undefined> {
  let result = first;
  for (let i = 0; i < 50; i++) {
    const range = outlineRange(result, fn);
    if (range) return range;
    const more = outlineNext(result) ?? outlineAll(result);
    if (!more) return undefined;
    result = check(await callWhole(server, 'be-read', more, 'structure answer (more)'), 'structure (more)');
  }
  return undefined;
}

/** Our tools, as a model would chain them. Rank of the answer in the raw overview list is reported separately. */
export const oursAgent: Agent = async (ctx) => {
  const { server, task, repo } = ctx;
  const run: AgentRun = { notes: [] };
  const ov = await callWhole(server, 'be-overview', { query: task.query.join(' ') }, 'overview');
  const keyFiles = overviewFiles(check(ov, 'be-overview'));
  // A reply shape the adapter no longer understands must fail loudly, not read as "answer not found".
  if (!keyFiles.length) throw new Error('adapter: no key files parsed from the be-overview reply (reply shape changed? see adapter.ts)');
  const rank = keyFiles.indexOf(task.answer.file);
  if (rank >= 0) run.overviewRank = rank + 1;
  const candidates = keyFiles.filter((f) => SOURCE_EXT[repo.language].test(f) && !isTestOrDoc(f));
  let range: { start: number; end: number } | undefined;
  for (const [i, file] of candidates.slice(0, MAX_READS).entries()) {
    const other = file !== task.answer.file;
    const result = await callWhole(server, 'be-read', { file, mode: 'structure' }, `structure ${other ? 'other' : 'answer'}`);
    check(result, `structure ${file}`);
    if (!other) {
      run.foundAt = i + 1;
      range = await findInOutline(server, result, task.answer.function);
      break;
    }
  }
  if (run.foundAt === undefined) {
    run.notes.push(`answer not in the overview's first ${MAX_READS} source files`);
    const result = await callWhole(server, 'be-read', { file: task.answer.file, mode: 'structure' }, 'structure answer (fallback)');
    range = await findInOutline(server, check(result, 'structure'), task.answer.function);
  }
  let lines: Map<number, string>;
  let vid: string | undefined;
  if (range) {
    let result = await callWhole(server, 'be-read', { file: `${task.answer.file}:${range.start}-${range.end}` }, 'range');
    lines = readLines(check(result, 'range read'));
    vid = viewedCodeId(result);
    // a function longer than the host's page: its next pages until the lines to change are read
    for (let next = nextPage(result); next && !locate(lines, task.edit.old); next = nextPage(result)) {
      result = check(await callWhole(server, 'be-read', { file: next.file, mode: 'full' }, 'range (next page)'), 'range read');
      lines = readLines(result);
      vid = viewedCodeId(result);
    }
    if (!lines.size || !vid) throw new Error('adapter: no numbered lines or viewed_code_id parsed from the be-read range reply (see adapter.ts)');
    run.viewedCodeId = vid;
  } else {
    run.notes.push(`${task.answer.function} not in the outline: read the file in full`);
    ({ lines, vid } = await readFull(server, task.answer.file, 'full answer (fallback)'));
  }
  const at = locate(lines, task.edit.old);
  if (!at) throw new Error(`${task.id}: the lines to change were not in what the agent read`);
  const newText = task.edit.old.endsWith('\n') ? task.edit.new.replace(/\n$/, '') : task.edit.new;
  const args: Record<string, unknown> = { file: `${task.answer.file}:${at.start}-${at.end}`, content: newText };
  if (vid) args.viewed_code_id = vid;
  check(await callWhole(server, 'be-replace', args, 'edit'), 'be-replace');
  return run;
};

/** be-read mode full, following next-page hints; the lines and the last page's viewed_code_id. */
export async function readFull(server: Server, file: string, label: string): Promise<{ lines: Map<number, string>; vid?: string; pages: CallToolResult[] }> {
  const lines = new Map<number, string>();
  const pages: CallToolResult[] = [];
  let args: Record<string, unknown> | undefined = { file, mode: 'full' };
  let vid: string | undefined;
  for (let page = 0; args && page < 100; page++) {
    const result = await callWhole(server, 'be-read', args, label);
    check(result, `full read ${file}`);
    pages.push(result);
    for (const [n, t] of readLines(result)) lines.set(n, t);
    vid = viewedCodeId(result) ?? vid;
    const next = nextPage(result);
    args = next ? { file: next.file, mode: 'full', ...(next.column ? { column: next.column } : {}) } : undefined;
  }
  return { lines, vid, pages };
}

/** The 1-based line span of `old` (whole lines) among the lines read. */
function locate(lines: Map<number, string>, old: string): { start: number; end: number } | undefined {
  const want = old.replace(/\n$/, '').split('\n');
  for (const n of [...lines.keys()].sort((a, b) => a - b)) {
    if (want.every((w, k) => lines.get(n + k) === w)) return { start: n, end: n + want.length - 1 };
  }
  return undefined;
}

/** File extension searched by (e) and (f), per language. */
const EXT: Record<RepoTasks['language'], string> = { python: '.py', typescript: '.ts', go: '.go', java: '.java', ruby: '.rb' };
/** Files read per read_multiple_files call by (e): the first batch, then the rest of MAX_READS. */
export const FIRST_BATCH = 3;

/**
 * (e) server-filesystem at its best for finding by name: one `search_files` with every query word (as written and
 * capitalised, for camelCase names) in a brace glob over the language's files, the hits ranked by the same name
 * rule as (a)/(b), then `read_multiple_files` of the first FIRST_BATCH, then of the rest up to MAX_READS, then
 * edit_file.
 */
export const searchAgent: Agent = async (ctx) => {
  const { server, root, task, repo } = ctx;
  const run: AgentRun = { notes: [] };
  const words = task.query.flatMap((w) => [w, w[0]!.toUpperCase() + w.slice(1)]);
  const pattern = `**/*{${words.join(',')}}*${EXT[repo.language]}`;
  const { result } = await server.call('search_files', { path: root, pattern, excludePatterns: ['**/.git/**', '**/node_modules/**'] }, 'search_files');
  const hits = textOf(check(result, 'search_files'))
    .split('\n')
    .filter((l) => l.startsWith(root))
    .map((l) => relative(root, l).split(sep).join('/'));
  const ranked = bestNamed(hits, task.query, repo.language).slice(0, MAX_READS);
  for (const batch of [ranked.slice(0, FIRST_BATCH), ranked.slice(FIRST_BATCH)]) {
    if (!batch.length) continue;
    const has = batch.indexOf(task.answer.file);
    const label = has >= 0 ? 'read_multiple answer' : 'read_multiple other';
    check((await server.call('read_multiple_files', { paths: batch.map((f) => join(root, f)) }, label)).result, 'read_multiple_files');
    if (has >= 0) {
      run.foundAt = ranked.indexOf(task.answer.file) + 1;
      break;
    }
  }
  if (run.foundAt === undefined) {
    run.notes.push(`answer not in the first ${MAX_READS} search hits (${hits.length} hits)`);
    check((await server.call('read_text_file', { path: join(root, task.answer.file) }, 'read answer (fallback)')).result, 'read answer');
  }
  await editFile(ctx);
  return run;
};

/** Lines of a window read by the built-in agent (cat -n: number, tab, text). */
function catLines(r: CallToolResult, into: Map<number, string>): void {
  for (const l of textOf(r).split('\n')) {
    const m = /^ *(\d+)\t(.*)$/.exec(l);
    if (m) into.set(Number(m[1]), m[2]!);
  }
}

/** Lines shown around a hit by (f): 120, the hit in the middle (Claude Code's Read offset/limit). */
export const WINDOW = 120;
const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * (f) built-in tools (bench/context/builtin.ts): one Grep in count mode of the query words (alternation,
 * case-insensitive, the language's files), files ranked by matches (then path; tests/docs never candidates); per
 * file in that order, a Grep of the same words in the file and a WINDOW-line Read around its best line (the most
 * distinct query words) until the answer file; in the answer file, if the lines to change were not in the window, a Grep for the function's definition
 * (the name, as (d) uses it) and windows from there; then an exact-string Edit.
 */
export const builtinAgent: Agent = async (ctx) => {
  const { server, task, repo } = ctx;
  const run: AgentRun = { notes: [] };
  const pattern = task.query.map(escapeRe).join('|');
  const { result } = await server.call('Grep', { pattern, glob: `**/*${EXT[repo.language]}`, output_mode: 'count', case_insensitive: true }, 'grep count');
  const ranked = textOf(check(result, 'Grep'))
    .split('\n')
    .map((l) => /^(.+):(\d+)$/.exec(l))
    .filter((m): m is RegExpExecArray => m !== null && !isTestOrDoc(m[1]!))
    .map((m) => ({ file: m[1]!, n: Number(m[2]) }))
    .sort((x, y) => y.n - x.n || (x.file < y.file ? -1 : 1));
  const lines = new Map<number, string>();
  for (const [i, { file }] of ranked.slice(0, MAX_READS).entries()) {
    // The file's best line: the matching line with the most distinct query words (the first of them).
    const { result: g } = await server.call('Grep', { pattern, path: file, case_insensitive: true }, 'grep in file');
    let best = { line: 1, n: -1 };
    for (const l of textOf(check(g, 'Grep')).split('\n')) {
      const m = /^.+?:(\d+):(.*)$/.exec(l);
      if (!m) continue;
      const n = task.query.filter((w) => m[2]!.toLowerCase().includes(w)).length;
      if (n > best.n) best = { line: Number(m[1]), n };
    }
    const answer = file === task.answer.file;
    const { result: r } = await server.call('Read', { file_path: file, offset: Math.max(1, best.line - WINDOW / 2), limit: WINDOW }, answer ? 'read answer' : 'read other');
    check(r, 'Read');
    if (answer) {
      catLines(r, lines);
      run.foundAt = i + 1;
      break;
    }
  }
  if (run.foundAt === undefined) run.notes.push(`answer not in the first ${MAX_READS} grep files (${ranked.length} files)`);
  if (!locate(lines, task.edit.old)) {
    // Where the function is defined: its name as a word on a line (the first such line), then windows from there.
    const { result: g } = await server.call('Grep', { pattern: `\\b${escapeRe(task.answer.function)}\\b`, path: task.answer.file }, 'grep function');
    const first = /^.+?:(\d+):/m.exec(textOf(check(g, 'Grep')))?.[1];
    let at = first ? Math.max(1, Number(first) - 10) : 1;
    for (let k = 0; k < 20 && !locate(lines, task.edit.old); k++, at += WINDOW) {
      const { result: r } = await server.call('Read', { file_path: task.answer.file, offset: at, limit: WINDOW }, run.foundAt === undefined ? 'read answer (fallback)' : 'read answer (more)');
      catLines(check(r, 'Read'), lines);
    }
  }
  if (!locate(lines, task.edit.old)) throw new Error(`${task.id}: the lines to change were not in what the agent read`);
  check((await server.call('Edit', { file_path: task.answer.file, old_string: task.edit.old, new_string: task.edit.new }, 'edit')).result, 'Edit');
  return run;
};

export const AGENTS: { key: string; label: string; server: 'fs' | 'ours' | 'builtin'; run: Agent }[] = [
  { key: 'a', label: '(a) fs directory_tree + whole files', server: 'fs', run: treeAgent },
  { key: 'b', label: '(b) fs list_directory + whole files', server: 'fs', run: listAgent },
  { key: 'c', label: '(c) oracle: answer file whole', server: 'fs', run: oracleAgent },
  { key: 'e', label: '(e) fs search_files + read_multiple_files', server: 'fs', run: searchAgent },
  { key: 'f', label: '(f) built-in: grep → 120-line window → Edit', server: 'builtin', run: builtinAgent },
  { key: 'd', label: '(d) ours: overview→structure→range→edit', server: 'ours', run: oursAgent },
];
