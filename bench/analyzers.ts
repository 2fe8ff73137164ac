/**
 * Analyzer speed (npm run bench:analyzers; not part of the test suite): be-balance, be-func-range and
 * be-tag-range on multi-megabyte texts in several language families. The TypeScript text is this
 * repository's own `src/` repeated; the others repeat a small sample that exercises their string rules.
 * Each figure is the best of BENCH_RUNS runs in CPU time (user + system), which other load on the machine
 * disturbs far less than wall time. BENCH_MB=4 (size of each text), BENCH_RUNS=9, BENCH_SRC=src (the
 * TypeScript sources).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { checkBalance } from '../src/core/edits/balance';
import { findFunctionRange } from '../src/core/edits/funcRange';
import { findTagRange } from '../src/core/edits/tagRange';

const MB = Number(process.env.BENCH_MB ?? 4);
const RUNS = Number(process.env.BENCH_RUNS ?? 9);

function sourcesOf(dir: string): string {
  let out = '';
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out += sourcesOf(p);
    else if (e.name.endsWith('.ts')) out += fs.readFileSync(p, 'utf8') + '\n';
  }
  return out;
}

const SAMPLES: Record<string, string> = {
  python: 'class A:\n    """doc "x" ("""\n    def f(self, x=[1, 2]):\n        return {"k": \'v\', "t": (x, f"{x}")}  # (\n\n',
  shellscript: 'f() {\n  case "$1" in\n    a) echo "$(ls \'x\')" `pwd` ;;\n  esac\n  cat <<EOF\n ( [ {\nEOF\n}\n',
  ruby: 'def f(x)\n  y = "a#{x}b" # (\n  [1, 2].each { |v| puts \'v\' }\nend\n=begin\n(\n=end\n',
  c: '#include <x.h>\n#define M(a) (a)\nstatic int f(const char *s) {\n  /* ( */ return s[0] == \'"\' ? 1 : "\\")"[0];\n}\n',
  html: '<div class="a>b">\n  <p>Text (1) {{ x }}</p>\n  <script>if (a < b) { f("</p>"); }</script>\n  <br>\n</div>\n',
  markdown: '# Title\n\nSome (prose) with `code (` and a [link](x).\n\n```ts\nconst a = [1, 2];\n```\n<!-- ( -->\n',
};

function repeatTo(sample: string, bytes: number): string {
  return sample.repeat(Math.max(1, Math.ceil(bytes / sample.length)));
}

function cpuMs(fn: () => unknown): number {
  const t0 = process.cpuUsage();
  fn();
  const t = process.cpuUsage(t0);
  return (t.user + t.system) / 1000;
}

function best(fn: () => unknown): number {
  fn(); // warm-up
  let ms = Infinity;
  for (let r = 0; r < RUNS; r++) ms = Math.min(ms, cpuMs(fn));
  return ms;
}

const bytes = MB * 1_000_000;
const texts: Array<[string, string]> = [
  ['typescript', repeatTo(sourcesOf(process.env.BENCH_SRC ?? path.resolve(__dirname, '../src')), bytes)],
  ...Object.entries(SAMPLES).map(([id, s]): [string, string] => [id, repeatTo(s, bytes)]),
];
console.log(`analyzer | language | MB | best CPU ms of ${RUNS}`);
for (const [id, text] of texts) {
  const mb = (text.length / 1e6).toFixed(1);
  const middle = Math.floor(text.split('\n').length / 2);
  console.log(`checkBalance | ${id} | ${mb} | ${best(() => checkBalance(text, id, false)).toFixed(0)}`);
  if (id === 'html') console.log(`findTagRange | ${id} | ${mb} | ${best(() => findTagRange(text, middle, id)).toFixed(0)}`);
  else if (id !== 'markdown') console.log(`findFunctionRange | ${id} | ${mb} | ${best(() => findFunctionRange(text, middle, id)).toFixed(0)}`);
}
