/**
 * A large PHP text's function and method bodies emptied for its outline's parse (src/core/context/phpBodies.ts over
 * layoutBodies.ts): which braces are a body whose bounds are certain in PSR-12's layout, past strings with their
 * `{$…}` code, heredocs, nowdocs and comments, and, as properties on generated PHP, that emptying takes out nothing
 * but the bodies' characters (line breaks kept), that any text gives sorted bodies between braces, and that a text
 * which parses cleanly has the same outline emptied as whole.
 */
import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { BLANK_BODIES_MIN_CHARS } from '../../../src/core/context/cBodies';
import { emptyPhpFunctionBodies, phpFunctionBodies } from '../../../src/core/context/phpBodies';
import { packagedGrammars, TreeSitterParsers } from '../../../src/core/context/node/treeSitter';
import { outlineText } from '../../../src/core/context/treeOutline';
import { phpSource } from '../../../bench/context/languageSources';
import { assertEmptied, assertSameOutline, assertSortedBodies } from './sameOutline';

function bodies(text: string): string[] {
  return phpFunctionBodies(text).map(([start, end]) => text.slice(start, end));
}

type Fragment = (n: number) => string;
/** Declarations, and the constructs in and around them a brace scan could take for a body's bounds. */
const ITEMS: Fragment[] = [
  (n) => `/** Doc ${n}. */\nfunction f${n}(int $a): int\n{\n    if ($a > ${n}) {\n        return $a;\n    }\n    return ${n};\n}\n`,
  (n) => `function s${n}(): string\n{\n    return "}{" . '}' . '\\'' . "\\"{";\n}\n`,
  (n) => `function i${n}(array $a): string\n{\n    return "x {$a["k"]} \${n} }\n}\n";\n}\n`,
  (n) => `function h${n}(): string\n{\n    return <<<EOT\n    }\n    function fake${n}() {\n    {$x} done\n    EOT;\n}\n`,
  (n) => `function nd${n}(): string\n{\n    return <<<'EOT'\n}\nEOT;\n}\n`,
  (n) => `function c${n}()\n{\n    /* } */ // }\n    # }\n    $x = 1;\n}\n`,
  (n) => `class K${n} extends Base implements I\n{\n    private int $x = 1;\n\n    public function __construct(private int $y)\n    {\n        parent::__construct();\n    }\n\n    #[Pure]\n    public static function m(int $a): static\n    {\n        return new static();\n    }\n\n    abstract protected function sig(): void;\n\n    public function one(): int { return 1; }\n}\n`,
  (n) => `interface I${n}\n{\n    public function m(): void;\n}\n`,
  (n) => `$f${n} = function () use ($x) {\n    return $x;\n};\n`,
  (n) => `if (!function_exists('g${n}')) {\n    function g${n}()\n    {\n        return ${n};\n    }\n}\n`,
  (n) => `function crlf${n}()\r\n{\r\n    return;\r\n}\r\n`,
  () => `\n`,
];
/** Pieces that leave the text broken unless they pair up. */
const PIECES: Fragment[] = [(n) => `function open${n}()\n{\n`, () => `}\n`, () => `/*\n`, () => `*/\n`, () => `"\n`, () => `'\n`, () => `<<<EOT\n`];

function source() {
  const item = fc.oneof({ weight: 29, arbitrary: fc.constantFrom(...ITEMS) }, { weight: 1, arbitrary: fc.constantFrom(...PIECES) });
  return fc.array(item, { minLength: 1, maxLength: 30 }).map((is) => '<?php\n\nnamespace App;\n\n' + is.map((f, n) => f(n)).join(''));
}

