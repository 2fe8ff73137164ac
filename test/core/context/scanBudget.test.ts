/**
 * The body readers on crafted texts. Their budget of steps (src/core/context/scanBudget.ts): a text whose heads
 * never close (or nest ever deeper) is read in time linear in its length, where each head's scan to the text's end
 * made the readers quadratic (a 300 KB file of `function f() {` lines: 28 s); a spent budget ends the reading and
 * keeps what was found before; this repository's own sources take far fewer steps than the bound. And literals
 * nested without end (`${` in `${` …) end the reading instead of overflowing the stack (literals.ts nestedLiteral).
 */
import { strict as assert } from 'node:assert';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { bashFunctionBodies } from '../../../src/core/context/bashBodies';
import { cppFunctionBodies } from '../../../src/core/context/cppBodies';
import { goFunctionBodies } from '../../../src/core/context/goBodies';
import { jsFunctionBodies } from '../../../src/core/context/jsBodies';
import { phpFunctionBodies } from '../../../src/core/context/phpBodies';
import { rubyMethodBodies } from '../../../src/core/context/rubyBodies';
import { rustFunctionBodies } from '../../../src/core/context/rustBodies';
import { SCAN_STEPS_PER_CHAR, ScanBudget } from '../../../src/core/context/scanBudget';
import { emptyCsharpMethodBodies } from '../../../src/core/context/csharpBodies';
import { emptyPythonFunctionBodies } from '../../../src/core/context/pythonBodies';

type Reader = (text: string, budget?: ScanBudget) => [number, number][];
/** Each reader with heads a crafted text repeats: one whose body never closes, one whose parameters never do. */
const READERS: [string, Reader, string[]][] = [
  ['javascript', jsFunctionBodies, ['function f() {\n', 'function f(\n']],
  ['rust', rustFunctionBodies, ['fn f() {\n', 'fn f(\n']],
  ['cpp', cppFunctionBodies, ['int f() {\n', 'int f(\n']],
  ['php', phpFunctionBodies, ['function f() {\n', 'function f(\n']],
  ['go', goFunctionBodies, ['func f() {\n', 'func f(\n']],
  ['ruby', rubyMethodBodies, ['def f\n', 'def f(\n']],
  ['bash', bashFunctionBodies, ['f() {\n', 'function f {\n']],
];

function cpuMs(fn: () => void): number {
  const c0 = process.cpuUsage();
  fn();
  const c = process.cpuUsage(c0);
  return (c.user + c.system) / 1000;
}

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = path.join(dir, name);
    return statSync(p).isDirectory() ? sources(p) : p.endsWith('.ts') ? [p] : [];
  });
}

describe('core/context scanBudget (the body readers stay linear on crafted texts)', function () {
  this.timeout(120_000);

  for (const [language, read, heads] of READERS) {
    it(`${language}: 500 KB of heads that never close, flat and nested ever deeper, read in linear time`, () => {
      for (const head of heads) {
        const prefix = language === 'php' ? '<?php\n' : '';
        const flat = prefix + head.repeat(Math.floor(500_000 / head.length));
        // a staircase: each head one blank deeper, ~500 KB in all
        const stair = prefix + Array.from({ length: 1000 }, (_, k) => ' '.repeat(k) + head).join('');
        for (const [form, text] of [['flat', flat], ['nested', stair]] as const) {
          const budget = new ScanBudget(text.length);
          const ms = cpuMs(() => read(text, budget));
          assert.ok(budget.spent <= SCAN_STEPS_PER_CHAR * text.length + (1 << 20) + text.length, `${form} ${JSON.stringify(head)}: ${budget.spent} steps`);
          // the code before took minutes here (a 300 KB flat JavaScript text: 28 s)
          assert.ok(ms < 5000, `${form} ${JSON.stringify(head)} took ${ms.toFixed(0)} ms of CPU`);
        }
      }
    });
  }

  it('a spent budget ends the reading: the bodies found before it are kept, none after', () => {
    const fn = (i: number) => `func f${i}() {\n\tx := ${i}\n\t_ = x\n}\n\n`;
    const text = Array.from({ length: 200 }, (_, i) => fn(i)).join('');
    const all = goFunctionBodies(text);
    assert.equal(all.length, 200);
    const some = goFunctionBodies(text, new ScanBudget(text.length, Math.floor(text.length / 2)));
    assert.ok(some.length > 50 && some.length < 150, `${some.length} of 200`);
    assert.deepEqual(some, all.slice(0, some.length));
    const ruby = Array.from({ length: 200 }, (_, i) => `def m${i}\n  ${i}\nend\n\n`).join('');
    const part = rubyMethodBodies(ruby, new ScanBudget(ruby.length, Math.floor(ruby.length / 2)));
    assert.deepEqual(part, rubyMethodBodies(ruby).slice(0, part.length));
    assert.ok(part.length > 20 && part.length < 200, `${part.length} of 200`);
  });

  it("this repository's own sources take about a step per character, far below the bound", () => {
    const root = path.join(__dirname, '../../../src');
    let worst = 0;
    let worstFile = '';
    for (const file of sources(root)) {
      const text = readFileSync(file, 'utf8');
      const budget = new ScanBudget(text.length);
      jsFunctionBodies(text, budget);
      const perChar = budget.spent / Math.max(1, text.length);
      if (perChar > worst) [worst, worstFile] = [perChar, file];
    }
    assert.ok(worst < SCAN_STEPS_PER_CHAR / 4, `${path.relative(root, worstFile)}: ${worst.toFixed(2)} steps a character`);
  });

  it('interpolations nested without end (400 KB of `${`, `#{`, `{$`, `$(`…) end the reading, not the stack; the bodies before them are kept', () => {
    const before = (head: string, body: string, tail: string) => `${head}${body}${tail}`;
    const cases: [string, (t: string) => unknown, string, string][] = [
      ['javascript', jsFunctionBodies, before('function a() {\n', '  return 1;\n', '}\n'), 'x = `${'],
      ['php', phpFunctionBodies, before('<?php\nfunction a()\n{\n', '    return 1;\n', '}\n'), '$a = "{$b['],
      ['ruby', rubyMethodBodies, before('def a\n', '  1\n', 'end\n'), 'x = "#{'],
      ['bash', bashFunctionBodies, before('a() {\n', '  echo 1\n', '}\n'), 'x="$('],
      ['bash', bashFunctionBodies, before('a() {\n', '  echo 1\n', '}\n'), 'x=${'],
    ];
    for (const [language, read, first, unit] of cases) {
      const text = first + unit.repeat(Math.floor(400_000 / unit.length)) + '\n';
      const found = read(text) as [number, number][];
      assert.equal(found.length, 1, `${language} ${JSON.stringify(unit)}`);
    }
    // the readers that take a whole text and say undefined when there is nothing certain
    assert.doesNotThrow(() => emptyCsharpMethodBodies('class A { void f() { var s = $"{'.repeat(12_000)));
    assert.doesNotThrow(() => emptyPythonFunctionBodies('def f():\n    x = f"{' + 'f"{'.repeat(130_000)));
  });
});
