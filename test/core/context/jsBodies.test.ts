/**
 * A large TypeScript or JavaScript text's function and method bodies emptied for its outline's parse
 * (src/core/context/jsBodies.ts): which braces are a body whose bounds are certain in the formatters' layout, past
 * strings, template literals, regular expressions and comments, and, as properties on generated TypeScript, that
 * emptying takes out nothing but the bodies' characters (line breaks kept), that any text gives sorted bodies
 * between braces, and that a text which parses cleanly has the same outline emptied as whole. Through the worker
 * pool: a large TypeScript file is outlined emptied and in parts, a data module also compacted.
 */
import { strict as assert } from 'node:assert';
import * as path from 'node:path';
import fc from 'fast-check';
import { BLANK_BODIES_MIN_CHARS } from '../../../src/core/context/cBodies';
import { compactDataLiterals } from '../../../src/core/context/dataLiterals';
import { emptyJsFunctionBodies, jsFunctionBodies } from '../../../src/core/context/jsBodies';
import { OutlinePool } from '../../../src/core/context/node/outlinePool';
import { packagedGrammars, TreeSitterParsers } from '../../../src/core/context/node/treeSitter';
import { outlineInputs, outlineText, parseOutline } from '../../../src/core/context/treeOutline';
import { dataSource } from '../../../bench/context/generate';
import { typescriptSource } from '../../../bench/context/languageSources';
import { assertEmptied, assertSameOutline, assertSortedBodies } from './sameOutline';

const REPO = path.resolve(__dirname, '../../..');

function bodies(text: string): string[] {
  return jsFunctionBodies(text).map(([start, end]) => text.slice(start, end));
}

type Fragment = (n: number) => string;
/** Statements and members, and the constructs in and around them a brace scan could take for a body's bounds. */
const ITEMS: Fragment[] = [
  (n) => `/** Doc ${n}. */\nexport function f${n}(a: number): number {\n  if (a > ${n}) {\n    return a;\n  }\n  return ${n};\n}\n`,
  (n) => `function s${n}(): string {\n  return "}{" + '}' + '\\'' + "\\"{";\n}\n`,
  (n) => `function t${n}(x: number): string {\n  return \`\n}\nfunction fake${n}() {\n\${x > 0 ? \`{\` : "}"}\n\`;\n}\n`,
  (n) => `function r${n}(s: string): boolean {\n  return /[{}]\\/"'/.test(s) && s.length / 2 > 1;\n}\n`,
  (n) => `function c${n}() {\n  /* } */ // }\n  const x = 1;\n}\n`,
  (n) => `export async function* g${n}<T extends { a: number }>(\n  a: T,\n  b: Array<[number, string]>,\n): AsyncGenerator<T, void, unknown> {\n  yield a;\n}\n`,
  (n) => `export default function d${n}() {\n  return ${n};\n}\n`,
  (n) => `function one${n}() { return ${n}; }\n`,
  (n) => `function ty${n}(): {\n  a: number;\n} {\n  return { a: 1 };\n}\n`,
  (n) => `export class K${n} extends Base {\n  private x = 1;\n  constructor(private readonly y: number) {\n    super();\n  }\n\n  /** M. */\n  public static async m<T>(a: T): Promise<T> {\n    return a;\n  }\n\n  get v(): number {\n    return this.x;\n  }\n\n  #p() {\n    return 1;\n  }\n\n  handle = () => {\n    return 2;\n  };\n\n  abstract sig(): void;\n}\n`,
  (n) => `interface I${n} {\n  m(a: number): string;\n}\n`,
  (n) => `export const data${n} = {\n  m() {\n    return 1;\n  },\n};\n`,
  (n) => `export const arrow${n} = (a: number): number => {\n  return a;\n};\n`,
  (n) => `describe('suite ${n}', () => {\n  it('works', () => {\n    if (x) {\n      go();\n    }\n  });\n});\n`,
  (n) => `namespace N${n} {\n  export function inner() {\n    return 1;\n  }\n}\n`,
  (n) => `if (flag${n}) {\n  setup();\n}\n`,
  (n) => `for (const k of keys${n}) {\n  use(k);\n}\n`,
  (n) => `function é${n}() {\n  return "é😀{";\n}\n`,
  (n) => `function crlf${n}() {\r\n  return;\r\n}\r\n`,
  () => `\n`,
];
/** The same constructs in plain JavaScript. */
const JS_ITEMS: Fragment[] = [
  (n) => `/** Doc ${n}. */\nexport function f${n}(a) {\n  if (a > ${n}) {\n    return a;\n  }\n  return ${n};\n}\n`,
  (n) => `function s${n}() {\n  return "}{" + '}' + '\\'' + "\\"{";\n}\n`,
  (n) => `function t${n}(x) {\n  return \`\n}\nfunction fake${n}() {\n\${x > 0 ? \`{\` : "}"}\n\`;\n}\n`,
  (n) => `function r${n}(s) {\n  return /[{}]\\/"'/.test(s) && s.length / 2 > 1;\n}\n`,
  (n) => `export async function* g${n}(\n  a,\n  b,\n) {\n  yield a;\n}\n`,
  (n) => `export class K${n} extends Base {\n  x = 1;\n  constructor(y) {\n    super();\n  }\n\n  static async m(a) {\n    return a;\n  }\n\n  get v() {\n    return this.x;\n  }\n\n  #p() {\n    return 1;\n  }\n}\n`,
  (n) => `module.exports.m${n} = {\n  m() {\n    return 1;\n  }\n};\n`,
  (n) => `describe('suite ${n}', () => {\n  it('works', () => {\n    go();\n  });\n});\n`,
  (n) => `if (flag${n}) {\n  setup();\n}\n`,
  (n) => `function crlf${n}() {\r\n  return;\r\n}\r\n`,
  () => `\n`,
];
/** Pieces that leave the text broken unless they pair up. */
const PIECES: Fragment[] = [(n) => `function open${n}() {\n`, () => `}\n`, () => `/*\n`, () => `*/\n`, () => '`\n', () => `"\n`, () => `/\n`];

