/**
 * Re-parsing an earlier tree after an edit (treeOutline.ts parseOutline with a base, textEdit.ts): for any edit of
 * a fixture in every language, the outline is the one a fresh parse gives, and a tree that is no parse of the
 * text itself (the repaired TypeScript) is never kept as a base.
 */
import { strict as assert } from 'node:assert';
import { readFileSync, readdirSync } from 'node:fs';
import * as path from 'node:path';
import fc from 'fast-check';
import { packagedGrammars, TreeSitterParsers } from '../../../src/core/context/node/treeSitter';
import { parseOutline, treeSitterOutline } from '../../../src/core/context/treeOutline';
import { textEdit } from '../../../src/core/context/textEdit';
import { hasGrammar, languageIdFromPath } from '../../../src/core/text/languages';

const FIXTURES = path.resolve(__dirname, '../../fixtures/context');
const files = [...readdirSync(FIXTURES).map((f) => path.join(FIXTURES, f)), ...readdirSync(path.join(FIXTURES, 'modern')).map((f) => path.join(FIXTURES, 'modern', f))].filter(
  (f) => f.includes('.') && hasGrammar(languageIdFromPath(f)),
);

/** A line edit: insert, delete or replace line `at` (taken modulo the line count) with `line`. */
const lineEdit = fc.record({ op: fc.constantFrom('insert', 'delete', 'replace'), at: fc.nat(), line: fc.string({ unit: fc.constantFrom('a', ' ', '{', '}', '(', ')', ';', '"', "'", '/', '*', '#', 'x', '=', '\n'), maxLength: 20 }) });

function apply(text: string, e: { op: string; at: number; line: string }): string {
  const lines = text.split('\n');
  const i = e.at % lines.length;
  if (e.op === 'insert') lines.splice(i, 0, e.line);
  else if (e.op === 'delete') lines.splice(i, 1);
  else lines[i] = e.line;
  return lines.join('\n');
}

/** Short texts of many lines, so that rows and columns vary. */
const text60 = fc.string({ unit: fc.constantFrom('a', 'b', '\n', 'é', '😀'), maxLength: 60 });

describe('core/context incremental outline (an earlier tree re-parsed after an edit)', function () {
  this.timeout(120_000);
  const parsers = new TreeSitterParsers(packagedGrammars);

  it('textEdit: the edit rebuilds the new text, with the rows and columns of its ends', () => {
    fc.assert(
      // b is a with one small splice: an edit under half the text
      fc.property(text60, fc.nat(), fc.nat({ max: 3 }), fc.string({ unit: fc.constantFrom('x', '\n'), maxLength: 4 }), (a, at, cut, put) => {
        const i = at % (a.length + 1);
        const b = a.slice(0, i) + put + a.slice(i + cut);
        const e = textEdit(a, b);
        if (!e) return;
        assert.equal(a.slice(0, e.startIndex) + b.slice(e.startIndex, e.newEndIndex) + a.slice(e.oldEndIndex), b);
        const point = (t: string, i: number) => ({ row: t.slice(0, i).split('\n').length - 1, column: i - (i === 0 ? 0 : t.lastIndexOf('\n', i - 1) + 1) });
        assert.deepEqual(e.startPosition, point(a, e.startIndex));
        assert.deepEqual(e.oldEndPosition, point(a, e.oldEndIndex));
        assert.deepEqual(e.newEndPosition, point(b, e.newEndIndex));
      }),
    );
    assert.equal(textEdit('same', 'same'), undefined);
    assert.equal(textEdit('a'.repeat(10), 'b'.repeat(10)), undefined, 'an edit over half the text: parse it whole');
  });

  for (const file of files) {
    it(`after any line edits, the outline of ${path.relative(FIXTURES, file)} is a fresh parse's`, async () => {
      const lang = languageIdFromPath(file);
      const original = readFileSync(file, 'utf8');
      let incremental = 0; // parses given a kept tree: the property is about them, not about fresh parses
      await fc.assert(
        fc.asyncProperty(fc.array(lineEdit, { minLength: 1, maxLength: 3 }), async (edits) => {
          let text = original;
          const first = (await parseOutline(text, lang, parsers))!;
          let tree = first.keep();
          first.free();
          for (const e of edits) {
            const next = apply(text, e);
            const edit = textEdit(text, next);
            if (tree && edit) incremental++;
            const p = (await parseOutline(next, lang, parsers, tree && edit && { tree, edit }))!;
            tree?.delete();
            assert.deepEqual(p.outline, await treeSitterOutline(next, lang, parsers));
            tree = p.keep();
            p.free();
            text = next;
          }
          tree?.delete();
        }),
        { numRuns: 15 },
      );
      // a fixture whose own parse has errors keeps no base; every other one must have exercised the incremental path
      const base = (await parseOutline(original, lang, parsers))!;
      const keeps = base.keep();
      base.free();
      if (keeps) {
        keeps.delete();
        assert.ok(incremental > 0, 'some parse was given a kept tree');
      }
    });
  }

  it('the repaired TypeScript tree (fewer errors than the text itself) is not kept as a base', async () => {
    const text = readFileSync(path.join(FIXTURES, 'modern/context.ts'), 'utf8');
    const p = (await parseOutline(text, 'typescript', parsers))!;
    assert.equal(p.keep(), undefined);
    p.free();
  });
});
