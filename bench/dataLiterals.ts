/**
 * Data literals' tails taken out against the whole parse, on real files (not part of the test suite): for each
 * JavaScript, TypeScript or Python file named on stdin (by its extension), its outline parsed whole and parsed as the outline
 * parses it (src/core/context/dataLiterals.ts through treeOutline.ts outlineInputs: compacted, and again whole when
 * that has errors), and whether they agree. Prints, per file where they differ, both symbol counts and error counts;
 * then how many files agree, how many had nothing to take out, and the parse time of each way (ms, summed, one warm
 * parser). Any size counts here, also below COMPACT_LITERALS_MIN_CHARS.
 *
 *   find / -size +64k \( -name '*.js' -o -name '*.ts' -o -name '*.mjs' -o -name '*.cjs' -o -name '*.py' \) -not -path '/proc/*' 2>/dev/null \
 *     | node --import tsx bench/dataLiterals.ts
 */
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { compactDataLiterals } from '../src/core/context/dataLiterals';
import { packagedGrammars, TreeSitterParsers } from '../src/core/context/node/treeSitter';
import { parseOutline, type Extracted } from '../src/core/context/treeOutline';
import { languageIdFromPath } from '../src/core/text/languages';

const parsers = new TreeSitterParsers(packagedGrammars);

async function outlineOf(text: string, languageId: string, whole?: string): Promise<{ outline: Extracted | undefined; ms: number }> {
  const t0 = performance.now();
  const parsed = await parseOutline(text, languageId, parsers, undefined, whole);
  const ms = performance.now() - t0;
  parsed?.free();
  return { outline: parsed?.outline, ms };
}

async function main(): Promise<void> {
  const files = readFileSync(0, 'utf8').split('\n').filter(Boolean);
  const counts = { files: files.length, compacted: 0, agree: 0, differ: 0, wholeHasErrors: 0, parsedAgainWhole: 0, nothingTakenOut: 0, unreadable: 0 };
  let wholeMs = 0;
  let compactedMs = 0;
  let bytes = 0;
  let keptBytes = 0;
  for (const file of files) {
    const languageId = languageIdFromPath(file);
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      counts.unreadable++;
      continue;
    }
    const t0 = performance.now();
    const compacted = languageId ? compactDataLiterals(text, languageId) : undefined;
    const scanMs = performance.now() - t0;
    if (compacted === undefined || !languageId) {
      counts.nothingTakenOut++;
      continue;
    }
    counts.compacted++;
    bytes += text.length;
    keptBytes += compacted.length;
    const whole = await outlineOf(text, languageId);
    const part = await outlineOf(compacted, languageId, text);
    wholeMs += whole.ms;
    compactedMs += part.ms + scanMs;
    const wholeErrors = whole.outline?.errorRanges.length ?? 0;
    const partErrors = part.outline?.errorRanges.length ?? 0;
    if (wholeErrors) counts.wholeHasErrors++;
    if (partErrors && partErrors === wholeErrors) counts.parsedAgainWhole++;
    const same = JSON.stringify({ s: whole.outline?.symbols, i: whole.outline?.imports }) === JSON.stringify({ s: part.outline?.symbols, i: part.outline?.imports });
    if (same && partErrors === wholeErrors) counts.agree++;
    else {
      counts.differ++;
      console.log(`${file}: symbols ${whole.outline?.symbols.length ?? 0} whole, ${part.outline?.symbols.length ?? 0} compacted; error ranges ${wholeErrors} whole, ${partErrors} compacted`);
    }
  }
  console.log(JSON.stringify(counts));
  console.log(`text: ${(bytes / 1e6).toFixed(1)} MB, compacted ${(keptBytes / 1e6).toFixed(1)} MB`);
  console.log(`parse: ${wholeMs.toFixed(0)} ms whole, ${compactedMs.toFixed(0)} ms compacted (the scan included): ${(compactedMs / Math.max(1, wholeMs)).toFixed(2)}x`);
}

void main();
