import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { enclosingSymbol, findSymbol, structure } from '../../../src/core/context/structure';
import { renderStructureText } from '../../../src/core/context/render';
import { GRAMMAR_FILES, packagedGrammars, TreeSitterParsers } from '../../../src/core/context/node/treeSitter';
import type { OutlineSymbol } from '../../../src/core/context/types';
import { languageIdFromPath } from '../../../src/core/text/languages';
import { getTokenizer } from '../../../src/core/memory/node/tokenizer';
import { cpuMsAsync } from '../../cpuTime';
const parsers = new TreeSitterParsers(packagedGrammars);

const FIXTURES = join(__dirname, '../../fixtures/context');
const noTokens = { count: () => 0 };

function flatten(xs: OutlineSymbol[] | undefined, pre = ''): string[] {
  const out: string[] = [];
  for (const x of xs ?? []) {
    out.push(`${pre}${x.kind} ${x.name} ${x.start}-${x.end}`);
    out.push(...flatten(x.children, pre + '  '));
  }
  return out;
}

// Every symbol of every fixture, nested by indentation, with its exact 1-based line range.
const EXPECTED: Record<string, { source: string; imports: string[]; symbols: string[] }> = {
  'Sample.java': { source: 'tree-sitter', imports: ["java.util.List","java.util.ArrayList"], symbols: [
      'class OrderService 7-23',
      '  constructor OrderService 10-11',
      '  method add 14-16',
      '  interface Listener 18-20',
      '    method onAdd 19-19',
      '  enum Kind 22-22',
    ] },
  'sample.c': { source: 'tree-sitter', imports: ["stdio.h","order.h"], symbols: [
      'struct order 5-8',
      'type order_t 10-10',
      'enum status 12-12',
      'function order_total 15-17',
      'function print_order 19-21',
    ] },
  'sample.cpp': { source: 'tree-sitter', imports: ["string","vector"], symbols: [
      'module shop 4-31',
      '  class Cart 7-15',
      '    method Cart 9-9',
      '    method add 10-10',
      '    method size 11-11',
      '  function Cart::size 17-19',
      '  struct Point 21-24',
      '  function max_of 26-29',
    ] },
  'sample.cs': { source: 'tree-sitter', imports: ["System","System.Collections.Generic"], symbols: [
      'module Shop.Orders 4-31',
      '  class Order 7-21',
      '    constructor Order 11-14',
      '    method Total 17-20',
      '  interface IStore 23-26',
      '    method Get 25-25',
      '  enum Status 28-28',
      '  struct Point 30-30',
    ] },
  'sample.go': { source: 'tree-sitter', imports: ["fmt","strings"], symbols: [
      'const MaxItems 9-9',
      'struct Order 12-15',
      'interface Store 18-20',
      'type ID 22-22',
      'method (*Order).Describe 25-27',
      'function NewOrder 29-31',
    ] },
  'sample.js': { source: 'tree-sitter', imports: ["path"], symbols: [
      'const fs 1-1',
      'class Cart 5-13',
      '  constructor constructor 6-8',
      '  method add 10-12',
      'function total 15-17',
      'function square 19-19',
    ] },
  'sample.json': { source: 'json', imports: [], symbols: [
      'key name 2-2',
      'key version 3-3',
      'key scripts 4-7',
      '  key build 5-5',
      '  key test 6-6',
      'key deps 8-8',
    ] },
  'sample.md': { source: 'markdown', imports: [], symbols: [
      'heading Title 1-14',
      '  heading Install 5-12',
      '    heading Options 12-12',
      '  heading Usage 14-14',
    ] },
  'sample.php': { source: 'tree-sitter', imports: ["Shop\\Money"], symbols: [
      'module Shop 2-2',
      'class Order 7-20',
      '  constructor __construct 11-14',
      '  method total 16-19',
      'interface Store 22-25',
      '  method get 24-24',
      'function helper 27-30',
    ] },
  'sample.py': { source: 'tree-sitter', imports: ["os","typing"], symbols: [
      'const MAX_ITEMS 5-5',
      'class Order 8-16',
      '  constructor __init__ 11-12',
      '  method total 14-16',
      'function create_order 19-21',
      'function fetch 24-25',
    ] },
  'sample.rb': { source: 'tree-sitter', imports: ["json","money"], symbols: [
      'module Shop 5-20',
      '  class Order 7-19',
      '    constructor initialize 8-10',
      '    method total 12-14',
      '    method self.build 16-18',
      'function helper 22-24',
    ] },
  'sample.rs': { source: 'tree-sitter', imports: ["std::collections::HashMap","std::fmt"], symbols: [
      'struct Order 5-7',
      'enum Status 9-12',
      'interface Priced 15-17',
      '  method price 16-16',
      'impl Priced for Order 19-23',
      '  method price 20-22',
      'impl Order 25-30',
      '  method new 27-29',
      'function total 32-34',
      'module util 36-38',
      '  function helper 37-37',
      'const LIMIT 40-40',
      'type Map 41-41',
    ] },
  'sample.sh': { source: 'tree-sitter', imports: [], symbols: [
      'function build 5-7',
      'function clean 9-11',
    ] },
  'sample.ts': { source: 'tree-sitter', imports: ["node:fs/promises","node:path"], symbols: [
      'type Cents 5-5',
      'interface Priced 11-13',
      '  method price 12-12',
      'enum Status 15-18',
      'class PriceCalculator 21-32',
      '  method calculate 25-27',
      '  method price 29-31',
      'function formatMoney 34-36',
      'function double 38-38',
      'const LIMIT 40-40',
      'module Internal 42-44',
      '  function helper 43-43',
      'function load 46-48',
    ] },
  'sample.tsx': { source: 'tree-sitter', imports: ["react"], symbols: [
      'interface Props 3-5',
      'function Hello 8-10',
      'function Bye 12-12',
    ] },
  'sample.unknown': { source: 'indent', imports: [], symbols: [
      'block section one { 1-4',
      'block section two { 6-10',
      '  block nested { 7-9',
    ] },
  'sample.yaml': { source: 'yaml', imports: [], symbols: [
      'key name 2-2',
      'key server 3-5',
      '  key port 4-4',
      '  key host 5-5',
      'key items 6-8',
      'key database 9-10',
      '  key url 10-10',
    ] },
};

