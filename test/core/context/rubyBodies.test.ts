/**
 * A large Ruby text's method bodies emptied for its outline's parse (src/core/context/rubyBodies.ts): which `def`s
 * have a body whose bounds are certain in RuboCop's layout, past strings with their `#{…}` code, `%` literals,
 * regular expressions, heredocs and comments, and, as properties on generated Ruby, that emptying keeps every line
 * break and everything outside the bodies, that any text gives sorted bodies, and that a text which parses cleanly
 * has the same outline emptied as whole.
 */
import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { BLANK_BODIES_MIN_CHARS } from '../../../src/core/context/cBodies';
import { emptyRubyMethodBodies, rubyMethodBodies } from '../../../src/core/context/rubyBodies';
import { packagedGrammars, TreeSitterParsers } from '../../../src/core/context/node/treeSitter';
import { outlineText } from '../../../src/core/context/treeOutline';
import { rubySource } from '../../../bench/context/languageSources';
import { assertSameOutline, assertSortedBodies } from './sameOutline';

function bodies(text: string): string[] {
  return rubyMethodBodies(text).map(([start, end]) => text.slice(start, end));
}

type Fragment = (n: number) => string;
/** Methods, and the constructs in and around them a line scan could take for a method's bounds. */
const ITEMS: Fragment[] = [
  (n) => `  # Doc ${n}.\n  def m${n}(a, b = {})\n    if a > ${n}\n      return a\n    end\n    b\n  end\n`,
  (n) => `  def s${n}\n    "end\n  end\n  def fake${n}\n" + 'x'\n  end\n`,
  (n) => `  def i${n}(x)\n    "#{x.map { |y| "#{y}end" }.join}"\n  end\n`,
  (n) => `  def h${n}\n    text = <<~EOS\n      end\n    EOS\n    text\n  end\n`,
  (n) => `  def p${n}\n    %w[a end b] + %r!/{2,}!.source.split(%r{/}) + [1 % 2]\n  end\n`,
  (n) => `  def r${n}(s)\n    s =~ /"end/ ? s.split /,/ : s / 2\n  end\n`,
  (n) => `  def c${n}\n    # only a comment\n  end\n`,
  (n) => `  def e${n} = ${n}\n`,
  (n) => `  def one${n}; ${n}; end\n`,
  (n) => `  def self.k${n}(a,\n             b)\n    a + b\n  rescue StandardError => e\n    nil\n  ensure\n    done\n  end\n`,
  (n) => `  private def q${n}\n    ${n}\n  end\n`,
  (n) => `  class Inner${n}\n    def x\n      1\n    end\n  end\n`,
  (n) => `  attr_reader :v${n}\n`,
  (n) => `  CONST${n} = "\ndef not_a_method\nend\n"\n`,
  (n) => `  def u${n}\n    "é😀"\n  end\n`,
  (n) => `  def crlf${n}\r\n    1\r\n  end\r\n`,
  () => `\n`,
];
/** Pieces that leave the text broken unless they pair up. */
const PIECES: Fragment[] = [(n) => `  def open${n}\n`, () => `  end\n`, () => `"\n`, () => `=begin\n`, () => `=end\n`, () => `<<~EOS\n`];

function source() {
  const item = fc.oneof({ weight: 29, arbitrary: fc.constantFrom(...ITEMS) }, { weight: 1, arbitrary: fc.constantFrom(...PIECES) });
  return fc.array(item, { minLength: 1, maxLength: 30 }).map((is) => 'require "set"\n\nmodule Big\n' + is.map((f, n) => f(n)).join('') + 'end\n');
}

