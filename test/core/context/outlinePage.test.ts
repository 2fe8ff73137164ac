/**
 * Outline pages of whole symbols (outlinePage.ts): following `next` from line 1 shows every row once as new, in
 * file order, each page within its budget; a symbol that fits a page of its own with its containers is never
 * split; a continuation page repeats the containers of its first row. A query outline stays within its budget,
 * shows every match it can, best first, and says how many it left out.
 */
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { outlinePage, outlineRows, queryOutline, symbolScores } from '../../../src/core/context/outlinePage';
import { getTokenizer } from '../../../src/core/memory/node/tokenizer';
import type { FileStructure, OutlineSymbol } from '../../../src/core/context/types';

const tokenizer = getTokenizer('o200k_base');
const count = (t: string) => (t ? tokenizer.count(t) : 0);

const NAMES = ['parse', 'cookie', 'route', 'mount', 'Handler', 'getPath', 'merge_paths', '数据', 'x', 'requestBody', 'compose'];

/** A tree of symbols laid out in file order: each symbol's members inside its lines. */
const tree: fc.Arbitrary<OutlineSymbol[]> = fc
  .array(fc.tuple(fc.constantFrom(...NAMES), fc.nat({ max: 3 }), fc.string({ maxLength: 60 }), fc.nat({ max: 4 })), { minLength: 0, maxLength: 300 })
  .map((specs) => {
    // depth of each symbol relative to the previous one: at most one deeper
    let line = 1;
    const roots: OutlineSymbol[] = [];
    const stack: OutlineSymbol[] = [];
    for (const [name, depthWish, sig, gap] of specs) {
      const depth = Math.min(depthWish, stack.length);
      stack.length = depth;
      line += gap === 0 && depth > 0 ? 0 : gap; // a member may start on its container's line
      const sym: OutlineSymbol = { kind: depth ? 'method' : 'function', name, signature: `${name}(${sig})`, start: line, end: line };
      (depth ? (stack[depth - 1]!.children ??= []) : roots).push(sym);
      stack.push(sym);
      line++;
    }
    const close = (s: OutlineSymbol): number => (s.end = Math.max(s.end, ...(s.children ?? []).map(close)));
    roots.forEach(close);
    return roots;
  });

const fileOf = (symbols: OutlineSymbol[], imports: string[] = []): FileStructure => ({ path: 'a.ts', languageId: 'typescript', source: 'tree-sitter', lines: 9999, tokens: 1, imports, symbols, notes: [] });

