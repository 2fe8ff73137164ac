import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { renderChip } from '../../../src/core/chips/render';
import type { ChipRecord } from '../../../src/core/chips/types';
import { languageSpec } from '../../../src/core/context/outlineLanguages';
import { extractTags } from '../../../src/core/context/tags';
import { GRAMMAR_FILES, hasGrammar, packagedWasm } from '../../../src/core/context/node/treeSitter';
import { checkBalance } from '../../../src/core/edits/balance';
import {
  commentSyntax, isCodeLanguage, tagRules, knownSyntax, languageById, languageIdFromPath, resolveLanguage, syntaxFor,
} from '../../../src/core/text/languages';
import { BASE } from '../../../src/core/text/scan/syntax';

const chip: ChipRecord = {
  id: 'a3f7b2', tool: 'be-delete', args: { _content: 'dist/' }, created_at: 1, seq: 1, created_ms: 1000, size: 5, preview: '',
};

describe('language registry', () => {
  it('names of Object.prototype are no languages (a file `x.constructor` used to crash be-balance)', () => {
    for (const name of ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf']) {
      assert.equal(languageIdFromPath(`src/x.${name}`), 'plaintext', name);
      assert.equal(languageIdFromPath(name), 'plaintext', name);
      assert.equal(resolveLanguage(name), undefined, name);
      assert.equal(syntaxFor(name), BASE, name);
      assert.deepEqual(commentSyntax(name), { open: '// ', close: '' }, name);
      assert.equal(isCodeLanguage(name), false, name);
      assert.equal(hasGrammar(name), false, name);
      assert.deepEqual(checkBalance('f(a', name, false), {
        mode: 'unbalanced', unbalanced: [{ symbol: '(', line: 1, col: 2, expected: ')' }], quote_warnings: null,
      });
    }
  });

  it('.gitignore is `ignore` (VS Code\'s id): chips are written with `#`, which git reads as a comment', () => {
    assert.equal(languageIdFromPath('repo/.gitignore'), 'ignore');
    assert.equal(renderChip(chip, 'annotated', languageIdFromPath('.gitignore')).split('\n')[0].slice(0, 7), '# Chip ');
    assert.deepEqual(commentSyntax('gitignore'), { open: '# ', close: '' });
    // `!` negates a pattern and `;` is a pattern char: neither starts a comment
    assert.deepEqual(syntaxFor('ignore').lineComments, ['#']);
  });

  it('ids and aliases resolve in any case; exact lookups stay exact', () => {
    assert.equal(resolveLanguage('Python')?.id, 'python');
    assert.equal(resolveLanguage('py')?.id, 'python');
    assert.equal(resolveLanguage('C++')?.id, 'cpp');
    assert.equal(syntaxFor('golang'), syntaxFor('go'));
    assert.deepEqual(commentSyntax('py'), { open: '# ', close: '' });
    assert.equal(languageById('Python'), undefined);
    assert.equal(isCodeLanguage('TypeScript'), false);
    assert.equal(isCodeLanguage('typescript'), true);
    assert.equal(extractTags('export function f() {}\n', 'typescript').defs[0], 'f');
  });

  it('languages known only to chips are not scanned in Markdown fences', () => {
    assert.equal(knownSyntax('nim'), undefined);
    assert.deepEqual(commentSyntax('nim'), { open: '# ', close: '' });
    assert.deepEqual(checkBalance('```nim\n(\n```\n', 'markdown', false), { mode: 'unbalanced', status: 'all balanced' });
    assert.notDeepEqual(checkBalance('```python\n(\n```\n', 'markdown', false), { mode: 'unbalanced', status: 'all balanced' });
  });

  it('every file a path maps to has a scanner syntax, and every grammar has outline rules', () => {
    const samples = ['a.ts', 'a.tsx', 'a.py', 'Makefile', 'Dockerfile.dev', '.bashrc', 'a.svg', 'a.zig', 'a.cmd', '.env', 'Gemfile'];
    for (const p of samples) assert.ok(languageById(languageIdFromPath(p))?.syntax, p);
    for (const id of Object.keys(GRAMMAR_FILES)) {
      assert.ok(languageSpec(id), `${id} has a grammar but no outline rules in context/outlineLanguages.ts`);
      assert.ok(isCodeLanguage(id), `${id} has a grammar but the repository map extracts no tags from it`);
    }
  });

  it('the scanner and the registry are pure core text: no node: imports', () => {
    const dir = path.resolve(__dirname, '../../../src/core/text');
    const files = ['languages.ts', ...fs.readdirSync(path.join(dir, 'scan')).map((f) => `scan/${f}`)];
    for (const f of files) assert.doesNotMatch(fs.readFileSync(path.join(dir, f), 'utf8'), /from 'node:/, f);
  });

  it("the tag scan reads each language's comments from the registry: a name in a comment defines nothing", () => {
    const prefix = { c: '//', 'c-backtick': '//', php: '#', hash: '#', python: '#', lua: '--' } as const;
    const ids = ['typescript', 'javascript', 'go', 'rust', 'java', 'c', 'cpp', 'csharp', 'kotlin', 'swift', 'dart', 'scala', 'php', 'python', 'ruby', 'shellscript', 'perl', 'r', 'lua', 'fsharp'];
    for (const id of ids) {
      const rules = tagRules(id);
      assert.ok(rules, `${id} has tag rules`);
      const defs = extractTags(`${prefix[rules.comments]} class Hidden here\nclass Shown {}\n`, id).defs;
      assert.ok(!defs.includes('Hidden'), `${id}: a class named in a comment is no definition (${defs.join(', ')})`);
    }
    assert.deepEqual(extractTags('x = "#"\n# class Hidden\nclass Shown:\n  pass\n', 'python').defs, ['Shown']);
    assert.equal(tagRules('markdown'), undefined);
  });

  it('methods and C functions are found where the registry says', () => {
    assert.ok(extractTags('class A {\n  run(x) {\n  }\n}\n', 'typescript').defs.includes('run'));
    assert.ok(!extractTags('class A {\n  run(x) {\n  }\n}\n', 'go').defs.includes('run'));
    assert.ok(extractTags('int order_total(int a) {\n}\n', 'c').defs.includes('order_total'));
    assert.ok(!extractTags('int order_total(int a) {\n}\n', 'java').defs.includes('order_total'));
  });

  it("tree-sitter's grammar table is the registry's: each grammar file is in its package", () => {
    const withGrammar = Object.keys(GRAMMAR_FILES).sort();
    assert.deepEqual(withGrammar, ['c', 'cpp', 'csharp', 'go', 'java', 'javascript', 'javascriptreact', 'php', 'python', 'ruby', 'rust', 'shellscript', 'typescript', 'typescriptreact']);
    for (const id of withGrammar) {
      assert.equal(GRAMMAR_FILES[id]!.file, `tree-sitter-${languageById(id)!.grammar}.wasm`, id);
      assert.ok(fs.existsSync(packagedWasm(GRAMMAR_FILES[id]!)), `${id}: ${GRAMMAR_FILES[id]!.file} is in ${GRAMMAR_FILES[id]!.from}`);
    }
    assert.equal(GRAMMAR_FILES.c!.from, 'wasms');
    assert.equal(hasGrammar('toString'), false);
  });
});
