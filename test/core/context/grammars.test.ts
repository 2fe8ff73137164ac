/** The grammar locator is a port: the composition root says where the .wasm files are, and parsers load from there. */
import { strict as assert } from 'node:assert';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type CompiledModules, GRAMMAR_FILES, type GrammarFile, grammarsBeside, packagedGrammars, packagedWasm, RUNTIME_FILE, TreeSitterParsers } from '../../../src/core/context/node/treeSitter';

describe('context/treeSitter grammar locator', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'bet-grammars-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('a bundle folder with wasm/ serves its own files; without the runtime there, the npm packages do', () => {
    assert.equal(grammarsBeside(dir), packagedGrammars);
    mkdirSync(join(dir, 'wasm'));
    copyFileSync(packagedWasm(RUNTIME_FILE), join(dir, 'wasm', RUNTIME_FILE.file));
    const beside = grammarsBeside(dir);
    assert.equal(beside.wasmPath(GRAMMAR_FILES.typescript!), join(dir, 'wasm', 'tree-sitter-typescript.wasm'));
  });

  it('parsers load each grammar through their locator (a broken file there fails, the packaged one still parses)', async () => {
    mkdirSync(join(dir, 'wasm'));
    copyFileSync(packagedWasm(RUNTIME_FILE), join(dir, 'wasm', RUNTIME_FILE.file));
    copyFileSync(packagedWasm(GRAMMAR_FILES.typescript!), join(dir, 'wasm', GRAMMAR_FILES.typescript!.file));
    writeFileSync(join(dir, 'wasm', GRAMMAR_FILES.python!.file), 'not a wasm module');
    const bundled = new TreeSitterParsers(grammarsBeside(dir));
    const ts = (await bundled.parserFor('typescript'))!;
    const tree = ts.parse('export function f(a: number): number { return a; }')!;
    assert.equal(tree.rootNode.child(0)?.type, 'export_statement');
    tree.delete();
    ts.delete();
    await assert.rejects(bundled.parserFor('python'));
    const packaged = (await new TreeSitterParsers(packagedGrammars).parserFor('python'))!;
    assert.ok(packaged, 'another locator is not affected');
    packaged.delete();
    assert.equal(await bundled.parserFor('plaintext'), undefined, 'no grammar: undefined');
  });

  it('a grammar compiled once is shared: parsers given the store load it from the module, without reading the file again', async () => {
    const modules = new Map<string, WebAssembly.Module>();
    const store: CompiledModules = { get: (f) => modules.get(f), add: (f, m) => void modules.set(f, m) };
    const read: string[] = [];
    const counting = { wasmPath: (g: GrammarFile) => (read.push(g.file), packagedWasm(g)) };
    const first = (await new TreeSitterParsers(counting, store).parserFor('go'))!;
    assert.ok(read.includes(GRAMMAR_FILES.go!.file), 'the first parsers read and compile the file');
    assert.ok(modules.get(GRAMMAR_FILES.go!.file) instanceof WebAssembly.Module, 'and add its module to the store');
    read.length = 0;
    const second = (await new TreeSitterParsers(counting, store).parserFor('go'))!;
    assert.deepEqual(read, [], 'the second loads from the module');
    const src = 'package p\n\nfunc F(a int) int { return a }\n';
    const [a, b] = [first.parse(src)!, second.parse(src)!];
    assert.equal(b.rootNode.toString(), a.rootNode.toString());
    assert.equal(b.rootNode.hasError, false);
    for (const x of [a, b, first, second]) x.delete();
  });
});
