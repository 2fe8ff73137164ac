import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { compactSignature, docClause, renderStructureText } from '../../../src/core/context/render';
import { structure, treeSitterSymbols } from '../../../src/core/context/structure';
import type { OutlineSymbol } from '../../../src/core/context/types';
import { EditService, type SymbolLocator } from '../../../src/core/edits/service';
import { NodeFileStore } from '../../../src/core/files/nodeFileStore';
import { Sandbox } from '../../../src/core/files/sandbox';
import { getTokenizer } from '../../../src/core/memory/node/tokenizer';
import { packagedGrammars, TreeSitterParsers } from '../../../src/core/context/node/treeSitter';
const parsers = new TreeSitterParsers(packagedGrammars);

const MODERN = path.join(__dirname, '..', '..', 'fixtures', 'context', 'modern');
const read = (f: string) => readFileSync(path.join(MODERN, f), 'utf8');
const flat = (xs: OutlineSymbol[], d = 0): string[] =>
  xs.flatMap((s) => [`${'  '.repeat(d)}${s.kind} ${s.name} ${s.start}-${s.end}`, ...flat(s.children ?? [], d + 1)]);

/** Every symbol with its exact 1-based range, read off the fixture by hand. */
const EXPECTED: Record<string, { lang: string; outline: string[] }> = {
  'context.ts': {
    lang: 'typescript',
    outline: [
      'interface Get 6-9', '  method () 7-7', '  method () 8-8',
      'interface Factory 11-14', '  method new 12-12', '  method () 13-13',
      'function parse 18-18', 'function parse 19-19', 'function parse 20-22',
      'class Context 24-49', '  method onError 29-32', '  method get 34-36', '  method render 38-42',
      '  method header 44-44', '  method header 45-45', '  method header 46-48',
    ],
  },
  'button.tsx': {
    lang: 'typescriptreact',
    outline: ['type Props 3-3', 'function Button 5-12', 'function Badge 14-14', 'class Panel 16-24', '  method handleClick 17-19', '  method render 21-23'],
  },
  'cart.test.ts': {
    lang: 'typescript',
    outline: ['test Cart 3-19', '  test adds prices 6-8', '  test discounts 10-14', '    test 10% off 11-13', '  test keeps %i 16-18', 'test top level 21-21'],
  },
  'client.py': {
    lang: 'python',
    outline: [
      'class Limits 5-9', 'class Client 12-33', '  constructor __init__ 15-16', '  method is_closed 18-21',
      '  method get 23-24', '  method get 26-27', '  method get 29-30', '  method aclose 32-33', 'function main 36-37',
    ],
  },
  'command.go': {
    lang: 'go',
    outline: ['type PositionalArgs 8-8', 'struct Command 11-14', 'interface Runner 17-19', 'type Map 22-22', 'method (*Command).Execute 25-30', 'function Keys 33-39', 'variable defaultUse 41-41'],
  },
};

