/** The printed tables: per agent, goals with pass/fail, per repository, per task, and the other figures. */
import { AGENTS } from './agents';
import { median, type RepoFigures } from './figures';
import { countTokens } from './mcp';
import { taskTokens, type TaskResult } from './run';

type Row = (string | number)[];

export const fmt = (n: number): string => (Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : 'n/a');
export const pct = (x: number): string => (Number.isFinite(x) ? `${(x * 100).toFixed(1)}%` : 'n/a');
const mark = (ok: boolean) => (ok ? 'PASS' : 'FAIL');

export function table(rows: Row[], out: (line: string) => void = console.log): void {
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => String(r[c] ?? '').length)));
  for (const [i, r] of rows.entries()) {
    out('| ' + r.map((v, c) => String(v ?? '').padEnd(widths[c]!)).join(' | ') + ' |');
    if (i === 0) out('|' + widths.map((w) => '-'.repeat(w + 2)).join('|') + '|');
  }
}

interface AgentSum {
  tokens: number;
  replies: number;
  catalog: number;
  calls: number;
  largest: number;
  args: number;
  reached: number;
  landed: number;
  errors: number;
  tasks: number;
}

function sumAgent(results: TaskResult[], agent: string): AgentSum {
  const rs = results.filter((r) => r.agent === agent);
  const calls = rs.flatMap((r) => r.calls);
  return {
    tokens: rs.reduce((n, r) => n + taskTokens(r), 0),
    replies: calls.reduce((n, c) => n + c.replyTokens, 0),
    catalog: rs.reduce((n, r) => n + r.catalogTokens * r.calls.length, 0),
    calls: calls.length,
    largest: Math.max(0, ...calls.map((c) => c.replyTokens)),
    args: calls.reduce((n, c) => n + c.argTokens, 0),
    reached: rs.filter((r) => r.run?.foundAt !== undefined).length,
    landed: rs.filter((r) => r.landed).length,
    errors: rs.filter((r) => r.error).length,
    tasks: rs.length,
  };
}

export type Catalogs = { fs: number; ours: number; builtin: number };

