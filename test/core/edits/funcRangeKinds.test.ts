/**
 * be-func-range names a construct with one word whichever parser found it: the bundled tree-sitter grammar (the
 * SymbolLocator port, whose outline says `constructor`, `interface`, `struct`, `module`, …) or the brace,
 * indentation and keyword analyzers. Each line below is asked of both on the same file.
 */
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { treeSitterSymbols } from '../../../src/core/context/structure';
import { packagedGrammars, TreeSitterParsers } from '../../../src/core/context/node/treeSitter';
import { FUNCTION_KINDS, functionKindOf } from '../../../src/core/edits/functions/kinds';
import { EditService, type SymbolLocator } from '../../../src/core/edits/service';
import { NodeFileStore } from '../../../src/core/files/nodeFileStore';
import { Sandbox } from '../../../src/core/files/sandbox';

const src = (...lines: string[]) => lines.join('\n') + '\n';

/** file → source, and per asked line the range and kind both parsers must answer. */
const CASES: Array<{ file: string; text: string; expect: Array<[line: number, start: number, end: number, kind: string]> }> = [
  {
    file: 'cart.ts',
    text: src(
      'export interface Shape {', // 1
      '  name: string;', // 2
      '}', // 3
      'export class Cart {', // 4
      '  constructor(private n: number) {', // 5
      '    this.n = n;', // 6
      '  }', // 7
      '  add(p: number): void {', // 8
      '    this.n += p;', // 9
      '  }', // 10
      '}', // 11
      'export function total(a: number) {', // 12
      '  return a;', // 13
      '}', // 14
      'enum Color {', // 15
      '  Red,', // 16
      '}', // 17
      'namespace NS {', // 18
      '  let y = 1;', // 19
      '}', // 20
      'type Opts = {', // 21
      '  a: number;', // 22
      '};', // 23
      'const cfg = {', // 24
      '  a: 1,', // 25
      '};', // 26
    ),
    expect: [
      [2, 1, 3, 'class'], [6, 5, 7, 'method'], [9, 8, 10, 'method'], [11, 4, 11, 'class'], [13, 12, 14, 'function'],
      [16, 15, 17, 'class'], [18, 18, 20, 'block'], [22, 21, 23, 'class'], [25, 24, 26, 'block'],
    ],
  },
  {
    file: 'Cart.java',
    text: src('interface Shape {', '  int SIZE = 1;', '}', 'class Cart {', '  Cart(int n) {', '    this.n = n;', '  }', '  void add(int p) {', '    n += p;', '  }', '}', 'enum Color {', '  RED;', '}'),
    expect: [[2, 1, 3, 'class'], [6, 5, 7, 'method'], [9, 8, 10, 'method'], [13, 12, 14, 'class']],
  },
  {
    file: 'cart.py',
    text: src('class Cart:', '    def __init__(self, n):', '        self.n = n', '', '    def add(self, p):', '        self.n += p', '', '', 'def total(a):', '    return a'),
    expect: [[3, 2, 3, 'method'], [6, 5, 6, 'method'], [4, 1, 6, 'class'], [10, 9, 10, 'function']],
  },
  {
    file: 'cart.go',
    text: src('package m', '', 'type Shape interface {', '\tArea() float64', '}', '', 'type Cart struct {', '\tn int', '}', '', 'func Total(a int) int {', '\treturn a', '}'),
    expect: [[4, 3, 5, 'class'], [8, 7, 9, 'class'], [12, 11, 13, 'function']],
  },
  {
    file: 'cart.rs',
    text: src('trait Shape {', '    // sides', '}', 'struct Cart {', '    n: i32,', '}', 'impl Cart {', '    fn add(&mut self, p: i32) {', '        self.n += p;', '    }', '}', 'mod inner {', '    fn f() {}', '}'),
    expect: [[2, 1, 3, 'class'], [5, 4, 6, 'class'], [9, 8, 10, 'method'], [11, 7, 11, 'class'], [12, 12, 14, 'block']],
  },
  {
    file: 'Cart.cs',
    text: src('namespace N {', '  interface IShape {', '    int Size { get; }', '  }', '  class Cart {', '    public Cart(int n) {', '      this.n = n;', '    }', '  }', '  struct P {', '    int x;', '  }', '}'),
    expect: [[1, 1, 13, 'block'], [7, 6, 8, 'method'], [11, 10, 12, 'class']],
  },
  {
    file: 'cart.rb',
    text: src('module Shop', '  class Cart', '    def initialize(n)', '      @n = n', '    end', '  end', '', '  def helper', '    1', '  end', 'end'),
    expect: [[4, 3, 5, 'method'], [7, 1, 11, 'block'], [9, 8, 10, 'function']],
  },
  {
    file: 'cart.php',
    text: src('<?php', 'class Cart {', '  function __construct($n) {', '    $this->n = $n;', '  }', '}', 'function total($a) {', '  return $a;', '}'),
    expect: [[4, 3, 5, 'method'], [8, 7, 9, 'function']],
  },
  {
    file: 'point.c',
    text: src('struct point {', '  int x;', '};', 'int total(int a) {', '  return a;', '}'),
    expect: [[2, 1, 3, 'class'], [5, 4, 6, 'function']],
  },
];

describe('be-func-range: one kind vocabulary for the tree-sitter grammar and the fallback analyzers', function () {
  this.timeout(60000);
  let dir: string;
  let located: string[];
  let withGrammar: EditService;
  let analyzersOnly: EditService;

  before(async () => {
    dir = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'be-kinds-')));
    for (const c of CASES) await fs.writeFile(path.join(dir, c.file), c.text);
    const grammar = treeSitterSymbols(new TreeSitterParsers(packagedGrammars));
    located = [];
    const recording: SymbolLocator = {
      enclosing: async (text, line, lang) => {
        const r = await grammar.enclosing(text, line, lang);
        if (r) located.push(r.kind);
        return r;
      },
      byName: grammar.byName,
    };
    withGrammar = new EditService({ files: new NodeFileStore(), sandbox: new Sandbox([dir]), symbols: recording });
    analyzersOnly = new EditService({ files: new NodeFileStore(), sandbox: new Sandbox([dir]) });
  });
  after(() => fs.rm(dir, { recursive: true, force: true }));

  for (const c of CASES) {
    it(`${c.file}: the same range and kind from both parsers`, async () => {
      located.length = 0;
      for (const [line, start, end, kind] of c.expect) {
        const ts = await withGrammar.funcRange({ file: c.file, line });
        const fallback = await analyzersOnly.funcRange({ file: c.file, line });
        const want = { start, end, kind };
        assert.deepEqual({ start: ts.start, end: ts.end, kind: ts.kind }, want, `${c.file}:${line} with the grammar`);
        assert.deepEqual({ start: fallback.start, end: fallback.end, kind: fallback.kind }, want, `${c.file}:${line} analyzers`);
      }
      // the grammar really answered every line (not the analyzers behind it)
      assert.equal(located.length, c.expect.length, `${c.file}: the grammar located ${located.length} of ${c.expect.length}`);
    });
  }

  it('the grammar path spoke in its own words, which the reply never shows', () => {
    const words = new Set<string>();
    for (const k of ['constructor', 'interface', 'struct', 'enum', 'impl', 'module', 'type', 'const', 'test']) words.add(functionKindOf(k));
    assert.deepEqual([...words].sort(), [...FUNCTION_KINDS].sort());
    assert.equal(functionKindOf('something new'), 'block');
    assert.equal(functionKindOf(undefined), 'block');
  });
});
