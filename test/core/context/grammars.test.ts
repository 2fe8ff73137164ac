/** The grammar locator is a port: the composition root says where the .wasm files are, and parsers load from there. */
import { strict as assert } from 'node:assert';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GRAMMAR_FILES, grammarsBeside, packagedGrammars, packagedWasm, RUNTIME_FILE, TreeSitterParsers } from '../../../src/core/context/node/treeSitter';

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
});