export function printReport(results: TaskResult[], figures: RepoFigures[], catalogs: Catalogs, set = 'all'): void {
  const sums = Object.fromEntries(AGENTS.map((a) => [a.key, sumAgent(results, a.key)])) as Record<string, AgentSum>;
  const tasks = sums.d!.tasks;

  console.log(`\n==================== set: ${set} ====================`);
  console.log(
    `\nCatalog per turn (name + description + inputSchema of tools/list): server-filesystem ${fmt(catalogs.fs)}, ours ${fmt(catalogs.ours)}, built-in (our compact schemas) ${fmt(catalogs.builtin)} tokens`,
  );
  console.log(`\n${set}: all ${tasks} tasks (tokens = model view of every reply + the catalog once per call):`);
  table([
    ['agent', 'total tokens', 'replies', 'catalog', 'calls', 'largest reply', 'arg tokens*', 'answer reached', 'edits landed', 'errors'],
    ...AGENTS.map((a) => {
      const s = sums[a.key]!;
      return [a.label, fmt(s.tokens), fmt(s.replies), fmt(s.catalog), s.calls, fmt(s.largest), fmt(s.args), `${s.reached}/${s.tasks}`, `${s.landed}/${s.tasks}`, s.errors];
    }),
  ]);
  console.log('* arguments the model writes (output tokens); not in the total.');

  const d = sums.d!.tokens;
  const dResults = results.filter((r) => r.agent === 'd');
  const inTop3 = dResults.filter((r) => (r.run?.overviewRank ?? Infinity) <= 3).length;
  const fullVsFs = figures.flatMap((f) => f.fullVsFs);
  const worstFull = Math.max(...fullVsFs.map((x) => x.ours / x.fs));
  const allLanded = results.every((r) => r.landed);
  console.log('\nGoals:');
  table([
    ['goal', 'measured', 'target', ''],
    ['(d) below (a)', `${pct(1 - d / sums.a!.tokens)} below`, '≥ 70% below', mark(d <= 0.3 * sums.a!.tokens)],
    ['(d) below (b)', `${pct(1 - d / sums.b!.tokens)} below`, '≥ 50% below', mark(d <= 0.5 * sums.b!.tokens)],
    ['(d) below the oracle (c)', `${(d / sums.c!.tokens).toFixed(2)}× (c)`, '< 1.0×', mark(d < sums.c!.tokens)],
    ['(d) below (e) fs search_files', `${pct(1 - d / sums.e!.tokens)} below`, 'below', mark(d < sums.e!.tokens)],
    ['(d) below (f) built-in tools', `${pct(1 - d / sums.f!.tokens)} below`, 'below', mark(d < sums.f!.tokens)],
    ['moonshot: (d) vs oracle', `${(d / sums.c!.tokens).toFixed(2)}× (c)`, '≤ 0.8×', mark(d <= 0.8 * sums.c!.tokens)],
    ['answer file in the overview\'s first 3', `${inTop3}/${dResults.length} (${pct(inTop3 / dResults.length)})`, '≥ 90%', mark(inTop3 >= 0.9 * dResults.length)],
    ...figures.map((f) => {
      const m = median(f.structureRatios);
      return [`median structure/full, ${f.repo} (non-test files > 200 lines)`, pct(m), '≤ 15%', mark(m <= 0.15)];
    }),
    ['our full read vs server-filesystem read, same file', `worst ${worstFull.toFixed(2)}× over ${fullVsFs.length} files`, '≤ 1.0×', mark(worstFull <= 1)],
    ['every edit lands as expected', `${results.filter((r) => r.landed).length}/${results.length}`, 'all', mark(allLanded)],
  ]);

  console.log('\nPer repository (total tokens):');
  const repos = [...new Set(results.map((r) => r.repo))];
  table([
    ['repo', 'tasks', ...AGENTS.map((a) => a.label.slice(0, 3)), '(d)/(a)', '(d)/(b)', '(d)/(c)'],
    ...repos.map((repo) => {
      const t = (k: string) => results.filter((r) => r.repo === repo && r.agent === k).reduce((n, r) => n + taskTokens(r), 0);
      return [repo, dResults.filter((r) => r.repo === repo).length, ...AGENTS.map((a) => fmt(t(a.key))), pct(t('d') / t('a')), pct(t('d') / t('b')), pct(t('d') / t('c'))];
    }),
  ]);

  console.log('\nPer task (tokens; d calls; rank of the answer in the overview, tests included; notes):');
  table([
    ['task', ...AGENTS.map((a) => `(${a.key})`), 'd calls', 'ov rank', 'notes'],
    ...dResults.map((dr) => {
      const of = (k: string) => results.find((r) => r.agent === k && r.task.id === dr.task.id)!;
      const notes = AGENTS.flatMap((a) => {
        const r = of(a.key);
        return [...(r.run?.notes ?? []).map((n) => `${a.key}: ${n}`), ...(r.error ? [`${a.key}: ERROR ${r.error}`] : []), ...(!r.landed ? [`${a.key}: edit did not land`] : [])];
      });
      return [dr.task.id, ...AGENTS.map((a) => fmt(taskTokens(of(a.key)))), dr.calls.length, dr.run?.overviewRank ?? '–', notes.join('; ')];
    }),
  ]);

  // Where each agent's reply tokens go, by step (the label the agent gave each call).
  console.log('\nReply tokens by step (catalog not included):');
  const steps: Row[] = [['agent', 'step', 'calls', 'reply tokens', 'mean', 'largest']];
  for (const a of AGENTS) {
    const calls = results.filter((r) => r.agent === a.key).flatMap((r) => r.calls);
    for (const label of [...new Set(calls.map((c) => c.label))]) {
      const cs = calls.filter((c) => c.label === label);
      const sum = cs.reduce((n, c) => n + c.replyTokens, 0);
      steps.push([a.label.slice(0, 3), `${cs[0]!.tool} ${label}`, cs.length, fmt(sum), fmt(sum / cs.length), fmt(Math.max(...cs.map((c) => c.replyTokens)))]);
    }
  }
  table(steps);

  // Other figures of the issue.
  const vids = dResults.map((r) => r.run?.viewedCodeId).filter((v): v is string => !!v).map(countTokens);
  const otherOutlines = dResults.flatMap((r) => r.calls).filter((c) => c.label === 'structure other');
  const otherShare = otherOutlines.reduce((n, c) => n + c.replyTokens, 0) / d;
  console.log('\nOther figures:');
  table([
    ['figure', 'value', 'note'],
    ['viewed_code_id tokens per range read', vids.length ? `${fmt(median(vids))} (median; min ${Math.min(...vids)}, max ${Math.max(...vids)})` : 'n/a', `${vids.length} range reads`],
    ['share of (d) tokens on outlines of files that were not the answer', pct(otherShare), `${otherOutlines.length} such outlines, ${fmt(otherOutlines.reduce((n, c) => n + c.replyTokens, 0))} tokens (catalog not included)`],
    ...figures.flatMap((f) => {
      const limited = f.limitedPages;
      const worst = f.fullVsFs.reduce((w, x) => (x.ours / x.fs > w.ours / w.fs ? x : w), f.fullVsFs[0] ?? { file: '', ours: NaN, fs: NaN, pages: 0 });
      return [
        [`${f.repo}: source files / lines (non-test)`, `${f.allFiles} / ${fmt(f.allLines)} (${f.codeFiles} / ${fmt(f.codeLines)})`, 'the language\'s files only'],
        [`${f.repo}: median structure/full, files > 200 lines`, pct(median(f.structureRatios)), `${f.structureRatios.length} files`],
        [`${f.repo}: our full read / fs read, answer files`, `worst ${(worst.ours / worst.fs).toFixed(2)}× (${worst.file}: ${fmt(worst.ours)} vs ${fmt(worst.fs)}, ${worst.pages} page(s))`, `median ${median(f.fullVsFs.map((x) => x.ours / x.fs)).toFixed(2)}×`],
        [
          `${f.repo}: a "full" page at the 8,000-token limit, as the model receives it`,
          limited.length ? `${fmt(median(limited.map((p) => p.view)))} tokens (median; max ${fmt(Math.max(...limited.map((p) => p.view)))})` : 'no page hit the limit',
          limited.length ? `${limited.length} pages; their numbered lines alone: median ${fmt(median(limited.map((p) => p.content)))} tokens` : '',
        ],
      ];
    }),
  ]);
}