describe('core/context phpBodies (a large PHP text parsed with its function bodies emptied)', function () {
  this.timeout(120_000);
  const parsers = new TreeSitterParsers(packagedGrammars);

  it('finds function and method bodies past strings with code in them, heredocs, nowdocs and comments', () => {
    const text = [
      '<?php\n\nfunction f($a)\n{\n    return "{$a["}"]}" . \'{\' . <<<EOT\n}\nEOT . 1; # }\n}\n',
      'class K\n{\n    public static function m(): int\n    {\n        return 1; // }\n    }\n}\n',
    ].join('');
    assert.deepEqual(bodies(text), ['\n    return "{$a["}"]}" . \'{\' . <<<EOT\n}\nEOT . 1; # }\n', '\n        return 1; // }\n    ']);
    // a nowdoc holds no code: `{$` in it is text
    assert.deepEqual(bodies("<?php\nfunction n()\n{\n    return <<<'EOT'\n{$x\nEOT;\n}\n"), ["\n    return <<<'EOT'\n{$x\nEOT;\n"]);
  });

  it('leaves what is not certainly a body: closures, one-line bodies, abstract methods, code after a `?>`', () => {
    assert.deepEqual(bodies('<?php\n$f = function () {\n    return 1;\n};\nfunction one() { return 1; }\n'), []);
    assert.deepEqual(bodies('<?php\nabstract class A\n{\n    abstract public function m(): void;\n}\n'), []);
    assert.deepEqual(bodies('<?php\n?>\n<p>hello</p>\n<?php\nfunction f()\n{\n    return 1;\n}\n'), [], 'after a ?>');
    assert.deepEqual(bodies('<?php\nfunction open()\n{\n    $s = <<<EOT\n}\n'), [], 'a heredoc that never closes');
    assert.equal(emptyPhpFunctionBodies('<?php\ninterface I\n{\n    public function m(): void;\n}\n'), undefined, 'nothing to empty');
  });

  it('property: emptying takes out only body characters, every line break in them and every other character kept', () => {
    fc.assert(
      fc.property(source(), (text) => {
        const emptied = emptyPhpFunctionBodies(text);
        if (emptied !== undefined) assertEmptied(text, emptied, phpFunctionBodies(text));
      }),
      { numRuns: 500 },
    );
  });

  it('property: any text at all (PHP-ish characters, any code unit) gives sorted, disjoint bodies between braces, or none', () => {
    const unit = fc.oneof(
      { weight: 3, arbitrary: fc.constantFrom('function f()\n{\n    g();\n}\n', '    public function m($a)\n    {\n        x();\n    }\n') },
      { weight: 12, arbitrary: fc.constantFrom('function f(', 'if (', ') {', ')', '\n}\n', '{', '}', '(', '[', ']', ';', ' ', '\n', '    ', '$') },
      { weight: 2, arbitrary: fc.constantFrom('"', "'", '`', '{$', '<<<EOT\n', '\nEOT', '#', '#[', '?>', '/', '*', '//', '/*', '*/', '\\', '\r') },
      { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 2 }) },
    );
    assertSortedBodies(fc.array(unit, { maxLength: 80 }).map((u) => u.join('')), phpFunctionBodies, emptyPhpFunctionBodies, (text, a, b) => text[a - 1] === '{' && text[b] === '}');
  });

  it('property: a text that parses cleanly has the same outline (symbols, ranges, signatures, imports) emptied as whole', async () => {
    const { transformed, compared } = await assertSameOutline(parsers, 'php', source(), emptyPhpFunctionBodies, 300);
    assert.ok(transformed > 200 && compared > 100, `${transformed} emptied, ${compared} compared`);
  });

  it('outlineText empties PHP from BLANK_BODIES_MIN_CHARS on', () => {
    const big = phpSource(BLANK_BODIES_MIN_CHARS + 10_000);
    assert.equal(outlineText(big, 'php'), emptyPhpFunctionBodies(big));
    assert.notEqual(outlineText(big, 'php'), big);
    const small = phpSource(BLANK_BODIES_MIN_CHARS - 10_000);
    assert.equal(outlineText(small, 'php'), small);
  });
});
