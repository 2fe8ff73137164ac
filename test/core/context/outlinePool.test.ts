/**
 * The outline worker pool (src/core/context/node/outlinePool.ts): the same outlines as in-thread on every source
 * file of this repository and every fixture language, a cancelled parse that ends at once (its worker with it) and
 * leaves the pool working, a parse over its time limit that is abandoned, and idle workers that keep no process
 * alive; a large file parsed in parts on two workers gives the whole file's outline, after an edit too, and its
 * cancellation ends both; the workers start without the host's flags.
 */
import { strict as assert } from 'node:assert';
import { readFileSync, readdirSync } from 'node:fs';
import * as path from 'node:path';
import { OutlinePool, defaultPoolSize } from '../../../src/core/context/node/outlinePool';
import { cutPoints } from '../../../src/core/context/outlineChunks';
import { packagedGrammars, TreeSitterParsers } from '../../../src/core/context/node/treeSitter';
import { inThreadOutlines } from '../../../src/core/context/treeOutline';
import { hasGrammar, languageIdFromPath } from '../../../src/core/text/languages';
import { cSource } from '../../../bench/context/generate';

const REPO = path.resolve(__dirname, '../../..');

function filesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...filesUnder(p));
    else out.push(p);
  }
  return out;
}

/** C tokens in a fixed pseudo-random order, `size` characters. */
function garbage(size: number): string {
  const tokens = ['(', ')', '{', '}', '[', ']', ';', ',', '*', 'a', 'int', '=', '\n', '"x"', '#if', '?', ':'];
  let seed = 1;
  const parts: string[] = [];
  for (let n = 0; n < size; ) {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    const t = tokens[seed % tokens.length]!;
    parts.push(t);
    n += t.length + 1;
  }
  return parts.join(' ');
}