/** In-sample and held-out side by side: per agent, total tokens, (d)'s ratio to it, answers reached, edits landed. */
export function printSideBySide(bySet: { set: string; results: TaskResult[] }[]): void {
  if (bySet.length < 2) return;
  console.log('\nIn-sample and held-out side by side (total tokens; (d)/agent; answer reached; edits landed):');
  const sums = bySet.map(({ results }) => Object.fromEntries(AGENTS.map((a) => [a.key, sumAgent(results, a.key)])) as Record<string, AgentSum>);
  table([
    ['agent', ...bySet.flatMap(({ set }) => [`${set} tokens`, '(d)/agent', 'reached', 'landed'])],
    ...AGENTS.map((a) => [
      a.label,
      ...sums.flatMap((s) => [fmt(s[a.key]!.tokens), `${(s.d!.tokens / s[a.key]!.tokens).toFixed(2)}×`, `${s[a.key]!.reached}/${s[a.key]!.tasks}`, `${s[a.key]!.landed}/${s[a.key]!.tasks}`]),
    ]),
  ]);
  table([
    ['(d) figure', ...bySet.map(({ set }) => set)],
    [
      "answer file in the overview's first 3",
      ...bySet.map(({ results }) => {
        const d = results.filter((r) => r.agent === 'd');
        const n = d.filter((r) => (r.run?.overviewRank ?? Infinity) <= 3).length;
        return `${n}/${d.length} (${pct(n / d.length)})`;
      }),
    ],
    [
      'answer reached within 5 reads',
      ...bySet.map(({ results }) => {
        const d = results.filter((r) => r.agent === 'd');
        return `${d.filter((r) => r.run?.foundAt !== undefined).length}/${d.length}`;
      }),
    ],
  ]);
}
