import { strict as assert } from 'node:assert';
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { treeSitterSymbols } from '../../../src/core/context/structure';
import { EditService, type SymbolLocator } from '../../../src/core/edits/service';
import { NodeFileStore } from '../../../src/core/files/nodeFileStore';
import { Sandbox } from '../../../src/core/files/sandbox';
import { packagedGrammars, TreeSitterParsers } from '../../../src/core/context/node/treeSitter';
const parsers = new TreeSitterParsers(packagedGrammars);

const TS = `export class Cart {
  private items: number[] = [];

  add(price: number): void {
    if (price < 0) {
      throw new Error('negative');
    }
    this.items.push(price);
  }

  total(): number {
    return this.items.reduce((a, b) => a + b, 0);
  }
}
`;

describe('core/context treeSitterSymbols as the EditService SymbolLocator', function () {
  this.timeout(60000);
  let dir: string;
  let calls: string[];
  let service: EditService;

  before(async () => {
    dir = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'be-symbols-')));
    await fs.writeFile(path.join(dir, 'cart.ts'), TS);
    await fs.writeFile(path.join(dir, 'calc.lua'), 'local function area(w, h)\n  return w * h\nend\n');
    calls = [];
    const counting: SymbolLocator = {
      enclosing: async (text, line, lang) => {
        const r = await treeSitterSymbols(parsers).enclosing(text, line, lang);
        calls.push(`enclosing:${lang}:${r ? 'hit' : 'miss'}`);
        return r;
      },
      byName: async (text, name, lang) => {
        const r = await treeSitterSymbols(parsers).byName(text, name, lang);
        calls.push(`byName:${lang}:${r ? 'hit' : 'miss'}`);
        return r;
      },
    };
    service = new EditService({ files: new NodeFileStore(), sandbox: new Sandbox([dir]), symbols: counting });
  });
  after(() => fs.rm(dir, { recursive: true, force: true }));

  it('be-func-range answers from the tree-sitter outline: the method around a line inside an if block', async () => {
    const r = await service.funcRange({ file: 'cart.ts', line: 6 });
    assert.deepEqual({ start: r.start, end: r.end, name: r.name }, { start: 4, end: 9, name: 'add' });
    assert.deepEqual(calls.splice(0), ['enclosing:typescript:hit']);
  });

  it("be-read's function target by name uses the outline (Class.method works)", async () => {
    const r = await service.read({ file: 'cart.ts', target: { kind: 'function', value: 'Cart.total' } });
    assert.equal(r.start, 11);
    assert.equal(r.end, 13);
    assert.deepEqual(calls.splice(0), ['byName:typescript:hit']);
  });

  it('a language without a grammar falls back to the brace/indent analyzers', async () => {
    const r = await service.funcRange({ file: 'calc.lua', line: 2 });
    assert.deepEqual({ start: r.start, end: r.end }, { start: 1, end: 3 });
    assert.deepEqual(calls.splice(0), ['enclosing:lua:miss']);
  });
});