describe('core/context rubyBodies (a large Ruby text parsed with its method bodies emptied)', function () {
  this.timeout(120_000);
  const parsers = new TreeSitterParsers(packagedGrammars);

  it('finds method bodies past strings with code in them, % literals, regular expressions, heredocs and comments', () => {
    const text = [
      'class K\n  def a(x = {})\n    "#{x.map { |y| "end" }}" + %r!"/end!.source + (x =~ /"/).to_s # end\n  end\n',
      '  def b\n    <<~EOS\n  end\n    EOS\n  rescue => e\n    nil\n  end\nend\n',
    ].join('');
    assert.deepEqual(bodies(text), ['\n    "#{x.map { |y| "end" }}" + %r!"/end!.source + (x =~ /"/).to_s # end\n  ']);
    assert.deepEqual(bodies('class K\n  def q\n    %q!"!\n  end\nend\n'), ['\n    %q!"!\n  '], 'a quote inside a % literal');
    // b's heredoc holds a line that is its head's indent and `end`: not certain
    assert.deepEqual(bodies('class K\n  def b\n    x\n  rescue => e\n    nil\n  end\nend\n'), ['\n    x\n  rescue => e\n    nil\n  ']);
  });

  it('leaves what is not certainly a body: one-line and endless methods, a line at the head\'s indent, a def inside a string', () => {
    assert.deepEqual(bodies('class K\n  def a; 1; end\n  def b = 2\n  def c\n    3\n  end\nend\n'), ['\n    3\n  ']);
    assert.deepEqual(bodies('class K\n  def a = begin\n    1\n  end\nend\n'), [], 'an endless method whose value closes at its indent');
    assert.deepEqual(bodies('class K\n  def a\n  x\n  end\nend\n'), [], 'a line of the body at the head\'s indent');
    assert.deepEqual(bodies('X = "\ndef fake\n  1\nend\n"\n'), [], 'a def inside a string');
    assert.deepEqual(bodies('def open\n  s = "\nend\n'), [], 'a string that never closes');
    assert.equal(emptyRubyMethodBodies('class K\n  attr_reader :a\nend\n'), undefined, 'nothing to empty');
  });

  it('keeps a nil where the body held code, and nothing where it held only comments', () => {
    assert.equal(emptyRubyMethodBodies('def a\n  1\n  2\nend\n'), 'def a\nnil\n\nend\n');
    assert.equal(emptyRubyMethodBodies('def a\n  # none\nend\n'), 'def a\n\nend\n');
  });

  it('property: emptying keeps every line break and everything outside the bodies', () => {
    fc.assert(
      fc.property(source(), (text) => {
        const emptied = emptyRubyMethodBodies(text);
        if (emptied === undefined) return;
        assert.equal(emptied.split('\n').length, text.split('\n').length);
        let at = 0;
        let from = 0;
        for (const [start, end] of rubyMethodBodies(text)) {
          const outside = text.slice(from, start);
          assert.equal(emptied.slice(at, at + outside.length), outside);
          at += outside.length;
          const inside = text.slice(start, end);
          const next = emptied.indexOf(text.slice(end, end + 3), at);
          assert.match(emptied.slice(at, next), /^(\r?\n)(nil)?(\r?\n)*$/);
          assert.equal(emptied.slice(at, next).split('\n').length, inside.split('\n').length);
          at = next;
          from = end;
        }
        assert.equal(emptied.slice(at), text.slice(from));
      }),
      { numRuns: 500 },
    );
  });

  it('property: any text at all (Ruby-ish characters, any code unit) gives sorted, disjoint bodies ending at an `end`, or none', () => {
    const unit = fc.oneof(
      { weight: 3, arbitrary: fc.constantFrom('def f\n  g\nend\n', '  def m(a)\n    x\n  end\n') },
      { weight: 12, arbitrary: fc.constantFrom('def ', 'end', '\nend\n', '  ', '(', ')', '{', '}', ';', '=', ' ', '\n', 'rescue', '%w[', ']') },
      { weight: 2, arbitrary: fc.constantFrom('"', "'", '`', '#{', '#', '/', '%r!', '!', '<<~EOS\n', '\nEOS\n', '=begin\n', '\n=end\n', '\\', '\r') },
      { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 2 }) },
    );
    assertSortedBodies(fc.array(unit, { maxLength: 80 }).map((u) => u.join('')), rubyMethodBodies, emptyRubyMethodBodies, (text, a, b) => text[a] === '\n' && text.startsWith('end', b));
  });

  it('property: a text that parses cleanly has the same outline (symbols, ranges, signatures, imports) emptied as whole', async () => {
    const { transformed, compared } = await assertSameOutline(parsers, 'ruby', source(), emptyRubyMethodBodies, 300);
    assert.ok(transformed > 200 && compared > 100, `${transformed} emptied, ${compared} compared`);
  });

  it('outlineText empties Ruby from BLANK_BODIES_MIN_CHARS on', () => {
    const big = rubySource(BLANK_BODIES_MIN_CHARS + 10_000);
    assert.equal(outlineText(big, 'ruby'), emptyRubyMethodBodies(big));
    assert.notEqual(outlineText(big, 'ruby'), big);
    const small = rubySource(BLANK_BODIES_MIN_CHARS - 10_000);
    assert.equal(outlineText(small, 'ruby'), small);
  });
});