describe('core/context OutlinePool (tree-sitter on worker threads)', function () {
  this.timeout(120_000);
  const here = inThreadOutlines(new TreeSitterParsers(packagedGrammars));
  let pool: OutlinePool;
  beforeEach(() => {
    pool = new OutlinePool({ grammarsDir: REPO });
  });
  afterEach(() => pool.close());

  it('is sized for the cores: one per core but one, at least 1, at most 2', () => {
    assert.ok(defaultPoolSize() >= 1 && defaultPoolSize() <= 2);
    assert.equal(pool.size, defaultPoolSize());
  });

  it('gives the same outlines as the in-thread parse, on every source file and fixture language', async () => {
    const files = [...filesUnder(path.join(REPO, 'src')), ...filesUnder(path.join(REPO, 'test/fixtures/context')), ...filesUnder(path.join(REPO, 'bench/fixtures'))];
    let compared = 0;
    const langs = new Set<string>();
    // concurrently, as the server asks: the answers must still come back to the right callers
    await Promise.all(
      files.map(async (f) => {
        const lang = languageIdFromPath(f);
        if (!hasGrammar(lang)) return;
        const text = readFileSync(f, 'utf8');
        const [a, b] = await Promise.all([pool.outline(text, lang), here.outline(text, lang)]);
        assert.deepEqual(a, b, f);
        compared++;
        langs.add(lang);
      }),
    );
    assert.ok(compared > 150, `compared ${compared}`);
    assert.ok(langs.size >= 10, [...langs].join(','));
    assert.equal(await pool.outline('just words', 'plaintext'), undefined);
  });

  it('a cancelled parse rejects at once, ends its worker, and the next outline still answers', async () => {
    const big = cSource(4_000_000);
    await pool.outline('int main(void) { return 0; }\n', 'c'); // the worker and grammar are up
    const ac = new AbortController();
    const t = performance.now();
    const p = pool.outline(big, 'c', ac.signal);
    setTimeout(() => ac.abort(), 50);
    await assert.rejects(p, { name: 'AbortError' });
    assert.ok(performance.now() - t < 1000, `cancelled after ${(performance.now() - t).toFixed(0)} ms`);
    const small = await pool.outline('int f(void) { return 1; }\n', 'c');
    assert.deepEqual(small?.symbols.map((s) => s.name), ['f']);
    // a signal aborted before the call: nothing is posted
    await assert.rejects(pool.outline(big, 'c', AbortSignal.abort()), { name: 'AbortError' });
  });

  it('a queued job that is cancelled leaves the queue; the others answer', async () => {
    const one = new OutlinePool({ grammarsDir: REPO, size: 1 });
    try {
      const ac = new AbortController();
      const first = one.outline(cSource(200_000), 'c');
      const second = one.outline('int g(void) { return 2; }\n', 'c', ac.signal);
      const third = one.outline('int h(void) { return 3; }\n', 'c');
      ac.abort();
      await assert.rejects(second, { name: 'AbortError' });
      assert.ok((await first)!.symbols.length > 100);
      assert.deepEqual((await third)?.symbols.map((s) => s.name), ['h']);
    } finally {
      await one.close();
    }
  });

  it('a parse over the time limit is abandoned with a clear error; the same pool answers the next one', async () => {
    const slow = new OutlinePool({ grammarsDir: REPO, size: 1, timeoutMs: 2500 });
    try {
      await slow.outline('int w(void) { return 0; }\n', 'c'); // worker and grammar up: only the parse is timed
      // tokens in no order: error recovery, 4 MB takes ~11 s of CPU here (well-formed C parses 10× faster)
      await assert.rejects(slow.outline(garbage(4_000_000), 'c'), /took over 2500 ms/);
      assert.equal(slow.workers, 0);
      const ok = await slow.outline('int k(void) { return 4; }\n', 'c');
      assert.deepEqual(ok?.symbols.map((s) => s.name), ['k']);
    } finally {
      await slow.close();
    }
  });

  it('the same text again gets the same outline (kept in the worker), a copy the caller may change', async () => {
    const big = cSource(300_000);
    const first = (await pool.outline(big, 'c'))!;
    const expected = structuredClone(first);
    first.symbols.length = 0;
    assert.deepEqual(await pool.outline(big, 'c'), expected);
    assert.deepEqual(await pool.outline(big, 'c'), await here.outline(big, 'c'));
    const changed = big.replace('Module 1:', 'Module one:');
    assert.deepEqual(await pool.outline(changed, 'c'), await here.outline(changed, 'c'));
  });

  it('a large file is parsed in parts on two workers: the whole-file outline, again after edits', async () => {
    const two = new OutlinePool({ grammarsDir: REPO, size: 1, parallel: 2, partChars: 256 * 1024 });
    try {
      const big = cSource(1_000_000);
      assert.equal(cutPoints(big, 'c', 2).length, 1);
      const whole = await here.outline(big, 'c');
      assert.deepEqual(await two.outline(big, 'c'), whole);
      assert.equal(two.workers, 2, 'both parts parsed at once');
      // an edit in each half, then one that breaks the first half (that part has an error: parsed whole)
      const edited = big.replace('Module 3:', 'Module three:').replace('int buffer_600_push', 'int buffer_six_hundred_push');
      assert.ok(edited.length > big.length + 10);
      assert.deepEqual(await two.outline(edited, 'c'), await here.outline(edited, 'c'));
      const broken = edited.replace('Module 5:', 'Module 5: */ int (( {');
      const fallback = await two.outline(broken, 'c');
      assert.ok(fallback!.errorRanges.length > 0);
      assert.deepEqual(fallback, await here.outline(broken, 'c'));
      // a text shorter than partChars, and a language that is not cut, go whole to one worker
      const ts = readFileSync(path.join(REPO, 'src/core/context/node/outlinePool.ts'), 'utf8');
      assert.deepEqual(await two.outline(ts, 'typescript'), await here.outline(ts, 'typescript'));
      const go = 'package main\n\n' + 'func f() {\n}\n\n'.repeat(30_000);
      assert.deepEqual(await two.outline(go, 'go'), await here.outline(go, 'go'));
    } finally {
      await two.close();
    }
  });

  it('a large file parsed in parts and cancelled rejects at once and ends both workers', async () => {
    const two = new OutlinePool({ grammarsDir: REPO, size: 1, parallel: 2 });
    try {
      const ac = new AbortController();
      const p = two.outline(cSource(4_000_000), 'c', ac.signal);
      await new Promise((r) => setTimeout(r, 300));
      assert.equal(two.workers, 2);
      const t = performance.now();
      ac.abort();
      await assert.rejects(p, { name: 'AbortError' });
      assert.ok(performance.now() - t < 500, `cancelled after ${(performance.now() - t).toFixed(0)} ms`);
      assert.equal(two.workers, 0);
      assert.deepEqual((await two.outline('int z(void) { return 0; }\n', 'c'))?.symbols.map((s) => s.name), ['z']);
    } finally {
      await two.close();
    }
  });

  it('warm starts the pool\'s workers (not the extra lanes of a large file) after its delay, only when none has started, and they keep no process alive', async () => {
    const warm = new OutlinePool({ grammarsDir: REPO, size: 1, parallel: 2 });
    try {
      warm.warm(50);
      assert.equal(warm.workers, 0, 'not before the delay');
      await new Promise((r) => setTimeout(r, 150));
      assert.equal(warm.workers, 1, 'the one worker a file is parsed on, not the second lane');
      assert.deepEqual((await warm.outline('int y(void) { return 0; }\n', 'c'))?.symbols.map((s) => s.name), ['y']);
      assert.equal(warm.workers, 1, 'the outline took the warm worker');
    } finally {
      await warm.close();
    }
    const large = new OutlinePool({ grammarsDir: REPO, size: 1, parallel: 2 });
    try {
      large.warm(0, true);
      assert.equal(large.workers, 2, 'a large text is about to be parsed: every lane starts now');
    } finally {
      await large.close();
    }
    const busy = new OutlinePool({ grammarsDir: REPO, size: 1, parallel: 2 });
    try {
      busy.warm(50);
      await busy.outline('int x(void) { return 0; }\n', 'c');
      await new Promise((r) => setTimeout(r, 150));
      assert.equal(busy.workers, 1, 'a worker had started: warm left the pool alone');
    } finally {
      await busy.close();
    }
    // warm workers are unref'd: a process that only warmed a pool exits on its own
    const script = `const { OutlinePool } = require(${JSON.stringify(path.join(REPO, 'src/core/context/node/outlinePool.ts'))}); const p = new OutlinePool({ grammarsDir: ${JSON.stringify(REPO)}, size: 2, parallel: 2 }); p.warm(0); setTimeout(() => { if (p.workers !== 2) process.exit(3); }, 300);`;
    const { execFileSync } = await import('node:child_process');
    execFileSync(process.execPath, ['-r', 'tsx/cjs', '-e', script], { cwd: REPO, timeout: 20_000 }); // throws on exit code 3 or the timeout
  });

  it("starts its workers without the host process's flags: a loader among them would load again in each worker", async () => {
    const { execFileSync } = await import('node:child_process');
    const { existsSync, mkdtempSync, rmSync, writeFileSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const dir = mkdtempSync(path.join(tmpdir(), 'pool-argv-'));
    try {
      const mark = path.join(dir, 'loaded-in-a-worker');
      const preload = path.join(dir, 'preload.cjs');
      writeFileSync(preload, `if (!require('node:worker_threads').isMainThread) require('node:fs').appendFileSync(${JSON.stringify(mark)}, 'x');`);
      const script = `const { OutlinePool } = require(${JSON.stringify(path.join(REPO, 'src/core/context/node/outlinePool.ts'))}); const p = new OutlinePool({ grammarsDir: ${JSON.stringify(REPO)}, size: 1, parallel: 1 }); p.outline('int x(void) { return 0; }\\n', 'c').then((ex) => { console.log(ex.symbols.map((s) => s.name).join()); return p.close(); });`;
      const out = execFileSync(process.execPath, ['-r', 'tsx/cjs', '-r', preload, '-e', script], { cwd: REPO, encoding: 'utf8', timeout: 20_000 });
      assert.equal(out.trim(), 'x', 'the worker answered');
      assert.equal(existsSync(mark), false, "the host's --require ran in the worker");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a worker started after the idle ones ended compiles nothing: it takes the modules they compiled, until they go', async () => {
    const quick = new OutlinePool({ grammarsDir: REPO, size: 1, parallel: 1, idleMs: 50, keepCompiledMs: 400 });
    try {
      const text = cSource(20_000);
      const before = await quick.outline(text, 'c');
      assert.deepEqual(quick.compiledFiles.sort(), ['tree-sitter-c.wasm', 'tree-sitter.wasm']);
      const compiles = quick.compiles;
      for (let i = 0; i < 100 && quick.workers; i++) await new Promise((r) => setTimeout(r, 20));
      assert.equal(quick.workers, 0, 'the idle worker ended');
      assert.deepEqual(await quick.outline(text, 'c'), before, 'a fresh worker, the same outline');
      assert.equal(quick.compiles, compiles, 'the fresh worker compiled no module');
      await quick.outline('def f():\n  pass\n', 'python');
      assert.equal(quick.compiles, compiles + 1, 'a new grammar is compiled once, and shared');
      for (let i = 0; i < 100 && quick.compiledFiles.length; i++) await new Promise((r) => setTimeout(r, 20));
      assert.equal(quick.workers, 0);
      assert.deepEqual(quick.compiledFiles, [], 'the modules go keepCompiledMs after the last worker ended');
      await quick.outline(text, 'c');
      assert.equal(quick.compiles, compiles + 3, 'and the next worker compiles again');
    } finally {
      await quick.close();
    }
  });

  it('after close, outlines are refused with a clear error', async () => {
    await pool.close();
    await assert.rejects(pool.outline('int x;', 'c'), /closed/);
  });
});
