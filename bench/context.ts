/**
 * Token-economy benchmark (npm run bench:context): a scripted task replay on public repositories.
 *
 * Four agents, one fixed rule each (bench/context/agents.ts), run every task of bench/tasks/*.json through real
 * MCP servers over stdio (@modelcontextprotocol/server-filesystem and our dist/cli.js), each on its own temporary
 * copy of the repository. Cost is counted on the model view of every reply (o200k_base) plus the tool catalog
 * once per call; every edit is checked on disk. See bench/README.md for setup and the meaning of each figure.
 *
 *   npm run bench:context [-- --repo httpx] [-- --set all|in-sample|held-out] [-- --verbose (every call)]
 *   npm run bench:context -- --scale   (only the figures at scale, bench/context/scale.ts; with --repo after the replay)
 *   BENCH_REPOS=httpx=DIR,hono=DIR,cobra=DIR npm run bench:context
 */
import { existsSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { performance } from 'node:perf_hooks';
import { repoFigures, type RepoFigures } from './context/figures';
import { AGENTS } from './context/agents';
import { printReport, printSideBySide, table, type Catalogs } from './context/report';
import { runRepo, taskTokens, type TaskResult } from './context/run';
import { printHostGoalsSideBySide, printHosts, type HostGoals } from './context/hostReport';
import { COPILOT } from './context/hosts';
import { loadTasks, repoLocator } from './context/tasks';

const PROJECT = join(__dirname, '..');

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      repo: { type: 'string', multiple: true },
      set: { type: 'string', default: 'all' },
      scale: { type: 'boolean', default: false },
      verbose: { type: 'boolean', default: false },
    },
    strict: true,
  });
  const paths = {
    ours: join(PROJECT, 'dist/cli.js'),
    fs: join(PROJECT, 'node_modules/@modelcontextprotocol/server-filesystem/dist/index.js'),
  };
  if (!existsSync(paths.ours)) throw new Error(`${paths.ours} is missing: build it first (node esbuild.mjs)`);
  if (!existsSync(paths.fs)) throw new Error(`${paths.fs} is missing: npm install (it is a devDependency)`);

  if (values.scale && !values.repo) {
    // `--scale` alone: only the figures at scale (bench/context/scale.ts), each with its goal; no replay.
    const { scale, SCALE_HEADER } = await import('./context/scale');
    console.log(`overview at scale · node ${process.version} · ${cpus().length} cores · load avg ${loadavg().map((x) => x.toFixed(1)).join(' ')}`);
    table([SCALE_HEADER, ...(await scale())]);
    process.exit(0);
  }
  const started = performance.now();
  console.log(`context benchmark · node ${process.version} · ${cpus().length} cores · load avg ${loadavg().map((x) => x.toFixed(1)).join(' ')}`);
  // In-sample tasks (bench/tasks/*.json) and the held-out set (bench/tasks/heldout/*.json, never tuned on).
  if (!['all', 'in-sample', 'held-out'].includes(values.set)) throw new Error(`--set must be all, in-sample or held-out, got "${values.set}"`);
  const locate = repoLocator(process.env.BENCH_REPOS, join(PROJECT, '.bench/repos'));
  const sets = [...(values.set !== 'held-out' ? [loadTasks(join(__dirname, 'tasks'), locate, values.repo)] : []), ...(values.set !== 'in-sample' ? [loadTasks(join(__dirname, 'tasks/heldout'), locate, values.repo)] : [])];
  const repos = sets.flatMap((x) => x.repos);
  const warnings = sets.flatMap((x) => x.warnings);
  for (const w of warnings) console.warn(`WARNING: ${w}`);
  table([
    ['repo', 'set', 'language', 'url', 'commit verified on', 'found', 'tasks'],
    ...repos.map((r) => [r.repo, r.set, r.language, r.url, r.commit, r.foundCommit === r.commit ? 'same' : (r.foundCommit ?? 'unknown'), r.tasks.filter((t) => !t.skip).length]),
  ]);

  const bySet = new Map<string, { results: TaskResult[]; figures: RepoFigures[] }>();
  const catalogs: Catalogs = { fs: 0, ours: 0, builtin: 0 };
  for (const repo of repos) {
    const t0 = performance.now();
    const setResults = (bySet.get(repo.set) ?? bySet.set(repo.set, { results: [], figures: [] }).get(repo.set))!;
    setResults.results.push(
      ...(await runRepo(repo, paths, (r) => {
        catalogs[AGENTS.find((a) => a.key === r.agent)!.server] = r.catalogTokens;
        if (r.host && r.host !== COPILOT.id) return; // ours in the other hosts: in the host tables only
        const status = r.error ? `ERROR ${r.error}` : r.landed ? 'landed' : 'EDIT DID NOT LAND';
        process.stderr.write(`  ${r.agent} ${r.task.id}: ${taskTokens(r)} tokens, ${r.calls.length} calls, ${status}\n`);
        if (values.verbose) for (const c of r.calls) process.stderr.write(`      ${c.tool} ${c.label}: ${c.replyTokens} ${JSON.stringify(c.args).slice(0, 120)}\n`);
      })),
    );
    setResults.figures.push(await repoFigures(repo, paths));
    console.log(`${repo.repo}: ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  }
  // The per-agent tables: ours as sized for VS Code Copilot, the host this product is made for.
  const copilotView = (rs: TaskResult[]) => rs.filter((r) => r.host === undefined || r.host === COPILOT.id);
  const hostGoals: HostGoals[] = [];
  for (const [set, { results, figures }] of bySet) {
    printReport(copilotView(results), figures, catalogs, set);
    hostGoals.push(printHosts(results, set));
  }
  printSideBySide([...bySet].map(([set, { results }]) => ({ set, results: copilotView(results) })));
  printHostGoalsSideBySide(hostGoals);
  console.log(`\nrun time ${((performance.now() - started) / 1000).toFixed(1)} s`);

  if (values.scale) {
    const { scale } = await import('./context/scale');
    console.log('\nOverview at scale:');
    const { SCALE_HEADER } = await import('./context/scale');
    table([SCALE_HEADER, ...(await scale())]);
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