describe('context/outlinePage: outlines paged by whole symbols', () => {
  it('following next shows every row once, in order, each page within its budget, its first row with its containers', () => {
    fc.assert(
      fc.property(tree, fc.integer({ min: 40, max: 600 }), fc.boolean(), (symbols, maxTokens, withImports) => {
        const s = fileOf(symbols, withImports ? ['./context', 'router'] : []);
        const rows = outlineRows(symbols);
        const seen: string[] = [];
        let from: number | undefined = 1;
        let pages = 0;
        while (from !== undefined) {
          const page = outlinePage(s, { from, maxTokens, tokenizer });
          assert.ok(++pages <= rows.length + 1, 'pages make progress');
          const lines = page.text ? page.text.split('\n') : [];
          const body = lines.filter((l) => !l.startsWith('imports: '));
          const fresh = body.slice(body.length - page.shown);
          const context = body.slice(0, body.length - page.shown);
          const first = rows.findIndex((r) => r.sym.start >= from!);
          if (first >= 0) {
            // the containers of the page's first row come first, as rows
            let p = rows[first]!.parent;
            const want: string[] = [];
            for (; p >= 0; p = rows[p]!.parent) want.unshift(rows[p]!.text);
            assert.deepEqual(context, want);
          }
          // over budget only when a single row (with its containers) cannot be shown in less
          if (count(page.text) > maxTokens + 2) assert.ok(page.shown === 1 || fresh.every((r) => rows.find((x) => x.text === r)!.sym.start === rows[first]!.sym.start), `${count(page.text)} > ${maxTokens}`);
          seen.push(...fresh);
          if (page.next !== undefined) assert.ok(page.next > from, 'the next page starts further on');
          from = page.next;
        }
        assert.deepEqual(seen, rows.map((r) => r.text));
      }),
      { numRuns: 150 },
    );
  });

  it('a symbol that fits a page of its own with its containers is never split', () => {
    fc.assert(
      fc.property(tree, fc.integer({ min: 60, max: 400 }), (symbols, maxTokens) => {
        const s = fileOf(symbols);
        const rows = outlineRows(symbols);
        const pageOf = new Map<number, number>();
        let from: number | undefined = 1;
        for (let n = 0; from !== undefined; n++) {
          const page = outlinePage(s, { from, maxTokens, tokenizer });
          const k = rows.findIndex((r) => r.sym.start >= from!);
          for (let i = k; i < k + page.shown; i++) pageOf.set(i, n);
          from = page.next;
        }
        const cost = rows.map((r) => count(r.text) + 1);
        rows.forEach((r, i) => {
          let own = 0;
          for (let j = i; j <= r.last; j++) own += cost[j]!;
          for (let p = r.parent; p >= 0; p = rows[p]!.parent) own += cost[p]!;
          if (own > maxTokens) return;
          for (let j = i; j <= r.last; j++) assert.equal(pageOf.get(j), pageOf.get(i), `${r.text} (${own} tokens) is split`);
        });
      }),
      { numRuns: 150 },
    );
  });

  it('a query outline: within its budget, matches best first, their containers and neighbours, in file order', async () => {
    await fc.assert(
      fc.asyncProperty(tree, fc.integer({ min: 30, max: 500 }), fc.constantFrom('parse cookie', 'route mount', 'merge paths', 'nothing here'), async (symbols, maxTokens, query) => {
        const s = fileOf(symbols);
        const rows = outlineRows(symbols);
        const scores = await symbolScores(rows, query);
        const q = await queryOutline(s, query, { maxTokens, tokenizer });
        if (!scores.some((x) => x > 0)) return assert.equal(q, undefined);
        assert.ok(q);
        const shown = q.text.split('\n');
        const best = scores.indexOf(Math.max(...scores));
        let own = count(rows[best]!.text) + 1;
        for (let p = rows[best]!.parent; p >= 0; p = rows[p]!.parent) own += count(rows[p]!.text) + 1;
        // within the budget; the best match with its containers is shown even when they alone are over it
        if (own <= maxTokens) assert.ok(shown.reduce((n, l) => n + count(l) + 1, 0) <= maxTokens, 'within the budget');
        else assert.equal(q.shown, rows[best]!.depth + 1);
        assert.equal(q.shown, shown.length);
        assert.equal(q.total, rows.length);
        // in file order
        const idx = shown.map((l) => rows.findIndex((r) => r.text === l));
        for (let i = 1; i < idx.length; i++) assert.ok(idx.filter((x) => x === idx[i]).length > 1 || idx[i]! > idx[i - 1]!);
        assert.ok(shown.includes(rows[best]!.text), 'the best match is shown');
      }),
      { numRuns: 150 },
    );
  });

  it('ranks by the query words in the name, signature and doc; a rare word counts more than a common one', async () => {
    const syms: OutlineSymbol[] = [
      { kind: 'function', name: 'parseCookie', signature: 'parseCookie(header: string)', start: 1, end: 5 },
      { kind: 'function', name: 'parseBody', signature: 'parseBody(req)', start: 6, end: 9 },
      { kind: 'function', name: 'parseQuery', signature: 'parseQuery(url)', start: 10, end: 12 },
      { kind: 'function', name: 'serialize', signature: 'serialize(name, value)', start: 13, end: 20, doc: 'Serializes a cookie' },
    ];
    const scores = await symbolScores(outlineRows(syms), 'parse the cookies');
    assert.ok(scores[0]! > scores[3]! && scores[3]! > scores[1]!, JSON.stringify(scores));
    assert.equal(scores[1], scores[2]);
  });
});