function source(items = ITEMS) {
  const item = fc.oneof({ weight: 29, arbitrary: fc.constantFrom(...items) }, { weight: 1, arbitrary: fc.constantFrom(...PIECES) });
  return fc.array(item, { minLength: 1, maxLength: 30 }).map((is) => 'import { join } from "node:path";\n\n' + is.map((f, n) => f(n)).join(''));
}

describe('core/context jsBodies (a large TypeScript or JavaScript text parsed with its function bodies emptied)', function () {
  this.timeout(120_000);
  const parsers = new TreeSitterParsers(packagedGrammars);

  it('finds function and method bodies past strings, templates with code in them, regular expressions and comments', () => {
    const text = [
      'export async function f(a: number): Promise<number> {\n  if (a) { return "}".length; }\n  return `${a > 0 ? `}` : "{"}` + /[/}]/.source.length / 2; // }\n}\n',
      'class K {\n  constructor() {\n    super();\n  }\n  static get m(): number {\n    return `\n  }\n`.length;\n  }\n}\n',
    ].join('');
    assert.deepEqual(bodies(text), [
      '\n  if (a) { return "}".length; }\n  return `${a > 0 ? `}` : "{"}` + /[/}]/.source.length / 2; // }\n',
      '\n    super();\n  ',
      '\n    return `\n  }\n`.length;\n  ',
    ]);
  });

  it('leaves what is not certainly a body: statements, calls, arrow functions, object methods, one-line bodies, a type literal before the body', () => {
    assert.deepEqual(bodies('if (a) {\n  go();\n}\nfor (;;) {\n  go();\n}\nwhile (x) {\n  go();\n}\n'), []);
    assert.deepEqual(bodies("describe('x', () => {\n  go();\n});\nconst f = () => {\n  go();\n};\n"), []);
    assert.deepEqual(bodies('function one() { return 1; }\n'), []);
    assert.deepEqual(bodies('function ty(): {\n  a: number;\n} {\n  return { a: 1 };\n}\n'), []);
    assert.deepEqual(bodies('const s = `\nfunction fake() {\n}\n`;\n'), [], 'a head inside a template');
    assert.deepEqual(bodies('/*\nfunction fake() {\n}\n*/\n'), [], 'a head inside a comment');
    assert.deepEqual(bodies('function open() {\n  const s = `\n}\n'), [], 'a template that never closes');
    assert.deepEqual(bodies('function cl() {\n  const g = () => {\n}\n  ;\n}\nfunction next() {\n  go();\n}\n'), ['\n  go();\n'], 'a `}` line with a brace open');
    assert.equal(emptyJsFunctionBodies('interface I {\n  m(): void;\n}\n'), undefined, 'nothing to empty');
  });

  it('property: emptying takes out only body characters, every line break in them and every other character kept', () => {
    fc.assert(
      fc.property(source(), (text) => {
        const emptied = emptyJsFunctionBodies(text);
        if (emptied !== undefined) assertEmptied(text, emptied, jsFunctionBodies(text));
      }),
      { numRuns: 500 },
    );
  });

  it('property: any text at all (JavaScript-ish characters, any code unit) gives sorted, disjoint bodies between braces, or none', () => {
    const unit = fc.oneof(
      { weight: 3, arbitrary: fc.constantFrom('function f() {\n  g();\n}\n', '  m(a) {\n    x();\n  }\n') },
      { weight: 12, arbitrary: fc.constantFrom('function f(', 'if (', ') {', ')', '\n}\n', '{', '}', '(', '[', ']', ';', '=>', '<', '>', ' ', '\n', '  ') },
      { weight: 2, arbitrary: fc.constantFrom('"', "'", '`', '${', '/', '*', '//', '/*', '*/', '\\', '\r', 'return /') },
      { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 2 }) },
    );
    assertSortedBodies(fc.array(unit, { maxLength: 80 }).map((u) => u.join('')), jsFunctionBodies, emptyJsFunctionBodies, (text, a, b) => text[a - 1] === '{' && text[b] === '}');
  });

  for (const languageId of ['typescript', 'javascript']) {
    it(`property: a ${languageId} text that parses cleanly has the same outline (symbols, ranges, signatures, imports) emptied as whole`, async () => {
      const texts = source(languageId === 'typescript' ? ITEMS : JS_ITEMS);
      const { transformed, compared } = await assertSameOutline(parsers, languageId, texts, emptyJsFunctionBodies, 300);
      assert.ok(transformed > 200 && compared > 100, `${transformed} emptied, ${compared} compared`);
    });
  }

  it('outlineText empties TypeScript and JavaScript from BLANK_BODIES_MIN_CHARS on, and compacts a data module too', () => {
    const big = typescriptSource(BLANK_BODIES_MIN_CHARS + 10_000);
    assert.equal(outlineText(big, 'typescript'), emptyJsFunctionBodies(big));
    assert.equal(outlineText(big, 'javascript'), emptyJsFunctionBodies(big));
    assert.equal(outlineText(big, 'typescriptreact'), big, 'JSX is left whole');
    const small = typescriptSource(BLANK_BODIES_MIN_CHARS - 10_000);
    assert.equal(outlineText(small, 'typescript'), small);
    const data = dataSource(BLANK_BODIES_MIN_CHARS + 10_000);
    const inputs = outlineInputs(data, 'typescript');
    assert.equal(inputs.whole, data);
    assert.equal(inputs.text, emptyJsFunctionBodies(compactDataLiterals(data, 'typescript')!) ?? compactDataLiterals(data, 'typescript'));
  });

  it("through the pool, a large TypeScript file is outlined emptied and in parts (the whole parse's outline; a body's syntax error unseen)", async () => {
    const pool = new OutlinePool({ grammarsDir: REPO, size: 1, parallel: 2, partChars: 256 * 1024 });
    try {
      const big = typescriptSource(1_000_000);
      const raw = await parseOutline(big, 'typescript', parsers);
      const rawOutline = raw?.outline;
      raw?.free();
      assert.equal(rawOutline?.errorRanges.length, 0);
      assert.deepEqual(await pool.outline(big, 'typescript'), rawOutline);
      const broken = big.replace('    parts.push("x".repeat(k));\n', '    parts.push("x".repeat(k);\n');
      assert.notEqual(broken, big);
      const rawBroken = await parseOutline(broken, 'typescript', parsers);
      assert.ok(rawBroken!.outline!.errorRanges.length > 0);
      rawBroken!.free();
      const pooled = await pool.outline(broken, 'typescript');
      assert.deepEqual(pooled!.errorRanges, []);
      assert.deepEqual(pooled!.symbols, rawOutline!.symbols);
    } finally {
      await pool.close();
    }
  });
});
