/**
 * Runs the CPU-bound steps of an edit's report (the quick balance scan of the new file, the diff window in both
 * formats) once on a made-up file, in memory: nothing is read, written or recorded. A server calls it at its first
 * idle moment, so the first real edit does not run these steps cold (V8's first run of the scanner is interpreted
 * and gathers type feedback; from a start without the code cache it also compiles them): measured by
 * `npm run bench:startup`, the first edit took 1.5-2x the second without it.
 */
import { quickBalance } from './balance';
import { renderDiff } from './diff';

/** Lines of the made-up file: about what one edit's balance scans in a small source file. */
const SAMPLE_LINES = 300;
/** Runs of the scan: one leaves it interpreted; after a few, V8 has compiled its loops (measured: ~2 ms each). */
const RUNS = 4;

function sampleLines(): string[] {
  const lines: string[] = [];
  for (let i = 0; lines.length < SAMPLE_LINES; i++) {
    lines.push(
      `export function item${i}(input: string[], limit = ${i}): { name: string; size: number } {`,
      `  const name = input.map((s) => s.trim()).filter(Boolean).join(', '); // item ${i}`,
      `  if (name.length > limit) return { name: \`\${name.slice(0, limit)}…\`, size: limit };`,
      `  return { name, size: [${i}, ${i + 1}].length + input.length };`,
      '}',
      '',
    );
  }
  return lines;
}

/** Returns the balance line, so a caller (and a test) can tell the work was done. */
export function warmEditReport(languageIds: readonly string[] = ['typescript']): string {
  const lines = sampleLines();
  let balance = '';
  const text = lines.join('\n');
  for (const languageId of languageIds) for (let i = 0; i < RUNS; i++) balance = quickBalance(text, languageId);
  const before = { startLine: 10, lines: lines.slice(9, 20) };
  const after = { startLine: 10, lines: [...lines.slice(9, 14), '  const changed = true;', ...lines.slice(15, 20)] };
  renderDiff(before, after, 'plain');
  renderDiff(before, after, 'diff');
  return balance;
}
