import assert from 'node:assert/strict';
import fc from 'fast-check';
import { checkBalance, modelBalanceReport, quickBalance } from '../../../src/core/edits/balance';
import { languageIdFromPath as languageIdForPath } from '../../../src/core/text/languages';
import { scanText } from '../../../src/core/text/scan';

const OK = { mode: 'unbalanced', status: 'all balanced' };
const ok = (text: string, lang: string) => assert.deepEqual(checkBalance(text, lang, false), OK, `${lang}: ${text}`);
function report(text: string, lang: string) {
  const r = checkBalance(text, lang, false);
  assert.ok('unbalanced' in r, `expected a problem in ${lang}: ${text}`);
  return r as { unbalanced: Array<{ symbol: string; line: number; col?: number; expected: string }> | null; quote_warnings: Array<{ symbol: string; count: number; lines: number[] }> | null };
}

describe('analyzers: checkBalance', () => {
  describe('strings and comments hide brackets', () => {
    it('JS/TS strings, comments and regex literals containing brackets', () => {
      ok('const a = "{ ( [";\nconst b = \'} ) ]\';\n// { unclosed in a comment\n/* ( block\n comment ] */\nf(a, b);\n', 'javascript');
      ok('const re = /[{(]+\\//g; const d = a / b / (c);\nreturn /}/.test(s);\n', 'typescript');
    });
    it('template literals with nested ${} and braces in their text', () => {
      ok('const s = `a { ${ `b ${c ? "}" : `${d}`}` } ) ]`;\n', 'typescript');
      const r = report('const s = `x ${ f( } `;\n', 'typescript');
      assert.ok(r.unbalanced?.some((u) => u.symbol === '('));
    });
    it('a brace in a comment of each comment syntax', () => {
      ok('x = 1  # {\n', 'python');
      ok('echo hi # (\n', 'shellscript');
      ok('SELECT 1; -- (\n/* [ */\n', 'sql');
      ok('local x = 1 -- {\n--[[ ( ]]\n', 'lua');
      ok('<!-- { -->\n<p>x</p>\n', 'html');
      ok("a: 1 # {\n", 'yaml');
      ok('% {\n\\section{x}\n', 'latex');
      ok('; (\n(defn f [] 1)\n', 'clojure');
      ok('{- ( -}\nf x = x -- [\n', 'haskell');
    });
    it('shell: command substitutions nest inside double quotes; escapes outside quotes', () => {
      ok('command="`grep -E "^Exec(\\[[^]=]*])?=" "$file" | cut -d= -f 2-`"\n', 'shellscript');
      ok('x="$(echo "a ( b" | tr ")" x)"\ncase $o in\n  (*\\\'?*) echo q ;;\nesac\n', 'shellscript');
      ok('cat << HERE_EOF\nIt\'s ( here\nHERE_EOF\n', 'shellscript');
    });
    it('shell: $# and ${#x} are not comments, case patterns and heredocs', () => {
      ok('n=$#\nm=${#arr[@]}\n', 'shellscript');
      ok('case "$x" in\n  a|b) echo one ;;\n  (c) echo two ;;\nesac\n', 'shellscript');
      ok("cat <<'EOF'\nIt's ( not code {\nEOF\necho done\n", 'shellscript');
      ok('cat <<-EOF\n\t( body\n\tEOF\n', 'shellscript');
    });
    it('Python triple-quoted strings and prefixes', () => {
      ok('s = """\nit\'s { multi-line\n"""\nt = f"{a}" + r"\\d(" + rb\'x\'\n', 'python');
      ok("doc = '''\n( apostrophe's\n'''\n", 'python');
    });
    it('Rust lifetimes, char literals and raw strings', () => {
      ok("fn f<'a>(x: &'a str) -> char { let c = '{'; let e = '\\''; let r = r#\"} \"q\" \"#; c }\n", 'rust');
    });
    it('Go raw strings and runes', () => ok('s := `raw {\nmulti`\nr := \'}\'\n', 'go'));
    it('C preprocessor lines and C++ raw strings, digit separators', () => {
      ok('#include <stdio.h>\n#define OPEN {\nint main(void) { return 0; }\n', 'c');
      ok('auto s = R"x(raw ) } ")x";\nint n = 1\'000\'000;\nchar c = \'(\';\n', 'cpp');
    });
    it('C# verbatim strings', () => ok('var p = @"C:\\dir\\ ""q"" {";\nvar q = $"{a}";\n', 'csharp'));
    it('SQL doubled quotes and dollar quoting', () => ok("SELECT 'it''s (' FROM t;\nSELECT $$ ( $$;\n", 'sql'));
    it('Perl: POD, quote-like operators, punctuation variables, __END__', () => {
      ok("=head1 NAME\n\n( pod\n\n=cut\nsub new($$) { my $x = $]; }\n$s =~ s/\\([^\\)]*\\)//g;\nmy @w = qw( a } b );\n$t =~ m,(.*)[/\\\\],s;\n$u =~ s{ ( }{ ) }x;\nmy $n = $#list;\n__END__\n( data\n", 'perl');
    });
    it('Ruby =begin blocks, PHP # comments and heredocs', () => {
      ok('=begin\n( block\n=end\nputs 1\n', 'ruby');
      ok("<?php\n# (\n#[Attr]\nfunction f() { return 'it\\'s'; }\n$s = <<<EOT\n( heredoc\nEOT;\n", 'php');
    });
    it('CSS/SCSS comments, and url(http://…) is not a comment in SCSS', () => {
      ok('a::before { content: "}"; } /* { */\n', 'css');
      ok('.a { background: url(http://x/y.png); } // {\n', 'scss');
    });
  });

  describe('quote warnings only for really unterminated strings', () => {
    it('reports the exact line of an unterminated single-line string', () => {
      const r = report('const a = 1;\nconst b = "oops;\nconst c = (3);\n', 'javascript');
      assert.deepEqual(r.quote_warnings, [{ symbol: '"', count: 1, lines: [2] }]);
      assert.equal(r.unbalanced, null, 'the scan resumes on the next line');
    });
    it('reports an unterminated multi-line kind at its opening line', () => {
      assert.deepEqual(report('a = 1\ns = """never closed\nb = 2\n', 'python').quote_warnings, [{ symbol: '"""', count: 1, lines: [2] }]);
      assert.deepEqual(report('let s = `open\nforever\n', 'javascript').quote_warnings, [{ symbol: '`', count: 1, lines: [1] }]);
    });
    it('counts several unterminated strings per symbol', () => {
      const r = report("a = 'x\nb = 'y\nc = \"ok\"\n", 'python');
      assert.deepEqual(r.quote_warnings, [{ symbol: "'", count: 2, lines: [1, 2] }]);
    });
    it('HTML prose brackets are not structure; {…} interpolations are checked', () => {
      ok('<ol><li>1) first</li><li>:) smile</li></ol>\n', 'html');
      assert.deepEqual(report('<p>{{ f(x }}</p>\n', 'vue').unbalanced, [{ symbol: '(', line: 1, col: 8, expected: ')' }]);
    });
    it('Markdown: fences without a known language are not checked', () => ok('```\n1) output (\n```\n', 'markdown'));
    it('no quote checks in Markdown, plain text, and no apostrophe problems in HTML/JSX text', () => {
      ok("It's a 'quote\n", 'markdown');
      ok("It's a \"quote\n", 'plaintext');
      ok("<p>Don't do it</p>\n", 'html');
      ok("const A = () => <p title=\"it's\">Don't {x > 1 ? 'a' : 'b'} do it</p>;\n", 'javascriptreact');
      ok("const A = () => (\n  <>\n    <B a={{ b: 1 }} c='x' />\n    It's fine\n  </>\n);\n", 'typescriptreact');
    });
    it('TSX generics are not JSX', () => ok('const f = <T,>(x: T) => { return x; };\n', 'typescriptreact'));
    it('YAML plain scalars with apostrophes', () => ok("title: Don't panic\nq: 'it''s'\nlist: [a, b]\n", 'yaml'));
    it('an unterminated block comment is reported', () => {
      assert.deepEqual(report('f();\n/* open\n', 'javascript').quote_warnings, [{ symbol: '/*', count: 1, lines: [2] }]);
    });
  });

  describe('brackets', () => {
    it('reports an unclosed opener with line, col and expected closer', () => {
      assert.deepEqual(report('function f() {\n  g(1;\n}\n', 'javascript').unbalanced, [{ symbol: '(', line: 2, col: 4, expected: ')' }]);
    });
    it('reports an extra closer with the opener it expected', () => {
      assert.deepEqual(report('f(1));\n', 'javascript').unbalanced, [{ symbol: ')', line: 1, col: 5, expected: '(' }]);
    });
    it('recovers from one missing closer without a cascade', () => {
      assert.deepEqual(report('( { ( } )\n', 'javascript').unbalanced, [{ symbol: '(', line: 1, col: 5, expected: ')' }]);
      assert.deepEqual(report('[ { ( } ) } ]\n', 'javascript').unbalanced, [{ symbol: '}', line: 1, col: 7, expected: '{' }]);
    });
  });

  describe('tags (markup only)', () => {
    it('tracks tags in HTML, with void, self-closing, optional end tags and script contents', () => {
      ok('<!DOCTYPE html>\n<html><body>\n<img src="a>b"><br/>\n<ul><li>a<li>b</ul>\n<script>\nif (a < b && c > d) { x("</div>"); }\n</script>\n</body></html>\n', 'html');
    });
    it('reports an unclosed and a stray tag', () => {
      const r = report('<div>\n<span>\n</div>\n</p>\n', 'html');
      assert.deepEqual(r.unbalanced, [
        { symbol: '<span>', line: 2, expected: '</span>' },
        { symbol: '</p>', line: 4, expected: '(no matching open tag)' },
      ]);
    });
    it('XML has no void elements', () => ok('<?xml version="1.0"?>\n<rss><link>http://x</link>\n<![CDATA[ <b> ( ]]>\n</rss>\n', 'xml'));
    it('Vue: attributes with expressions, script lang=ts and style', () => {
      ok('<template>\n  <div :class="{ a: b > c }" @click="go(1)">{{ msg }}</div>\n</template>\n<script setup lang="ts">\nconst x: Array<number> = [];\n</script>\n<style scoped>\n.a { color: red; }\n</style>\n', 'vue');
    });
    it('Markdown fenced code is scanned with the fence language', () => {
      ok("# T\n\nSome `code (` here.\n\n```js\nconst x = { a: '(' };\n```\n\n<!-- ( -->\n", 'markdown');
      assert.deepEqual(report('```python\nx = (1  # )\n```\n', 'markdown').unbalanced, [{ symbol: '(', line: 2, col: 5, expected: ')' }]);
    });
  });

  describe('result shapes', () => {
    it('verbose report lists symbols, tags, tree and matched pairs in English', () => {
      const r = checkBalance('<div>\n  <p>{{ f(x) }} (prose</p>\n</div>\n', 'vue', true);
      assert.deepEqual(r, {
        mode: 'verbose',
        symbols: '{\t2 2\n}\t2 2\n(\t2\n)\t2\n[\t(none)\n]\t(none)',
        tags: '<p>  2:2\n<div>  1:3',
        tag_tree: 'depth\ttag\topen\tclose\n2\t  <p>\t2\t2\n1\t<div>\t1\t3',
        matched: [
          { symbol: '()', open_line: 2, close_line: 2, depth: 3 },
          { symbol: '{}', open_line: 2, close_line: 2, depth: 2 },
          { symbol: '{}', open_line: 2, close_line: 2, depth: 1 },
        ],
        unbalanced: null,
        quote_warnings: null,
      });
    });
    it('verbose report without tags or pairs', () => {
      const r = checkBalance('x\n', 'javascript', true);
      assert.equal(r.mode, 'verbose');
      if (r.mode === 'verbose') {
        assert.equal(r.tags, '(none)');
        assert.equal(r.tag_tree, null);
        assert.equal(r.matched, null);
        assert.ok(!r.symbols.includes('无'));
      }
    });
    it('quickBalance mentions unterminated strings and tags', () => {
      assert.equal(quickBalance('a = "x\n', 'javascript'), 'balance: unbalanced (" unterminated at line 1)');
      assert.equal(quickBalance('<div>\n', 'html'), 'balance: unbalanced (tags unbalanced 1)');
      assert.equal(quickBalance('f(\n', 'python', 'zh'), '符号闭合快速检查：Error (() 差 1 个)');
    });
    it('unknown language ids get the C-like scanner; languageIdForPath maps files', () => {
      ok('x = "(" // )\n', 'some-unknown-language');
      assert.equal(languageIdForPath('/a/b/c.py'), 'python');
      assert.equal(languageIdForPath('C:\\x\\Makefile'), 'makefile');
      assert.equal(languageIdForPath('src/App.TSX'), 'typescriptreact');
      assert.equal(languageIdForPath('notes'), 'plaintext');
      assert.equal(languageIdForPath('Dockerfile.dev'), 'dockerfile');
    });
    it('scanText counts lines', () => assert.equal(scanText('a\nb\nc', 'plaintext').lineCount, 3));
  });

  describe('the report written for a model (the default reply)', () => {
    it("says `balanced` and never `unbalanced` of a balanced file (upstream's mode name stays for --reply json)", () => {
      assert.deepEqual(modelBalanceReport(checkBalance('f(a[1]);\n', 'javascript', false)), { balanced: true });
      const bad = modelBalanceReport(checkBalance('f(\n', 'javascript', false));
      assert.deepEqual(bad, { balanced: false, unbalanced: [{ symbol: '(', line: 1, col: 2, expected: ')' }] });
      const verbose = modelBalanceReport(checkBalance('{\n}\n', 'javascript', true));
      assert.equal(verbose.balanced, true);
      assert.ok(!('mode' in verbose) && !('unbalanced' in verbose) && !('quote_warnings' in verbose) && !('tag_tree' in verbose));
      assert.deepEqual(verbose.matched, [{ symbol: '{}', open_line: 1, close_line: 2, depth: 1 }]);
    });

    it('property: `balanced` is true exactly when upstream says all balanced, and no field names a problem then', () => {
      const text = fc.array(fc.constantFrom('(', ')', '{', '}', '[', ']', '"', "'", 'a', ' ', '\n', '<p>', '</p>', '//'), { maxLength: 40 }).map((a) => a.join(''));
      fc.assert(
        fc.property(text, fc.constantFrom('javascript', 'python', 'html'), fc.boolean(), (t, lang, verbose) => {
          const upstream = checkBalance(t, lang, verbose);
          const model = modelBalanceReport(upstream);
          const clean = verbose ? !('unbalanced' in upstream && (upstream.unbalanced || upstream.quote_warnings)) : 'status' in upstream;
          assert.equal(model.balanced, clean, JSON.stringify({ t, upstream }));
          assert.ok(!('mode' in model) && !('status' in model));
          if (model.balanced) assert.ok(!model.unbalanced && !model.quote_warnings, JSON.stringify(model));
          else assert.ok(model.unbalanced?.length || model.quote_warnings?.length, JSON.stringify(model));
        }),
        { numRuns: 300 },
      );
    });
  });
});
