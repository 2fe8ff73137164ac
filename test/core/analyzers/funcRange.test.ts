import assert from 'node:assert/strict';
import { classifyHeader, findFunctionByName, findFunctionRange } from '../../../src/core/edits/funcRange';
import { cpuMs } from '../../cpuTime';

const src = (...lines: string[]) => lines.join('\n') + '\n';

describe('analyzers: findFunctionRange', () => {
  describe('TypeScript / JavaScript', () => {
    const ts = src(
      "import x from 'y';", // 1
      '', // 2
      '/** doc comment: not part of the range */', // 3
      'export class Foo extends Bar {', // 4
      '  private x = 1', // 5
      '  @Dec()', // 6
      '  async method(a: number): Promise<void> {', // 7
      '    const f = (y) => {', // 8
      "      return y + '}';", // 9
      '    };', // 10
      '    if (a) {', // 11
      '      f(a);', // 12
      '    }', // 13
      '  }', // 14
      '  other() { return 2; }', // 15
      '}', // 16
      '', // 17
      'const arrow = async (x) => {', // 18
      '  // a { in a comment', // 19
      '  return `${x} {`;', // 20
      '};', // 21
      'arrow(1);', // 22
    );
    it('a method line gives the method, decorator included, doc comment excluded', () => {
      assert.deepEqual(findFunctionRange(ts, 12, 'typescript'), { start: 6, end: 14, kind: 'method', name: 'method' });
      assert.deepEqual(findFunctionRange(ts, 6, 'typescript'), { start: 6, end: 14, kind: 'method', name: 'method' });
    });
    it('a nested arrow function is the innermost function', () => {
      assert.deepEqual(findFunctionRange(ts, 9, 'typescript'), { start: 8, end: 10, kind: 'function', name: 'f' });
    });
    it('an if block inside a method gives the method, not the block', () => {
      assert.deepEqual(findFunctionRange(ts, 13, 'typescript'), { start: 6, end: 14, kind: 'method', name: 'method' });
    });
    it('a class body line outside methods gives the class (doc comment excluded)', () => {
      assert.deepEqual(findFunctionRange(ts, 5, 'typescript'), { start: 4, end: 16, kind: 'class', name: 'Foo' });
    });
    it('one-line methods, arrow functions with braces in strings and comments', () => {
      assert.deepEqual(findFunctionRange(ts, 15, 'typescript'), { start: 15, end: 15, kind: 'method', name: 'other' });
      assert.deepEqual(findFunctionRange(ts, 20, 'typescript'), { start: 18, end: 21, kind: 'function', name: 'arrow' });
    });
    it('a line outside every block gives undefined', () => {
      assert.equal(findFunctionRange(ts, 22, 'typescript'), undefined);
      assert.equal(findFunctionRange(ts, 2, 'typescript'), undefined);
    });
    it('object literal methods, callbacks, and the outermost block as the last resort', () => {
      const js = src('const obj = {', '  a: 1,', '  method() {', '    return 1;', '  },', '};', "describe('x', () => {", "  it('y', () => {", '    go();', '  });', '});');
      assert.deepEqual(findFunctionRange(js, 4, 'javascript'), { start: 3, end: 5, kind: 'method', name: 'method' });
      assert.deepEqual(findFunctionRange(js, 2, 'javascript'), { start: 1, end: 6, kind: 'block' });
      assert.deepEqual(findFunctionRange(js, 9, 'javascript'), { start: 8, end: 10, kind: 'function' });
    });
    it('type literals in generics and return types do not hide the signature', () => {
      const t = src('function f<T extends { a: number }>(x: T): { b: string } {', "  return { b: 'x' };", '}', 'class A {', '  m(): { a: 1 } | null {', '    return null;', '  }', '}');
      assert.deepEqual(findFunctionRange(t, 2, 'typescript'), { start: 1, end: 3, kind: 'function', name: 'f' });
      assert.deepEqual(findFunctionRange(t, 6, 'typescript'), { start: 5, end: 7, kind: 'method', name: 'm' });
    });
    it('statements without semicolons before a function do not join its signature', () => {
      const js = src('const a = 1', 'function foo() {', '  return a', '}');
      assert.deepEqual(findFunctionRange(js, 3, 'javascript'), { start: 2, end: 4, kind: 'function', name: 'foo' });
    });
  });

  it('Go: functions with receivers are methods; func literals are functions', () => {
    const go = src('package main', '', 'import "fmt"', 'func (r *Repo) Save(x int) (int, error) {', '\tif x > 0 {', '\t\treturn 1, nil', '\t}', '\treturn 0, nil', '}', 'func main() {', '\tgo func() {', '\t\tfmt.Println("}")', '\t}()', '}');
    assert.deepEqual(findFunctionRange(go, 6, 'go'), { start: 4, end: 9, kind: 'method', name: 'Save' });
    assert.deepEqual(findFunctionRange(go, 12, 'go'), { start: 11, end: 13, kind: 'function' });
    assert.deepEqual(findFunctionRange(go, 10, 'go'), { start: 10, end: 14, kind: 'function', name: 'main' });
    assert.deepEqual(findFunctionByName(go, 'Repo.Save', 'go'), { start: 4, end: 9, kind: 'method', name: 'Save' });
  });

  it('Rust: impl blocks, attributes and where clauses', () => {
    const rust = src('#[derive(Debug)]', 'struct P { x: i32 }', '', 'impl fmt::Display for P {', "    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {", '        write!(f, "{}", self.x)', '    }', '}', '', 'impl P {', '    #[inline]', '    pub fn new(x: i32) -> Self', '    where', '        Self: Sized,', '    {', '        P { x }', '    }', '}');
    assert.deepEqual(findFunctionRange(rust, 6, 'rust'), { start: 5, end: 7, kind: 'method', name: 'fmt' });
    assert.deepEqual(findFunctionRange(rust, 16, 'rust'), { start: 11, end: 17, kind: 'method', name: 'new' });
    assert.deepEqual(findFunctionRange(rust, 2, 'rust'), { start: 1, end: 2, kind: 'class', name: 'P' });
    assert.equal(findFunctionRange(rust, 9, 'rust'), undefined);
    assert.deepEqual(findFunctionByName(rust, 'P::new', 'rust'), { start: 11, end: 17, kind: 'method', name: 'new' });
  });

  it('Java: annotations, throws on the next line, anonymous classes', () => {
    const java = src('public class Svc {', '    @Override', '    public String toString() {', '        return "Svc{";', '    }', '', '    public static <T> List<T> many(T a, T b)', '        throws Exception {', '        Runnable r = new Runnable() {', '            public void run() { go(); }', '        };', '        return List.of(a, b);', '    }', '}');
    assert.deepEqual(findFunctionRange(java, 4, 'java'), { start: 2, end: 5, kind: 'method', name: 'toString' });
    assert.deepEqual(findFunctionRange(java, 12, 'java'), { start: 7, end: 13, kind: 'method', name: 'many' });
    assert.deepEqual(findFunctionRange(java, 10, 'java'), { start: 10, end: 10, kind: 'method', name: 'run' });
    assert.deepEqual(findFunctionRange(java, 6, 'java'), { start: 1, end: 14, kind: 'class', name: 'Svc' });
  });

  it('C: GNU-style return type line, Allman braces, preprocessor, structs', () => {
    const c = src('#include <stdio.h>', '', 'static int', 'add(int a, int b)', '{', '    return a + b;', '}', '', 'struct point { int x; int y; };', 'int main(void) {', '    for (int i = 0; i < 3; i++) {', '        printf("%d\\n", add(i, 1));', '    }', '    return 0;', '}');
    assert.deepEqual(findFunctionRange(c, 6, 'c'), { start: 3, end: 7, kind: 'function', name: 'add' });
    assert.deepEqual(findFunctionRange(c, 12, 'c'), { start: 10, end: 15, kind: 'function', name: 'main' });
    assert.deepEqual(findFunctionRange(c, 9, 'c'), { start: 9, end: 9, kind: 'class', name: 'point' });
    assert.deepEqual(findFunctionByName(c, 'add', 'c'), { start: 3, end: 7, kind: 'function', name: 'add' });
  });

  it('C#: attributes and constructors with base calls; C++ qualified methods', () => {
    const cs = src('namespace A', '{', '    public class B', '    {', '        [HttpGet]', '        public async Task<int> Get(int id)', '        {', '            return id;', '        }', '        public B(int x) : base(x)', '        {', '        }', '    }', '}');
    assert.deepEqual(findFunctionRange(cs, 8, 'csharp'), { start: 5, end: 9, kind: 'method', name: 'Get' });
    assert.deepEqual(findFunctionRange(cs, 11, 'csharp'), { start: 10, end: 12, kind: 'method', name: 'B' });
    const cpp = src('int Foo::bar(int x) const {', '    return x;', '}');
    assert.deepEqual(findFunctionByName(cpp, 'Foo::bar', 'cpp'), { start: 1, end: 3, kind: 'method', name: 'bar' });
  });

  it('shell functions in both syntaxes', () => {
    const sh = src('#!/bin/bash', '# comment {', 'greet() {', '  echo "hi $1 }"', '}', '', 'function bye {', '  local x=${1:-none}', '}', 'greet "me"');
    assert.deepEqual(findFunctionRange(sh, 4, 'shellscript'), { start: 3, end: 5, kind: 'function', name: 'greet' });
    assert.deepEqual(findFunctionRange(sh, 8, 'shellscript'), { start: 7, end: 9, kind: 'function', name: 'bye' });
    assert.equal(findFunctionRange(sh, 10, 'shellscript'), undefined);
  });

  it('PHP: class methods with attributes, functions, closures', () => {
    const php = src('<?php', 'class User {', '    #[Route("/x")]', '    public function name(): string {', '        return $this->name;', '    }', '}', 'function helper($a) {', '    $b = 1;', '    return array_map(function ($x) { return $x * 2; }, $a);', '}');
    assert.deepEqual(findFunctionRange(php, 5, 'php'), { start: 3, end: 6, kind: 'method', name: 'name' });
    assert.deepEqual(findFunctionRange(php, 9, 'php'), { start: 8, end: 11, kind: 'function', name: 'helper' });
    assert.deepEqual(findFunctionRange(php, 10, 'php'), { start: 10, end: 10, kind: 'function' });
  });

  it('Ruby: def … end inside classes and modules; blocks, modifiers and loops do not confuse the ends', () => {
    const rb = src('module Shop', '  class Cart', '    def initialize(items)', '      @items = items', '    end', '', '    def total', '      sum = 0', '      @items.each do |i|', '        sum += i.price if i.active?', '      end', '      while sum > 100 do', '        sum -= 1', '      end', '      sum', '    end', '', '    def self.empty? = true', '  end', 'end', 'puts "end"');
    assert.deepEqual(findFunctionRange(rb, 4, 'ruby'), { start: 3, end: 5, kind: 'method', name: 'initialize' });
    assert.deepEqual(findFunctionRange(rb, 13, 'ruby'), { start: 7, end: 16, kind: 'method', name: 'total' });
    assert.deepEqual(findFunctionRange(rb, 18, 'ruby'), { start: 2, end: 19, kind: 'class', name: 'Cart' });
    assert.equal(findFunctionRange(rb, 21, 'ruby'), undefined);
    assert.deepEqual(findFunctionByName(rb, 'Cart.total', 'ruby'), { start: 7, end: 16, kind: 'method', name: 'total' });
  });

  it('Lua: function … end with if/for/repeat inside, methods with :', () => {
    const lua = src('local M = {}', 'function M.add(a, b)', '  if a > b then', '    return a', '  end', '  for i = 1, 3 do', '    print(i)', '  end', '  return a + b', 'end', 'local function helper()', '  repeat', '    x = x + 1', '  until x > 3', 'end', 'function Account:deposit(v)', '  self.balance = self.balance + v', 'end', 'return M');
    assert.deepEqual(findFunctionRange(lua, 7, 'lua'), { start: 2, end: 10, kind: 'function', name: 'add' });
    assert.deepEqual(findFunctionRange(lua, 13, 'lua'), { start: 11, end: 15, kind: 'function', name: 'helper' });
    assert.deepEqual(findFunctionRange(lua, 17, 'lua'), { start: 16, end: 18, kind: 'method', name: 'deposit' });
    assert.equal(findFunctionRange(lua, 19, 'lua'), undefined);
  });

  describe('Python (indentation)', () => {
    const py = src(
      'import os', // 1
      '', // 2
      '', // 3
      '@dataclass', // 4
      'class Config:', // 5
      '    """Doc with def fake(): and a { brace."""', // 6
      '', // 7
      '    name: str = "x"', // 8
      '', // 9
      '    @property', // 10
      '    def upper(self):', // 11
      '        return self.name.upper()', // 12
      '', // 13
      '    async def fetch(self, url,', // 14
      '                    timeout=3):', // 15
      '        def helper(x):', // 16
      '            return x + 1', // 17
      '        # a comment in the body', // 18
      '', // 19
      '        return helper(1)', // 20
      '# top-level comment', // 21
      '', // 22
      'def main():', // 23
      '    s = """', // 24
      'def not_a_function():', // 25
      '    pass', // 26
      '"""', // 27
      '    return s', // 28
      '', // 29
      'main()', // 30
    );
    it('methods with decorators, multi-line signatures, nested defs', () => {
      assert.deepEqual(findFunctionRange(py, 12, 'python'), { start: 10, end: 12, kind: 'method', name: 'upper' });
      assert.deepEqual(findFunctionRange(py, 15, 'python'), { start: 14, end: 20, kind: 'method', name: 'fetch' });
      assert.deepEqual(findFunctionRange(py, 17, 'python'), { start: 16, end: 17, kind: 'function', name: 'helper' });
      assert.deepEqual(findFunctionRange(py, 19, 'python'), { start: 14, end: 20, kind: 'method', name: 'fetch' });
    });
    it('class body lines give the class, decorators included', () => {
      assert.deepEqual(findFunctionRange(py, 8, 'python'), { start: 4, end: 20, kind: 'class', name: 'Config' });
    });
    it('multi-line strings do not end a block nor define functions', () => {
      assert.deepEqual(findFunctionRange(py, 26, 'python'), { start: 23, end: 28, kind: 'function', name: 'main' });
      assert.equal(findFunctionByName(py, 'not_a_function', 'python'), undefined);
    });
    it('top-level lines give undefined', () => {
      assert.equal(findFunctionRange(py, 21, 'python'), undefined);
      assert.equal(findFunctionRange(py, 30, 'python'), undefined);
    });
    it('by name, qualified by class', () => {
      assert.deepEqual(findFunctionByName(py, 'Config.fetch', 'python'), { start: 14, end: 20, kind: 'method', name: 'fetch' });
      assert.equal(findFunctionByName(py, 'Other.fetch', 'python'), undefined);
    });
  });

  describe('findFunctionByName', () => {
    const ts = src('run(1);', 'const x = run(2) + 1;', '', 'export async function run(n: number) {', '  return n;', '}', 'const twice = (n) => n * 2;', 'const obj = { run() { return 0; } };');
    it('flaw: the first line containing name( is a call, not the definition', () => {
      assert.deepEqual(findFunctionByName(ts, 'run', 'typescript'), { start: 4, end: 6, kind: 'function', name: 'run' });
    });
    it('expression-bodied arrow functions assigned to a name', () => {
      assert.deepEqual(findFunctionByName(ts, 'twice', 'typescript'), { start: 7, end: 7, kind: 'function', name: 'twice' });
    });
    it('unknown names give undefined', () => assert.equal(findFunctionByName(ts, 'nothing', 'typescript'), undefined));
    it('names are matched literally: regex-shaped names find nothing, `$` names are found, a long name is no error', () => {
      const code = src('const $fetch = async (url) => get(url);', 'const twice = (n) => n * 2;', 'let aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa = 1;');
      for (const name of ['[a-z]+', '((\\w+)+)+Q', 'tw(i)ce', 'tw?ice', 'tw\\w+', '(?:twice)', '*', '^', 'twic', 'wice']) {
        const { ms, value } = cpuMs(() => findFunctionByName(code, name, 'typescript'));
        assert.equal(value, undefined, name);
        assert.ok(ms < 100, `${name} took ${ms.toFixed(0)} ms of CPU`);
      }
      assert.deepEqual(findFunctionByName(code, '$fetch', 'typescript'), { start: 1, end: 1, kind: 'function', name: '$fetch' });
      assert.deepEqual(findFunctionByName(code, 'twice', 'javascript'), { start: 2, end: 2, kind: 'function', name: 'twice' });
      assert.equal(findFunctionByName(code, 'x'.repeat(100 * 1024), 'typescript'), undefined);
      assert.equal(findFunctionByName(code, '('.repeat(100 * 1024), 'typescript'), undefined);
    });
    it('the name search stays linear on a 4 MiB minified line with the name everywhere', () => {
      const lineOf = (n: number) => 'var a=1,b=function(){return a};'.repeat(n) + 'const a2 = (x) => x;';
      // CPU time, least of 3 (a parallel test worker or a busy machine cannot add to it); a quarter of the line
      // is the baseline: linear work takes ~4 times as long on the whole line, quadratic work 16 times
      const least = (line: string) => Math.min(...[0, 1, 2].map(() => cpuMs(() => assert.equal(findFunctionByName(line, 'a', 'javascript'), undefined)).ms));
      const quarter = least(lineOf(32_500));
      const whole = least(lineOf(130_000));
      assert.ok(whole < 1500, `took ${whole.toFixed(0)} ms of CPU`);
      assert.ok(whole < 8 * Math.max(quarter, 10), `4 MiB took ${whole.toFixed(0)} ms of CPU, 1 MiB ${quarter.toFixed(0)} ms: not linear`);
    });
  });

  it('classifyHeader recognises the common forms', () => {
    assert.equal(classifyHeader('if (a)').kind, 'block');
    assert.equal(classifyHeader('} else if (b)').kind, 'block');
    assert.deepEqual(classifyHeader('public static void main(String[] args) throws IOException'), { kind: 'function', name: 'main', owner: undefined, method: false });
    assert.deepEqual(classifyHeader('type S struct'), { kind: 'class', name: 'S' });
    assert.equal(classifyHeader('const o =').kind, 'block');
    assert.equal(classifyHeader('x = foo(a)').kind, 'block');
    assert.equal(classifyHeader('namespace App').kind, 'container');
  });
});
