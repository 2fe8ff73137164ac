/**
 * Tasks as data (bench/tasks/<repo>.json) and the repositories they were verified on.
 *
 * Where each repository is: `BENCH_REPOS=httpx=DIR,hono=DIR,...`, else `.bench/repos/<repo>` (git-ignored).
 * Its commit is checked at run time (`git rev-parse HEAD` when the folder is a git checkout) against the commit
 * the tasks were verified on; a difference is warned about, not fatal (the answers may then be wrong).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

export interface Task {
  id: string;
  /** what a user would type */
  task: string;
  /** the agents' search words: queryWords(task), stored so a reader sees them; checked on load */
  query: string[];
  answer: { file: string; function: string };
  /** `old` occurs exactly once in the answer file, inside the function; the edit replaces it with `new` */
  edit: { old: string; new: string };
  /** set on load when the task cannot be run as written (the reason) */
  skip?: string;
}

export interface RepoTasks {
  repo: string;
  language: 'python' | 'typescript' | 'go' | 'java' | 'ruby';
  /** 'in-sample' (bench/tasks/*.json) or the held-out set's name (bench/tasks/heldout/*.json: `set`) */
  set: string;
  url: string;
  commit: string;
  tasks: Task[];
  /** resolved at load time */
  dir: string;
  /** the commit found in `dir`, if it could be read */
  foundCommit?: string;
}

/** Words too common to search for; the rule is fixed for every task and agent (no per-task tuning). */
const STOP = new Set(
  ('a an the and or of to in on for with without when whose that this these those is are be been it its as at by from into ' +
    'than then there their them they we you your our not no nor but if else so such too very can could should would will shall ' +
    'may might must do does done make makes made use used using also any all each every some other another only own same just ' +
    'more most over under before after above below while about again once here where which who what how why instead like up ' +
    'down out off one two new').split(' '),
);

/** The one rule that turns a task into search words: lower-case words of 3+ characters, stop words dropped, first occurrence order. */
export function queryWords(task: string): string[] {
  const out: string[] = [];
  for (const w of task.toLowerCase().split(/[^a-z0-9]+/)) if (w.length >= 3 && !STOP.has(w) && !out.includes(w)) out.push(w);
  return out;
}

/** The languages' source extensions, for the name rule and the structure/full figure. */
export const SOURCE_EXT: Record<RepoTasks['language'], RegExp> = {
  python: /\.py$/,
  typescript: /\.tsx?$/,
  go: /\.go$/,
  java: /\.java$/,
  ruby: /\.rb$/,
};

/** Tests, docs (`docs/`, not Go's `doc` packages), examples, benchmarks, hidden folders: not where a behaviour change goes (same rule for every agent). */
export function isTestOrDoc(rel: string): boolean {
  return (
    /(^|\/)(tests?|__tests__|testdata|docs|examples?|benchmarks?|perf-measures|runtime-tests|fixtures|site|scripts|spec)(\/|$)/.test(rel) ||
    /(^|\/)\./.test(rel) ||
    /(_test\.go|\.test\.tsx?|\.spec\.tsx?|(^|\/)test_[^/]*\.py|_test\.py|conftest\.py|_(test|spec)\.rb|Tests?\.java)$/.test(rel)
  );
}

/** Where a repository's checkout is: BENCH_REPOS=name=DIR,... or `<cacheRoot>/<name>`. */
export function repoLocator(env: string | undefined, cacheRoot: string): (name: string) => string {
  const dirs = new Map<string, string>();
  for (const part of (env ?? '').split(',').filter(Boolean)) {
    const eq = part.indexOf('=');
    if (eq < 1) throw new Error(`BENCH_REPOS: expected name=DIR[,name=DIR...], got "${part}"`);
    dirs.set(part.slice(0, eq), resolve(part.slice(eq + 1)));
  }
  return (name) => dirs.get(name) ?? join(cacheRoot, name);
}

function headCommit(dir: string): string | undefined {
  try {
    return execFileSync('git', ['-C', dir, 'rev-parse', 'HEAD'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return undefined;
  }
}

export function loadTasks(taskDir: string, dirOf: (name: string) => string, only?: string[]): { repos: RepoTasks[]; warnings: string[] } {
  const warnings: string[] = [];
  const repos: RepoTasks[] = [];
  for (const f of readdirSync(taskDir).filter((n) => n.endsWith('.json')).sort()) {
    const data = JSON.parse(readFileSync(join(taskDir, f), 'utf8')) as Omit<RepoTasks, 'dir' | 'set'> & { set?: string };
    if (only?.length && !only.includes(data.repo)) continue;
    const dir = dirOf(data.repo);
    if (!existsSync(dir)) {
      throw new Error(
        `${data.repo}: no checkout at ${dir}. Clone it: git clone ${data.url} ${dir} && git -C ${dir} checkout ${data.commit}` +
          ` (or point BENCH_REPOS=${data.repo}=DIR at one)`,
      );
    }
    const foundCommit = headCommit(dir);
    if (!foundCommit) warnings.push(`${data.repo}: ${dir} is not a git checkout; cannot check it is commit ${data.commit}`);
    else if (foundCommit !== data.commit) warnings.push(`${data.repo}: ${dir} is at ${foundCommit}, tasks were verified on ${data.commit}`);
    for (const t of data.tasks) {
      const words = queryWords(t.task).join(' ');
      if (t.query.join(' ') !== words) throw new Error(`${t.id}: query [${t.query.join(' ')}] is not queryWords(task) [${words}]`);
      const path = join(dir, t.answer.file);
      const text = existsSync(path) ? readFileSync(path, 'utf8') : '';
      const n = text.split(t.edit.old).length - 1;
      const at = text.indexOf(t.edit.old);
      const after = text[at + t.edit.old.length];
      const wholeLines = at >= 0 && (at === 0 || text[at - 1] === '\n') && (t.edit.old.endsWith('\n') || after === undefined || after === '\n');
      if (n !== 1) t.skip = `edit.old occurs ${n} times in ${t.answer.file} (expected once)`;
      else if (!wholeLines) t.skip = 'edit.old must be whole lines (the range agent replaces lines)';
      if (t.skip) warnings.push(`${t.id}: ${t.skip}; the task is skipped`);
    }
    repos.push({ ...data, set: data.set ?? 'in-sample', dir, foundCommit });
  }
  return { repos, warnings };
}
