/**
 * The host dimension's tables (hosts.ts): per host profile, each agent's replies over that host's limit and the
 * total the model sees there; the goals under the VS Code Copilot profile; and (d) against the built-in-tools
 * agent on the tasks where that agent's first file was the answer.
 */
import { AGENTS } from './agents';
import { COPILOT, HOSTS, tokensInHost, type Host } from './hosts';
import { fmt, pct, table } from './report';
import { taskTokens, type TaskResult } from './run';

const mark = (ok: boolean) => (ok ? 'PASS' : 'FAIL');

/** The results an agent has in host `h`: ours those of its run sized to `h`, the others' their one run. */
export function inHost(results: readonly TaskResult[], agent: string, h: Host): TaskResult[] {
  return results.filter((r) => r.agent === agent && (r.host === undefined || r.host === h.id));
}

function sum(rs: readonly TaskResult[], h: Host): { tokens: number; over: number; calls: number } {
  let tokens = 0;
  let over = 0;
  let calls = 0;
  for (const r of rs) {
    const t = tokensInHost(r.calls, r.catalogTokens, h);
    tokens += t.tokens;
    over += t.over;
    calls += r.calls.length;
  }
  return { tokens, over, calls };
}

export interface HostGoals {
  set: string;
  rows: (string | number)[][];
  /** (d) vs (f) where (f) read the answer first: tasks, and (d)/(f) under Copilot */
  firstHit: { tasks: number; ratio: number; rawRatio: number };
}

export function printHosts(results: readonly TaskResult[], set: string): HostGoals {
  console.log(`\nHost dimension, ${set} (each reply as the host shows it: limits from src/mcp/hostProfiles.ts, bench/context/hosts.ts):`);
  table([
    ['agent', ...HOSTS.flatMap((h) => [`${h.label}: over ${h.limit.max.toLocaleString('en-US')} ${h.limit.unit}`, 'tokens seen'])],
    ...AGENTS.map((a) => [
      a.label,
      ...HOSTS.flatMap((h) => {
        const s = sum(inHost(results, a.key, h), h);
        return [`${s.over}/${s.calls}`, fmt(s.tokens)];
      }),
    ]),
  ]);
  const c = (k: string) => sum(inHost(results, k, COPILOT), COPILOT);
  const d = c('d').tokens;
  const overOurs = HOSTS.map((h) => ({ h, over: sum(inHost(results, 'd', h), h).over }));
  // the tasks where (f)'s first file was the answer: (d) against (f) at its best
  const f1 = inHost(results, 'f', COPILOT).filter((r) => r.run?.foundAt === 1);
  const ids = new Set(f1.map((r) => r.task.id));
  const d1 = inHost(results, 'd', COPILOT).filter((r) => ids.has(r.task.id));
  const ratio = sum(d1, COPILOT).tokens / sum(f1, COPILOT).tokens;
  const rawRatio = d1.reduce((n, r) => n + taskTokens(r), 0) / f1.reduce((n, r) => n + taskTokens(r), 0);
  const landed = results.filter((r) => r.landed).length;
  const rows: (string | number)[][] = [
    ['(d) below (a) directory_tree, Copilot', `${pct(1 - d / c('a').tokens)} below`, '≥ 75% below', mark(d <= 0.25 * c('a').tokens)],
    ['(d) below (b) list_directory, Copilot', `${pct(1 - d / c('b').tokens)} below`, '≥ 65% below', mark(d <= 0.35 * c('b').tokens)],
    ['(d) vs the oracle (c), Copilot', `${(d / c('c').tokens).toFixed(2)}× (c)`, '≤ 0.6×', mark(d <= 0.6 * c('c').tokens)],
    ["(d) vs (f) where (f)'s first file was the answer, Copilot", `${pct(1 - ratio)} fewer on ${f1.length} tasks (model view alone: ${pct(1 - rawRatio)})`, '≥ 30% fewer', mark(ratio <= 0.7)],
    ...overOurs.map(({ h, over }) => [`(d) replies over the ${h.label} limit`, over, '0', mark(over === 0)]),
    ['every edit lands (every agent, every host run)', `${landed}/${results.length}`, 'all', mark(landed === results.length)],
  ];
  console.log(`\nGoals under the host profiles, ${set}:`);
  table([['goal', 'measured', 'target', ''], ...rows]);
  return { set, rows, firstHit: { tasks: f1.length, ratio, rawRatio } };
}

/** The goals of every set side by side. */
export function printHostGoalsSideBySide(all: HostGoals[]): void {
  if (all.length < 2) return;
  console.log('\nGoals under the host profiles, side by side:');
  table([['goal', ...all.map((g) => g.set)], ...all[0]!.rows.map((row, i) => [String(row[0]), ...all.map((g) => `${g.rows[i]![1]} ${g.rows[i]![3]}`)])]);
}