describe('context/structure on real-world-shaped code (current grammars)', function () {
  this.timeout(60000);

  for (const [file, { lang, outline }] of Object.entries(EXPECTED)) {
    it(`${file}: every symbol with its exact range, no parse errors`, async () => {
      const s = await structure(read(file), lang, { parsers, path: file, tokenizer: getTokenizer() });
      assert.equal(s.source, 'tree-sitter');
      assert.deepEqual(flat(s.symbols), outline);
      assert.deepEqual(s.notes, []);
    });
  }

  it('generic call signatures without semicolons and `export type *` parse through the repaired second parse', async () => {
    // The grammar alone misreads them (so the fixture exercises the repair), the outline does not.
    const parser = (await parsers.parserFor('typescript'))!;
    const tree = parser.parse(read('context.ts'))!;
    assert.equal(tree.rootNode.hasError, true);
    tree.delete();
    parser.delete();
    const s = await structure(read('context.ts'), 'typescript', { parsers, tokenizer: getTokenizer() });
    const get = s.symbols.find((x) => x.name === 'Get')!;
    assert.deepEqual(get.children!.map((c) => c.signature), ["<Key extends keyof E['Variables']>(key: Key): E['Variables'][Key]", '<Key extends keyof ContextVariableMap>(key: Key): ContextVariableMap[Key]']);
  });

  it('class-field functions keep their signature and doc; decorators are part of a member range', async () => {
    const s = await structure(read('context.ts'), 'typescript', { parsers, tokenizer: getTokenizer() });
    const ctx = s.symbols.find((x) => x.name === 'Context')!;
    const onError = ctx.children!.find((c) => c.name === 'onError')!;
    assert.equal(onError.signature, 'onError = (err: Error): void =>');
    assert.equal(onError.doc, 'Reports a failure.');
    assert.equal(ctx.children!.find((c) => c.name === 'render')!.start, 38, 'starts at @Memoize(), two lines above render');
    assert.equal(ctx.exported, true);
  });

  it('test blocks show as describe/it lines', async () => {
    const text = renderStructureText(await structure(read('cart.test.ts'), 'typescript', { parsers, path: 'cart.test.ts', tokenizer: getTokenizer() }), { header: false });
    assert.equal(text, [
      'imports: node:assert',
      "3-19 describe('Cart')",
      " 6-8 it('adds prices')",
      " 10-14 describe.skip('discounts')",
      "  11-13 test('10% off')",
      " 16-18 it.each('keeps %i')",
      "21 test('top level')",
    ].join('\n'));
  });

  it('Python lines: no def, self, typing. prefix, -> None or | None of an optional parameter, no trailing pragma comment, first doc clause', async () => {
    const text = renderStructureText(await structure(read('client.py'), 'python', { parsers, path: 'client.py', tokenizer: getTokenizer() }), { header: false });
    const lines = text.split('\n');
    assert.ok(lines.includes(' 29-30 get(url: Any, params?: Mapping[str, str] | None) -> bytes'), text); // a comma in the type: kept
    assert.ok(lines.includes(' 15-16 __init__(*, timeout?: float, limits?: Limits)'), text);
    assert.ok(lines.includes(' 32-33 async aclose()'), text);
    assert.ok(lines.includes('12-33 class Client — An HTTP client'), text);
  });

  it('compactSignature strips defaults of a signature the outline already cut', () => {
    const long = `def __init__(self, auth: AuthTypes | None = None, params: QueryParamTypes | None = None, headers: H${'x'.repeat(60)}…`;
    assert.equal(compactSignature(long).startsWith('__init__(auth?: AuthTypes, params?: QueryParamTypes,'), true, compactSignature(long));
    assert.equal(docClause('The URL scheme, such as "http", "https".'), 'The URL scheme');
    assert.equal(docClause('Short. Then more'), 'Short. Then more'.slice(0, 16));
  });
});

describe('be-func-range on modern TypeScript (tree-sitter outline, analyzers where it did not parse)', function () {
  this.timeout(60000);
  let dir: string;
  let calls: string[];
  let service: EditService;

  before(async () => {
    dir = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'be-modern-')));
    await fs.writeFile(path.join(dir, 'context.ts'), read('context.ts'));
    // A method whose body does not parse: the outline's range for it is not to be trusted.
    await fs.writeFile(
      path.join(dir, 'broken.ts'),
      'export class Broken {\n  ok(): number {\n    return 1\n  }\n\n  bad(): void {\n    const x = ((1 + \n    return\n  }\n}\n',
    );
    calls = [];
    const counting: SymbolLocator = {
      enclosing: async (text, line, lang) => {
        const r = await treeSitterSymbols(parsers).enclosing(text, line, lang);
        calls.push(r ? 'hit' : 'miss');
        return r;
      },
      byName: (text, name, lang) => treeSitterSymbols(parsers).byName(text, name, lang),
    };
    service = new EditService({ files: new NodeFileStore(), sandbox: new Sandbox([dir]), symbols: counting });
  });
  after(() => fs.rm(dir, { recursive: true, force: true }));

  it('a line inside a class-field arrow function gives that field, not the whole class', async () => {
    const r = await service.funcRange({ file: 'context.ts', line: 31 });
    assert.deepEqual({ start: r.start, end: r.end, name: r.name }, { start: 29, end: 32, name: 'onError' });
    assert.deepEqual(calls.splice(0), ['hit']);
  });

  it('a line in the class after the generic call signatures gives its method (the interface no longer swallows the file)', async () => {
    const r = await service.funcRange({ file: 'context.ts', line: 47 });
    assert.deepEqual({ start: r.start, end: r.end, name: r.name }, { start: 46, end: 48, name: 'header' });
    assert.deepEqual(calls.splice(0), ['hit']);
  });

  it('a line in a region that did not parse is left to the analyzers; a clean method still comes from the outline', async () => {
    await service.funcRange({ file: 'broken.ts', line: 7 });
    assert.deepEqual(calls.splice(0), ['miss']);
    const ok = await service.funcRange({ file: 'broken.ts', line: 3 });
    assert.deepEqual({ start: ok.start, end: ok.end }, { start: 2, end: 4 });
    assert.deepEqual(calls.splice(0), ['hit']);
  });
});
