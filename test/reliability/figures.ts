/**
 * Figures the reliability suite prints (and asserts): one line per figure, `figure: NAME = VALUE (goal GOAL)`,
 * collected and printed again as a table when the run ends, so a CI log shows them together.
 */
const figures: { name: string; value: string; goal: string }[] = [];

export function figure(name: string, value: number | string, goal: string): void {
  const v = String(value);
  figures.push({ name, value: v, goal });
  console.log(`      figure: ${name} = ${v} (goal ${goal})`);
}

after(() => {
  if (figures.length === 0) return;
  const w = Math.max(...figures.map((f) => f.name.length));
  console.log('\n  reliability figures');
  for (const f of figures) console.log(`    ${f.name.padEnd(w)}  ${f.value.padStart(10)}   goal ${f.goal}`);
});