describe('context/structure', () => {
  for (const [file, want] of Object.entries(EXPECTED)) {
    it(`${file}: every symbol with its exact line range`, async () => {
      const text = readFileSync(join(FIXTURES, file), 'utf8');
      const s = await structure(text, languageIdFromPath(file), { parsers, path: file, tokenizer: noTokens });
      assert.equal(s.source, want.source);
      assert.deepEqual(s.imports, want.imports);
      assert.deepEqual(flatten(s.symbols), want.symbols);
      assert.deepEqual(s.notes, []);
    });
  }

  it('covers every language that has a grammar', () => {
    const covered = new Set(Object.keys(EXPECTED).map(languageIdFromPath));
    for (const lang of Object.keys(GRAMMAR_FILES)) {
      if (lang === 'javascriptreact') continue; // same grammar and rules as javascript
      assert.ok(covered.has(lang), `no fixture for ${lang}`);
    }
  });

  it('gives signatures without bodies and the first doc line', async () => {
    const text = readFileSync(join(FIXTURES, 'sample.ts'), 'utf8');
    const s = await structure(text, 'typescript', { parsers, path: 'sample.ts', tokenizer: noTokens });
    const calc = findSymbol(s.symbols, 'PriceCalculator.calculate')[0]!;
    assert.equal(calc.signature, 'calculate(price: Cents, quantity: number): Cents');
    assert.equal(calc.doc, 'Total for a line.');
    const cls = findSymbol(s.symbols, 'PriceCalculator')[0]!;
    assert.equal(cls.signature, 'class PriceCalculator implements Priced');
    assert.equal(cls.doc, 'Computes order totals.');
    assert.equal(cls.exported, true);
    const iface = findSymbol(s.symbols, 'Priced')[0]!;
    assert.equal(iface.doc, 'Something that can be priced.');
    const py = await structure(readFileSync(join(FIXTURES, 'sample.py'), 'utf8'), 'python', { parsers, tokenizer: noTokens });
    assert.equal(findSymbol(py.symbols, 'Order')[0]!.doc, 'An order with items.');
    assert.equal(findSymbol(py.symbols, 'create_order')[0]!.signature, 'def create_order(user_id: int, items: List[int]) -> Order');
  });

  it('renders a compact text form with leading line ranges, imports and size; a doc does not repeat the name', async () => {
    const text = readFileSync(join(FIXTURES, 'sample.go'), 'utf8');
    const s = await structure(text, 'go', { parsers, path: 'sample.go', tokenizer: getTokenizer() });
    const out = renderStructureText(s);
    const lines = out.split('\n');
    assert.match(lines[0]!, /^sample\.go · go · 31 lines · \d+ tokens$/);
    assert.equal(lines[1], 'imports: fmt, strings');
    assert.ok(lines.includes('25-27 (*Order) Describe() string — formats the order'), out);
    assert.ok(lines.includes('12-15 type Order struct — is a customer order'), out);
    assert.ok(lines.includes('29-31 NewOrder(id string) *Order'), out);
    assert.ok(s.tokens > 50 && !s.tokensEstimated);
  });

  it('answers with what parsed when the source has a syntax error, plus a note', async () => {
    const text = [
      'export function good(a: number): number {',
      '  return a + 1;',
      '}',
      '',
      'export function broken(a: number {',
      '  return a +;',
      '}',
      '',
      'export class StillHere {',
      '  ok(): void {}',
      '}',
    ].join('\n');
    const s = await structure(text, 'typescript', { parsers, tokenizer: noTokens });
    const flat = flatten(s.symbols);
    assert.ok(flat.includes('function good 1-3'), flat.join('\n'));
    assert.ok(flat.some((l) => l.startsWith('class StillHere 9-11')), flat.join('\n'));
    assert.equal(s.notes.length, 1);
    assert.match(s.notes[0]!, /^syntax errors near L\d+/);
    assert.match(renderStructureText(s), /note: syntax errors near/);
  });

  it('keeps the rendering under a token limit by dropping nested levels, then the tail', async () => {
    const many = Array.from({ length: 400 }, (_, i) => `export class C${i} {\n  m${i}(x: number): number { return x; }\n}`).join('\n');
    const tk = getTokenizer();
    const s = await structure(many, 'typescript', { parsers, tokenizer: tk });
    const full = renderStructureText(s);
    assert.ok(tk.count(full) > 2000);
    const capped = renderStructureText(s, { maxTokens: 2000, tokenizer: tk });
    assert.ok(tk.count(capped) <= 2000, `over the limit: ${tk.count(capped)}`);
    assert.match(capped, /more outline lines not shown/);
  });

  it('does not parse texts over the parse limit, says so, and estimates tokens', async () => {
    const text = 'x = 1\n'.repeat(1000);
    const s = await structure(text, 'python', { parsers, tokenizer: noTokens, maxParseChars: 1000, maxExactTokenChars: 100 });
    assert.deepEqual(s.symbols, []);
    assert.equal(s.tokensEstimated, true);
    assert.equal(s.lines, 1000);
    assert.match(s.notes[0]!, /too large to outline/);
  });

  it('gives no outline for minified text (most of it in lines over 4 KiB), says so, and counts it exactly', async () => {
    const bundle = 'var a=1,b=2;function c(d){return d*a+b}x=[1,22,333];'.repeat(20_000) + '\n';
    getTokenizer().count('load the ranks first');
    const { ms, value: s } = await cpuMsAsync(() => structure(bundle, 'javascript', { parsers, maxExactTokenChars: 2 * 1024 * 1024, tokenizer: getTokenizer() }));
    // building the outline took 5 s for a quarter of this (44 s for 4 MiB)
    assert.ok(ms < 4000, `took ${ms.toFixed(0)} ms of CPU`);
    assert.equal(s.symbols.length, 0);
    assert.match(s.notes.join('\n'), /minified or generated text \(100% in lines over 4096 characters\): no outline/);
    assert.equal(s.tokens, getTokenizer().count(bundle));
    assert.equal(s.tokensEstimated, undefined);
    // one long line among ordinary ones keeps the outline
    const mixed = 'function keep() {\n  return 1;\n}\n'.repeat(400) + `const uri = "${'A'.repeat(5000)}";\n`;
    assert.ok((await structure(mixed, 'javascript', { parsers, tokenizer: getTokenizer() })).symbols.length >= 400);
  });

  it('uses the host symbol provider for languages without a grammar, else the indentation outline', async () => {
    const provider = {
      symbols: async () => [{ kind: 'function' as const, name: 'main', signature: 'fun main()', start: 1, end: 3 }],
    };
    const kt = await structure('fun main() {\n  println(1)\n}\n', 'kotlin', { parsers, absPath: '/x/a.kt', fallbackSymbols: provider, tokenizer: noTokens });
    assert.equal(kt.source, 'document-symbols');
    assert.deepEqual(flatten(kt.symbols), ['function main 1-3']);
    const failing = { symbols: async () => { throw new Error('provider not ready'); } };
    const kt2 = await structure('fun main() {\n  println(1)\n}\n', 'kotlin', { parsers, absPath: '/x/a.kt', fallbackSymbols: failing, tokenizer: noTokens });
    assert.equal(kt2.source, 'indent');
    assert.deepEqual(flatten(kt2.symbols), ['block fun main() { 1-3']);
  });

  it('asks for the outline before it waits for the tokenizer (the parse runs while the ranks load)', async () => {
    let asked = 0;
    let release!: () => void;
    const tokensReady = new Promise<void>((r) => (release = r));
    const outlines = { outline: async () => (asked++, { symbols: [], imports: [], errorLines: [], errorRanges: [] }) };
    const done = structure('int f(void) { return 0; }\n', 'c', { tokenizer: noTokens, parsers, outlines, tokensReady });
    await new Promise((r) => setImmediate(r));
    assert.equal(asked, 1, 'the outline was asked for while the ranks were still loading');
    release();
    assert.equal((await done).source, 'tree-sitter');
    // a text too large to parse or minified is never sent
    await structure('x'.repeat(100), 'c', { tokenizer: noTokens, parsers, outlines, maxParseChars: 10 });
    await structure('x'.repeat(10_000), 'c', { tokenizer: noTokens, parsers, outlines });
    assert.equal(asked, 1);
  });

  it('enclosingSymbol finds the innermost function around a line', async () => {
    const text = readFileSync(join(FIXTURES, 'sample.ts'), 'utf8');
    assert.deepEqual(await enclosingSymbol(text, 26, 'typescript', parsers), { start: 25, end: 27, kind: 'method', name: 'calculate' });
    assert.deepEqual(await enclosingSymbol(text, 22, 'typescript', parsers), { start: 21, end: 32, kind: 'class', name: 'PriceCalculator' });
    assert.equal(await enclosingSymbol(text, 2, 'typescript', parsers), undefined);
    assert.equal(await enclosingSymbol('a\nb\n', 1, 'plaintext', parsers), undefined);
    const py = readFileSync(join(FIXTURES, 'sample.py'), 'utf8');
    assert.deepEqual(await enclosingSymbol(py, 16, 'python', parsers), { start: 14, end: 16, kind: 'method', name: 'total' });
  });
});
