/**
 * Blanked or emptied bodies against the whole parse, on real files (not part of the test suite): for each file named
 * on stdin, its outline parsed whole and parsed with its function bodies blanked or emptied (src/core/context/
 * cBodies.ts, cppBodies.ts, goBodies.ts, rustBodies.ts, javaBodies.ts, csharpBodies.ts, jsBodies.ts, phpBodies.ts,
 * rubyBodies.ts, pythonBodies.ts, bashBodies.ts: the language is the first argument, c unless given), and whether
 * they agree.
 * Prints, per file where they differ, both symbol counts and error counts; then how many files agree, how many
 * parse with errors whole (error recovery then may differ), how many had nothing to blank, and the parse time of
 * each way (ms, summed, one warm parser). Any size counts here, also below BLANK_BODIES_MIN_CHARS.
 *
 *   find / -name '*.c' -not -path '/proc/*' 2>/dev/null | node --import tsx bench/bodies.ts
 *   find / -name '*.java' -not -path '/proc/*' 2>/dev/null | node --import tsx bench/bodies.ts java
 */
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { blankFunctionBodies } from '../src/core/context/cBodies';
import { emptyGoFunctionBodies } from '../src/core/context/goBodies';
import { emptyJavaMethodBodies } from '../src/core/context/javaBodies';
import { emptyRustFunctionBodies } from '../src/core/context/rustBodies';
import { emptyCsharpMethodBodies } from '../src/core/context/csharpBodies';
import { emptyJsFunctionBodies } from '../src/core/context/jsBodies';
import { emptyCppFunctionBodies } from '../src/core/context/cppBodies';
import { emptyPhpFunctionBodies } from '../src/core/context/phpBodies';
import { emptyRubyMethodBodies } from '../src/core/context/rubyBodies';
import { emptyPythonFunctionBodies } from '../src/core/context/pythonBodies';
import { emptyBashFunctionBodies } from '../src/core/context/bashBodies';
import { packagedGrammars, TreeSitterParsers } from '../src/core/context/node/treeSitter';
import { parseOutline, type Extracted } from '../src/core/context/treeOutline';

const parsers = new TreeSitterParsers(packagedGrammars);
const BLANKERS: Record<string, (text: string) => string | undefined> = { c: blankFunctionBodies, cpp: emptyCppFunctionBodies, go: emptyGoFunctionBodies, java: emptyJavaMethodBodies, rust: emptyRustFunctionBodies, csharp: emptyCsharpMethodBodies, typescript: emptyJsFunctionBodies, javascript: emptyJsFunctionBodies, php: emptyPhpFunctionBodies, ruby: emptyRubyMethodBodies, python: emptyPythonFunctionBodies, shellscript: emptyBashFunctionBodies };
const language = process.argv[2] ?? 'c';
const blank = BLANKERS[language];
if (!blank) throw new Error(`no body blanker for ${language}: one of ${Object.keys(BLANKERS).join(', ')}`);

async function outlineOf(text: string): Promise<{ outline: Extracted | undefined; ms: number }> {
  const t0 = performance.now();
  const parsed = await parseOutline(text, language, parsers);
  const ms = performance.now() - t0;
  parsed?.free();
  return { outline: parsed?.outline, ms };
}

async function main(): Promise<void> {
  const files = readFileSync(0, 'utf8').split('\n').filter(Boolean);
  const counts = { files: files.length, agree: 0, differ: 0, wholeHasErrors: 0, moreErrorsBlanked: 0, nothingBlanked: 0, unreadable: 0 };
  let wholeMs = 0;
  let blankedMs = 0;
  for (const file of files) {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      counts.unreadable++;
      continue;
    }
    const t0 = performance.now();
    const blanked = blank(text);
    const scanMs = performance.now() - t0;
    if (blanked === undefined) {
      counts.nothingBlanked++;
      continue;
    }
    const whole = await outlineOf(text);
    const part = await outlineOf(blanked);
    wholeMs += whole.ms;
    blankedMs += part.ms + scanMs;
    const wholeErrors = whole.outline?.errorRanges.length ?? 0;
    const blankedErrors = part.outline?.errorRanges.length ?? 0;
    if (blankedErrors > wholeErrors) counts.moreErrorsBlanked++;
    if (wholeErrors) counts.wholeHasErrors++;
    const same = JSON.stringify({ s: whole.outline?.symbols, i: whole.outline?.imports }) === JSON.stringify({ s: part.outline?.symbols, i: part.outline?.imports });
    if (same && blankedErrors === wholeErrors) counts.agree++;
    else {
      counts.differ++;
      console.log(`${file}: symbols ${whole.outline?.symbols.length ?? 0} whole, ${part.outline?.symbols.length ?? 0} blanked; error ranges ${wholeErrors} whole, ${blankedErrors} blanked`);
    }
  }
  console.log(JSON.stringify(counts));
  console.log(`parse: ${wholeMs.toFixed(0)} ms whole, ${blankedMs.toFixed(0)} ms blanked (the scan included): ${(blankedMs / Math.max(1, wholeMs)).toFixed(2)}x`);
}

void main();
