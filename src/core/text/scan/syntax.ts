/**
 * What the comment/string scanner needs to know about a language: its comments, its string kinds and the
 * special constructs it has. The per-language values live in the language registry (../languages.ts).
 */

export type HashRule = 'any' | 'wordStart' | 'lineStart' | 'notAttribute';

export interface StringRule {
  open: string;
  close: string;
  multiline: boolean;
  /** char code of the escape character, 0 for none */
  escape: number;
  /** `''` inside the string stands for one quote (SQL, YAML, PowerShell, C# verbatim) */
  doubled: boolean;
}

export interface Syntax {
  kind: 'code' | 'markup' | 'markdown' | 'plain';
  lineComments: string[];
  blockComments: Array<[string, string]>;
  nestedComments: boolean;
  hashRule: HashRule;
  /** ordered so that longer openers (`"""`) come before shorter ones (`"`) */
  strings: StringRule[];
  /** JS/TS template literals with `${}` nesting */
  template: boolean;
  /** JSX elements in expression position (javascript, javascriptreact, typescriptreact; not typescript) */
  jsx: boolean;
  /** JS regex literal heuristic */
  regex: boolean;
  /** Rust raw strings r#"…"# and char-vs-lifetime for `'` */
  rust: boolean;
  /** `'x'` is a char literal, a lone `'` is a tick (Rust lifetimes, Haskell primes) */
  charTick: boolean;
  /** C preprocessor: `#` first on a line runs to end of line (with `\` continuations) */
  preprocessor: boolean;
  cppRaw: boolean;
  digitSeparator: boolean;
  csharpVerbatim: boolean;
  /** heredocs: `sh` allows a space after `<<` (`cat << EOF`), `ruby` (also Perl) does not (`a << b`) */
  heredoc: 'none' | 'sh' | 'ruby' | 'php';
  shellCase: boolean;
  /** POSIX shell quoting: `\` escapes in code, `$(…)` and backticks nest inside double quotes */
  shellStrings: boolean;
  /** Perl quote-like operators (m//, s{}{}, qw(), tr///…) and punctuation variables ($), $]) */
  perl: boolean;
  /** a line holding only one of these ends the code (Perl/Ruby `__END__`) */
  endMarkers: string[];
  sqlDollar: boolean;
  luaLong: boolean;
  /** block comments that must start a line: Ruby =begin/=end, Perl POD =pod…=cut */
  lineStartBlocks: Array<[string, string]>;
  /** YAML: a quote opens a string only at the start of a scalar */
  yamlQuotes: boolean;
  /** `//` right after `:` is not a comment (SCSS/Less `url(http://…)`) */
  slashAfterColon: boolean;
  quoteChecks: boolean;
  /** markup: xml has no void elements and no raw-text elements */
  xml: boolean;
  /** C-family: a line of only words (`static int`) continues into the next line's signature */
  typePrefixLines: boolean;
  /** C#: `[Attr]` lines are annotations */
  bracketAttributes: boolean;
}

export const str = (open: string, multiline: boolean, escape = '\\', doubled = false, close = open): StringRule => ({
  open,
  close,
  multiline,
  escape: escape ? escape.charCodeAt(0) : 0,
  doubled,
});

/** Upstream's C-like scanner: also the syntax of unknown languages. */
export const BASE: Syntax = {
  kind: 'code',
  lineComments: ['//'],
  blockComments: [['/*', '*/']],
  nestedComments: false,
  hashRule: 'any',
  strings: [str('"', false), str("'", false)],
  template: false,
  regex: false,
  jsx: false,
  rust: false,
  charTick: false,
  preprocessor: false,
  cppRaw: false,
  digitSeparator: false,
  csharpVerbatim: false,
  heredoc: 'none',
  shellCase: false,
  shellStrings: false,
  perl: false,
  endMarkers: [],
  sqlDollar: false,
  luaLong: false,
  lineStartBlocks: [],
  yamlQuotes: false,
  slashAfterColon: false,
  quoteChecks: true,
  xml: false,
  typePrefixLines: false,
  bracketAttributes: false,
};

export const def = (over: Partial<Syntax>): Syntax => ({ ...BASE, ...over });

export const JS = def({ template: true, regex: true, jsx: true });
export const TS = def({ template: true, regex: true });
export const C = def({ preprocessor: true, typePrefixLines: true });
export const HASH_CODE = { lineComments: ['#'], blockComments: [] as Array<[string, string]> };
export const MARKUP = def({ kind: 'markup', lineComments: [], blockComments: [['<!--', '-->']], strings: [str('"', true, ''), str("'", true, '')] });
