/**
 * Bracket, tag and quote balance (be-balance, and the `balance` field of edit results).
 *
 * One linear, language-aware scanner turns a text into a stream of bracket tokens, markup tag pairs and
 * unterminated-string warnings; funcRange and tagRange reuse it. Fixes over upstream: comment syntax per
 * language (`#`, `--`, `<!-- -->`, …), quote warnings only for strings that really are unterminated
 * (end of line for single-line kinds, end of file for multi-line kinds), tags only in markup languages,
 * and a bracket matcher that recovers from one missing bracket instead of cascading.
 */

// ---------------------------------------------------------------------------------------------------------
// Language syntax table

type HashRule = 'any' | 'wordStart' | 'lineStart' | 'notAttribute';

interface StringRule {
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

const str = (open: string, multiline: boolean, escape = '\\', doubled = false, close = open): StringRule => ({
  open,
  close,
  multiline,
  escape: escape ? escape.charCodeAt(0) : 0,
  doubled,
});

const BASE: Syntax = {
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

const def = (over: Partial<Syntax>): Syntax => ({ ...BASE, ...over });

const JS = def({ template: true, regex: true, jsx: true });
const TS = def({ template: true, regex: true });
const C = def({ preprocessor: true, typePrefixLines: true });
const HASH_CODE = { lineComments: ['#'], blockComments: [] as Array<[string, string]> };
const MARKUP = def({ kind: 'markup', lineComments: [], blockComments: [['<!--', '-->']], strings: [str('"', true, ''), str("'", true, '')] });

const SYNTAX: Record<string, Syntax> = {
  javascript: JS,
  javascriptreact: JS,
  typescript: TS,
  typescriptreact: JS,
  json: def({ strings: [str('"', false)] }), // comments allowed: tsconfig.json and friends are JSONC
  jsonc: def({ strings: [str('"', false)] }),
  json5: def({}),
  c: C,
  cpp: def({ preprocessor: true, cppRaw: true, digitSeparator: true, typePrefixLines: true }),
  'cuda-cpp': def({ preprocessor: true, cppRaw: true, digitSeparator: true, typePrefixLines: true }),
  'objective-c': C,
  'objective-cpp': def({ preprocessor: true, cppRaw: true, typePrefixLines: true }),
  csharp: def({
    preprocessor: true,
    csharpVerbatim: true,
    typePrefixLines: true,
    bracketAttributes: true,
    strings: [str('"""', true, ''), str('"', false), str("'", false)],
  }),
  java: def({ typePrefixLines: true, strings: [str('"""', true), str('"', false), str("'", false)] }),
  kotlin: def({ nestedComments: true, strings: [str('"""', true, ''), str('"', false), str("'", false)] }),
  scala: def({ nestedComments: true, strings: [str('"""', true, ''), str('"', false), str("'", false)] }),
  groovy: def({ strings: [str('"""', true), str("'''", true), str('"', false), str("'", false)] }),
  swift: def({ nestedComments: true, strings: [str('"""', true), str('"', false)] }),
  dart: def({ strings: [str('"""', true), str("'''", true), str('"', false), str("'", false)] }),
  go: def({ strings: [str('`', true, ''), str('"', false), str("'", false)] }),
  rust: def({ nestedComments: true, rust: true, charTick: true, strings: [str('"', true)] }),
  php: def({
    lineComments: ['//', '#'],
    hashRule: 'notAttribute',
    heredoc: 'php',
    strings: [str('"', true), str("'", true), str('`', true)],
  }),
  css: def({ lineComments: [] }),
  scss: def({ slashAfterColon: true }),
  less: def({ slashAfterColon: true }),
  python: def({
    ...HASH_CODE,
    strings: [str('"""', true), str("'''", true), str('"', false), str("'", false)],
  }),
  shellscript: def({
    ...HASH_CODE,
    hashRule: 'wordStart',
    heredoc: 'sh',
    shellStrings: true,
    shellCase: true,
    strings: [str('"', true), str("'", true, ''), str('`', true)],
  }),
  ruby: def({
    ...HASH_CODE,
    heredoc: 'ruby',
    lineStartBlocks: [['=begin', '=end']],
    endMarkers: ['__END__'],
    strings: [str('"', true), str("'", true), str('`', true)],
  }),
  perl: def({
    ...HASH_CODE,
    hashRule: 'wordStart',
    heredoc: 'ruby',
    perl: true,
    regex: true,
    lineStartBlocks: [['=', '=cut']],
    endMarkers: ['__END__', '__DATA__'],
    strings: [str('"', true), str("'", true)],
    quoteChecks: false,
  }),
  r: def({ ...HASH_CODE, strings: [str('"', true), str("'", true), str('`', true)] }),
  julia: def({ ...HASH_CODE, blockComments: [['#=', '=#']], nestedComments: true, strings: [str('"""', true), str('"', true)] }),
  elixir: def({ ...HASH_CODE, strings: [str('"""', true), str("'''", true), str('"', true), str("'", true)] }),
  yaml: def({
    ...HASH_CODE,
    hashRule: 'wordStart',
    yamlQuotes: true,
    strings: [str('"', true), str("'", true, '', true)],
  }),
  toml: def({ ...HASH_CODE, strings: [str('"""', true), str("'''", true, ''), str('"', false), str("'", false, '')] }),
  makefile: def({ ...HASH_CODE, strings: [], quoteChecks: false }),
  dockerfile: def({ ...HASH_CODE, hashRule: 'lineStart', strings: [], quoteChecks: false }),
  ini: def({ lineComments: [';', '#'], hashRule: 'lineStart', blockComments: [], strings: [], quoteChecks: false }),
  properties: def({ lineComments: ['#', '!'], hashRule: 'lineStart', blockComments: [], strings: [], quoteChecks: false }),
  powershell: def({
    ...HASH_CODE,
    blockComments: [['<#', '#>']],
    strings: [str('"', true, '`', true), str("'", true, '', true)],
  }),
  sql: def({
    lineComments: ['--'],
    sqlDollar: true,
    strings: [str("'", true, '', true), str('"', true, '', true), str('`', false, '')],
  }),
  lua: def({ lineComments: ['--'], blockComments: [], luaLong: true }),
  haskell: def({ lineComments: ['--'], blockComments: [['{-', '-}']], nestedComments: true, charTick: true, strings: [str('"', false)] }),
  elm: def({ lineComments: ['--'], blockComments: [['{-', '-}']], nestedComments: true, charTick: true, strings: [str('"""', true), str('"', false)] }),
  fsharp: def({ blockComments: [['(*', '*)']], nestedComments: true, charTick: true, strings: [str('"""', true, ''), str('"', true)] }),
  ocaml: def({ lineComments: [], blockComments: [['(*', '*)']], nestedComments: true, charTick: true, strings: [str('"', true)] }),
  vb: def({ lineComments: ["'"], blockComments: [], strings: [str('"', false, '', true)] }),
  bat: def({ lineComments: ['::', 'REM ', 'rem ', '@REM ', '@rem '], hashRule: 'lineStart', blockComments: [], strings: [], quoteChecks: false }),
  coffeescript: def({ lineComments: ['#'], blockComments: [['###', '###']], strings: [str('"""', true), str("'''", true), str('"', true), str("'", true)] }),
  clojure: def({ lineComments: [';'], blockComments: [], strings: [str('"', true)] }),
  scheme: def({ lineComments: [';'], blockComments: [['#|', '|#']], strings: [str('"', true)] }),
  lisp: def({ lineComments: [';'], blockComments: [['#|', '|#']], strings: [str('"', true)] }),
  erlang: def({ lineComments: ['%'], blockComments: [], strings: [str('"', true), str("'", false)] }),
  latex: def({ lineComments: ['%'], blockComments: [], strings: [], quoteChecks: false }),
  tex: def({ lineComments: ['%'], blockComments: [], strings: [], quoteChecks: false }),
  html: MARKUP,
  vue: MARKUP,
  svelte: MARKUP,
  astro: MARKUP,
  xml: def({ ...MARKUP, xml: true }),
  xsl: def({ ...MARKUP, xml: true }),
  svg: def({ ...MARKUP, xml: true }),
  markdown: def({ kind: 'markdown', lineComments: [], blockComments: [['<!--', '-->']], strings: [], quoteChecks: false }),
  plaintext: def({ kind: 'plain', lineComments: [], blockComments: [], strings: [], quoteChecks: false }),
};
const ALIASES: Record<string, string> = {
  js: 'javascript', jsx: 'javascriptreact', ts: 'typescript', tsx: 'typescriptreact', mjs: 'javascript',
  bash: 'shellscript', sh: 'shellscript', zsh: 'shellscript', shell: 'shellscript', fish: 'shellscript',
  'c++': 'cpp', cs: 'csharp', 'c#': 'csharp', py: 'python', rb: 'ruby', rs: 'rust', yml: 'yaml', md: 'markdown',
  text: 'plaintext', txt: 'plaintext', golang: 'go', kt: 'kotlin', pl: 'perl', ps1: 'powershell', htm: 'html',
  xhtml: 'html', postgres: 'sql', mysql: 'sql', plsql: 'sql', dotenv: 'properties', 'git-commit': 'plaintext',
  'jade': 'plaintext', pug: 'plaintext', restructuredtext: 'plaintext', objc: 'objective-c', zig: 'c', d: 'c',
};

/** The scanner syntax for a VS Code language id; unknown ids get upstream's C-like scanner. */
export function syntaxFor(languageId: string): Syntax {
  const id = (languageId || '').toLowerCase();
  return SYNTAX[id] ?? SYNTAX[ALIASES[id] ?? ''] ?? BASE;
}

/** Kept for callers of the analyzers: the one mapping lives in core/text/language. */
export { languageIdFromPath as languageIdForPath } from '../text/language';

// ---------------------------------------------------------------------------------------------------------
// Scanner output

/** Bracket token kinds: openers are even, their closer is opener + 1. */
export enum Tok {
  LBrace = 0,
  RBrace = 1,
  LBracket = 2,
  RBracket = 3,
  LParen = 4,
  RParen = 5,
}
export const TOKEN_CHARS = ['{', '}', '[', ']', '(', ')'] as const;

export interface TagPair {
  tag: string; // lowercased
  openLine: number;
  closeLine: number; // line of the closing tag's `>`
  openOffset: number;
  depth: number;
}

export interface UnbalancedItem {
  symbol: string;
  line: number;
  col?: number;
  expected: string;
}

export interface QuoteWarning {
  symbol: string;
  count: number;
  lines: number[];
}

export interface MatchedPair {
  symbol: string;
  open_line: number;
  close_line: number;
  depth: number;
}

/** The raw result of one scan: parallel arrays of bracket tokens, plus tags and unterminated strings. */
export interface ScanResult {
  kinds: Uint8Array;
  offsets: Int32Array;
  lines: Int32Array;
  /** for `{` tokens: offset of the first code token of the statement header before it (see funcRange) */
  headers: Int32Array;
  unterminated: Array<{ symbol: string; line: number }>;
  tagPairs: TagPair[];
  tagUnbalanced: UnbalancedItem[];
  lineCount: number;
  /** code-level occurrences of the words asked for (scanText's `keywords`), for keyword-delimited blocks */
  keywords: KeywordHit[];
}

export interface KeywordHit {
  word: string;
  offset: number;
  line: number;
  /** first code token of its line */
  first: boolean;
  /** char code just before the word (`.` in `x.end`, `:` in `:end`) */
  before: number;
  /** last significant code char before the word (0 at the start) */
  lastSig: number;
}

// ---------------------------------------------------------------------------------------------------------
// Character helpers

const LF = 10, CR = 13, SP = 32, TAB = 9;
const isSpace = (c: number) => c === SP || c === TAB || c === CR || c === 11 || c === 12;
const isIdentStart = (c: number) =>
  (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95 || c === 36 || c > 127;
const isIdentPart = (c: number) => isIdentStart(c) || (c >= 48 && c <= 57);
const isDigit = (c: number) => c >= 48 && c <= 57;
const isHex = (c: number) => isDigit(c) || (c >= 97 && c <= 102) || (c >= 65 && c <= 70);

function countLF(text: string, from: number, to: number): number {
  let n = 0;
  for (let i = text.indexOf('\n', from); i !== -1 && i < to; i = text.indexOf('\n', i + 1)) n++;
  return n;
}

function lineEnd(text: string, from: number, to: number): number {
  const j = text.indexOf('\n', from);
  return j === -1 || j > to ? to : j;
}

const REGEX_KEYWORDS = new Set([
  'return', 'throw', 'case', 'else', 'do', 'typeof', 'instanceof', 'in', 'of', 'new', 'void', 'delete', 'yield', 'await',
  // Perl
  'split', 'grep', 'if', 'unless', 'and', 'or', 'not', 'when', 'while', 'until',
]);
/** After these characters a `/` starts a regex literal rather than a division. */
const REGEX_AFTER = new Uint8Array(128);
for (const ch of '([{,;:=!?+-*%&|^~<>') REGEX_AFTER[ch.charCodeAt(0)] = 1;

/** A line starting with one of these continues the previous line's statement. */
const CONT_START = new Uint8Array(128);
for (const ch of '{.?:=+-*/%&|^<>)]') CONT_START[ch.charCodeAt(0)] = 1;
/** A line ending with one of these continues into the next line. */
const CONT_END = new Uint8Array(128);
for (const ch of ',([=+-*/%&|^!~?:<>.@\\') CONT_END[ch.charCodeAt(0)] = 1;
/** After a `}` on the same line, these continue a type in a signature: `} {`, `}>`, `}[]`, `} | X`, `} & Y`. */
const TYPE_CONT = new Uint8Array(128);
for (const ch of '{>[|&') TYPE_CONT[ch.charCodeAt(0)] = 1;
const CONT_WORDS = new Set([
  'throws', 'where', 'extends', 'implements', 'const', 'noexcept', 'override', 'final', 'requires', 'with', 'and', 'or',
]);

const PERL_PUNCT_VARS = new Uint8Array(128);
// `$(` `$)` `$[` are left out: prototypes like `($$)` and `($;$)` are far more common than those variables
for (const ch of '$];,./\\\'"&`+!@<>|?^~=-%:0123456789') PERL_PUNCT_VARS[ch.charCodeAt(0)] = 1;
const PERL_QUOTE_WORDS = new Set(['m', 'q', 'qq', 'qw', 'qr', 'qx', 's', 'tr', 'y']);
const CLOSER_OF: Record<string, string> = { '(': ')', '[': ']', '{': '}', '<': '>' };

const VOID_ELEMENTS = new Set([
  'area', 'base', 'br', 'col', 'embed', 'hr', 'img', 'input', 'link', 'meta', 'param', 'source', 'track', 'wbr',
  'keygen', 'command',
]);
/** HTML elements whose end tag may be omitted: not reported when implicitly closed. */
const OPTIONAL_END = new Set([
  'li', 'p', 'td', 'th', 'tr', 'thead', 'tbody', 'tfoot', 'option', 'optgroup', 'dt', 'dd', 'colgroup', 'caption',
  'rp', 'rt', 'rb', 'rtc', 'head', 'body', 'html',
]);

// ---------------------------------------------------------------------------------------------------------
// The code scanner

class Scanner {
  readonly out: ScanResult;
  line = 1;
  /** growable token buffers (typed arrays: millions of tokens stay cheap) */
  count = 0;
  private cap = 1024;
  private kinds = new Uint8Array(1024);
  private offs = new Int32Array(1024);
  private lns = new Int32Array(1024);
  private hdrs = new Int32Array(1024);
  constructor(readonly text: string) {
    this.out = {
      kinds: this.kinds, offsets: this.offs, lines: this.lns, headers: this.hdrs,
      unterminated: [], tagPairs: [], tagUnbalanced: [], lineCount: 0, keywords: [],
    };
  }
  /** words to report as KeywordHits (Ruby/Lua block keywords) */
  keywords?: Set<string>;

  token(kind: number, offset: number, header: number): void {
    const n = this.count;
    if (n === this.cap) this.grow();
    this.kinds[n] = kind;
    this.offs[n] = offset;
    this.lns[n] = this.line;
    this.hdrs[n] = header;
    this.count = n + 1;
  }

  private grow(): void {
    const cap = this.cap * 2;
    const k = new Uint8Array(cap); k.set(this.kinds); this.kinds = k;
    const o = new Int32Array(cap); o.set(this.offs); this.offs = o;
    const l = new Int32Array(cap); l.set(this.lns); this.lns = l;
    const h = new Int32Array(cap); h.set(this.hdrs); this.hdrs = h;
    this.cap = cap;
  }

  /** Completes the result: token arrays trimmed to the tokens written. */
  finish(): ScanResult {
    const n = this.count;
    Object.assign(this.out, {
      kinds: this.kinds.subarray(0, n), offsets: this.offs.subarray(0, n),
      lines: this.lns.subarray(0, n), headers: this.hdrs.subarray(0, n), lineCount: this.line,
    });
    return this.out;
  }

  warn(symbol: string, line: number): void {
    this.out.unterminated.push({ symbol, line });
  }

  /** Skips a string whose opener ends at `i`; returns the index after it, or -1 when unterminated. */
  private skipString(i: number, end: number, rule: StringRule): number {
    const text = this.text;
    const close = rule.close;
    const c0 = close.charCodeAt(0);
    const single = close.length === 1;
    while (i < end) {
      const c = text.charCodeAt(i);
      if (c === rule.escape) {
        if (i + 1 < end && text.charCodeAt(i + 1) === LF) this.line++;
        i += 2;
        continue;
      }
      if (c === LF) {
        if (!rule.multiline) return -1;
        this.line++;
        i++;
        continue;
      }
      if (c === c0 && (single || text.startsWith(close, i))) {
        if (rule.doubled && single && text.charCodeAt(i + 1) === c0) {
          i += 2;
          continue;
        }
        return i + close.length;
      }
      i++;
    }
    return -1;
  }

  /** Skips a block comment starting at `i` (its opener). Returns the end index (or `end` if unterminated). */
  skipBlockComment(i: number, end: number, open: string, close: string, nested: boolean): number {
    const text = this.text;
    const startLine = this.line;
    if (!nested) {
      const j = text.indexOf(close, i + open.length);
      const stop = j === -1 || j + close.length > end ? end : j + close.length;
      this.line += countLF(text, i, stop);
      if (stop === end && (j === -1 || j + close.length > end)) this.warn(open, startLine);
      return stop;
    }
    let depth = 0;
    while (i < end) {
      if (text.startsWith(open, i)) {
        depth++;
        i += open.length;
      } else if (text.startsWith(close, i)) {
        depth--;
        i += close.length;
        if (depth === 0) return i;
      } else {
        if (text.charCodeAt(i) === LF) this.line++;
        i++;
      }
    }
    this.warn(open, startLine);
    return end;
  }

  /**
   * Scans code in [from, end) and appends bracket tokens. `stopAtCloseTag` (e.g. `</script`) ends the scan
   * early when met in code (used for script and style elements inside markup). Returns where it stopped.
   */
  scanCode(from: number, end: number, syn: Syntax, stopAtCloseTag?: string, stopAtBrace = false): number {
    const text = this.text;
    const lineComments = syn.lineComments;
    const blockComments = syn.blockComments;
    const strings = syn.strings;

    // chars that may start a comment or string need the slow path
    const special = new Uint8Array(128);
    for (const s of lineComments) special[s.charCodeAt(0)] = 1;
    for (const [o] of blockComments) special[o.charCodeAt(0)] = 1;
    for (const [o] of syn.lineStartBlocks) special[o.charCodeAt(0)] = 1;
    for (const r of strings) special[r.open.charCodeAt(0)] = 1;
    if (syn.template) special[96] = 1;
    if (syn.regex) special[47] = 1;
    if (syn.charTick) special[39] = 1;
    if (syn.preprocessor) special[35] = 1;
    if (syn.csharpVerbatim) special[64] = special[36] = 1;
    if (syn.heredoc !== 'none') special[60] = 1;
    if (syn.shellStrings) special[92] = special[34] = special[96] = 1;
    if (syn.perl) special[36] = 1;
    for (const m of syn.endMarkers) special[m.charCodeAt(0)] = 1;
    if (syn.sqlDollar) special[36] = 1;
    if (syn.luaLong) special[91] = special[39] = special[34] = 1;
    if (stopAtCloseTag) special[60] = 1;

    // header tracking (per bracket frame): offset of the first code token after the last boundary
    let hdr = -1;
    const frames: number[] = []; // saved hdr of enclosing frames
    const frameKinds: number[] = [];
    // template literal nesting: brace depth inside each active ${…}, and the opening line of the literal
    const tmplDepth: number[] = [];
    const tmplLine: number[] = [];
    // line state
    let lineHasToken = false;
    let lineHasAny = false; // tokens or comments
    let lineFirstIsAnnotation = false;
    let lineOnlyWords = true;
    let lastSig = 0; // last significant code char (0 = start of input)
    let lastWordStart = -1;
    let lastWordEnd = -1;
    let pendingNL = false;
    let prevLineAnnotation = false;
    let prevLineLast = 0;
    let prevLineOnlyWords = false;
    // shell case … esac
    let caseWaitIn = 0;
    let casePattern = false;
    let caseDepth = 0;
    // Rust/Swift/C# `where` clauses: their commas do not end the signature
    let whereClause = false;

    let closedHeader = -1; // header of the block the last `}` closed, and where
    let closedAt = -1;
    const onlySpaceBetween = (a: number, b: number) => {
      for (let k = a; k < b; k++) if (!isSpace(text.charCodeAt(k))) return false;
      return true;
    };
    const inBraceFrame = () => frameKinds.length === 0 || frameKinds[frameKinds.length - 1] === Tok.LBrace;

    /** Called for the first char of every code token (not comments/whitespace). */
    const tokenStart = (i: number, c: number, wordEnd = -1) => {
      if (!lineHasToken) {
        lineHasToken = true;
        lineHasAny = true;
        lineFirstIsAnnotation = c === 64 || (c === 35 && text.charCodeAt(i + 1) === 91) || (syn.bracketAttributes && c === 91);
        if (pendingNL && inBraceFrame() && !whereClause) {
          const continues =
            (c < 128 && CONT_START[c] === 1) ||
            prevLineAnnotation ||
            (prevLineLast < 128 && CONT_END[prevLineLast] === 1) ||
            (wordEnd > i && wordEnd - i <= 12 && CONT_WORDS.has(text.slice(i, wordEnd))) ||
            (syn.typePrefixLines && prevLineOnlyWords);
          if (!continues) hdr = i;
        }
        pendingNL = false;
      }
      if (hdr === -1) {
        // `): { a: T } {` and `<T extends { a: T }>(…) {`: a type literal inside a signature does not end it
        hdr = closedAt >= 0 && TYPE_CONT[c] === 1 && onlySpaceBetween(closedAt + 1, i) ? closedHeader : i;
      }
      closedAt = -1;
    };

    const newline = (i: number) => {
      // i is the index of '\n'
      if (inBraceFrame()) {
        if (!lineHasAny) {
          hdr = -1; // blank line: a statement boundary
          pendingNL = false;
        } else if (lineHasToken) {
          pendingNL = true;
          prevLineAnnotation = lineFirstIsAnnotation;
          prevLineLast = lastSig;
          prevLineOnlyWords = lineOnlyWords;
        }
      }
      lineHasToken = false;
      lineHasAny = false;
      lineOnlyWords = true;
      this.line++;
      return this.pendingHeredocs.length ? this.afterNewline(i + 1, end) : i + 1;
    };

    const emit = (kind: number, i: number, templateExpr = false) => {
      if ((kind & 1) === 0) {
        const header = kind === Tok.LBrace ? (hdr === -1 ? i : hdr) : -1;
        this.token(kind, i, header);
        frames.push(hdr === -1 ? i : hdr);
        frameKinds.push(kind);
        hdr = -1;
        if (tmplDepth.length && kind === Tok.LBrace && !templateExpr) tmplDepth[tmplDepth.length - 1]++;
      } else {
        this.token(kind, i, -1);
        if (frames.length) {
          const saved = frames.pop()!;
          frameKinds.pop();
          // `)` and `]` belong to the statement; `}` ends it, unless a type continues it (see tokenStart)
          hdr = kind === Tok.RBrace ? -1 : saved;
          if (kind === Tok.RBrace) {
            closedHeader = saved;
            closedAt = i;
          }
        } else hdr = -1;
      }
    };

    let i = from;
    // shebang
    if (i === 0 && text.startsWith('#!')) i = lineEnd(text, 0, end);

    while (i < end) {
      const c = text.charCodeAt(i);
      if (c === LF) {
        i = newline(i);
        continue;
      }
      if (isSpace(c)) {
        i++;
        continue;
      }

      // ----- slow path: comments, strings, regexes and other language specials
      if (c < 128 && special[c] === 1) {
        const j = this.special(i, end, c, syn, lineHasToken, lastSig, lastWordStart, lastWordEnd, stopAtCloseTag);
        if (j === -2) return i; // reached the close tag
        if (j >= 0) {
          // a comment (no token), a preprocessor line (a boundary), or a string/regex/template (a token)
          const kind = this.lastSpecialKind;
          if (kind === 'comment') {
            lineHasAny = true;
          } else if (kind === 'preprocessor') {
            lineHasAny = true;
            hdr = -1;
            pendingNL = false;
          } else {
            tokenStart(i, c);
            lineOnlyWords = false;
            lastSig = kind === 'regex' ? 41 /* like ')': a division may follow */ : kind === 'template' ? 96 : 34;
            if (kind === 'template' && this.templateOpenedExpr) {
              // the literal's text ended at a `${`: scan its expression as code
              this.templateOpenedExpr = false;
              emit(Tok.LBrace, j - 1, true);
              tmplDepth.push(0);
              tmplLine.push(this.templateLine);
            }
          }
          i = j;
          continue;
        }
      }

      // ----- identifiers, keywords and numbers
      if (isIdentPart(c)) {
        const start = i;
        i++;
        while (i < end) {
          const d = text.charCodeAt(i);
          if (isIdentPart(d)) i++;
          else if (syn.charTick && d === 39) i++; // Haskell primes: foldl'
          else if (syn.digitSeparator && d === 39 && isDigit(text.charCodeAt(start)) && isHex(text.charCodeAt(i + 1))) i++;
          else break;
        }
        if (this.keywords && i - start <= 8) {
          const w = text.slice(start, i);
          if (this.keywords.has(w)) {
            this.out.keywords.push({ word: w, offset: start, line: this.line, first: !lineHasToken, before: start > 0 ? text.charCodeAt(start - 1) : 0, lastSig });
          }
        }
        tokenStart(start, c, i);
        if (i - start === 5 && c === 119 && text.startsWith('where', start)) whereClause = true;
        lastSig = text.charCodeAt(i - 1);
        if (lastSig === 39) lastSig = 97;
        lastWordStart = start;
        lastWordEnd = i;
        const next = text.charCodeAt(i);
        if (syn.perl && i - start <= 2) {
          const j = this.skipPerlQuote(start, i, end);
          if (j >= 0) {
            lineOnlyWords = false;
            lastSig = 34;
            i = j;
            continue;
          }
        }
        const needWord = syn.shellCase || (syn.rust && (next === 34 || next === 35)) || (syn.cppRaw && next === 34);
        if (needWord && i - start <= 12) {
          const word = text.slice(start, i);
          // raw strings introduced by a word prefix
          if (syn.rust && (next === 34 || next === 35) && (word === 'r' || word === 'br' || word === 'cr')) {
            const j = this.skipRustRaw(i, end);
            if (j >= 0) {
              lineOnlyWords = false;
              lastSig = 34;
              i = j;
              continue;
            }
          }
          if (syn.cppRaw && next === 34 && /^(?:u8|[uUL])?R$/.test(word)) {
            const j = this.skipCppRaw(i, end);
            lineOnlyWords = false;
            lastSig = 34;
            i = j;
            continue;
          }
          if (syn.shellCase) {
            if (word === 'case') {
              caseWaitIn++;
            } else if (word === 'in' && caseWaitIn > 0) {
              caseWaitIn--;
              caseDepth++;
              casePattern = true;
            } else if (word === 'esac' && caseDepth > 0) {
              caseDepth--;
              casePattern = false;
            }
          }
        }
        continue;
      }

      // ----- JSX element in expression position
      if (c === 60 && syn.jsx) {
        const n1 = text.charCodeAt(i + 1);
        const lastWord = isIdentPart(lastSig) && lastWordEnd - lastWordStart <= 10 ? text.slice(lastWordStart, lastWordEnd) : '';
        const operandPos = lastSig === 0 || (lastSig < 128 && REGEX_AFTER[lastSig] === 1) || REGEX_KEYWORDS.has(lastWord);
        if (operandPos && (isIdentStart(n1) || n1 === 62)) {
          const j = this.jsxElement(i, end, syn);
          if (j >= 0) {
            tokenStart(i, c);
            lineOnlyWords = false;
            lastSig = 41;
            i = j;
            continue;
          }
        }
      }

      // ----- punctuation
      tokenStart(i, c);
      if (c !== 42 && c !== 38 && c !== 58) lineOnlyWords = false; // `*`, `&`, `::` keep `static int *`-style lines
      switch (c) {
        case 123: // {
          whereClause = false;
          emit(Tok.LBrace, i);
          break;
        case 125: // }
          if (stopAtBrace && frames.length === 0 && tmplDepth.length === 0) return i; // end of a JSX {expression}
          if (tmplDepth.length && tmplDepth[tmplDepth.length - 1] === 0) {
            // the `}` closing a template literal's `${`
            this.token(Tok.RBrace, i, -1);
            if (frames.length) {
              frames.pop();
              frameKinds.pop();
            }
            tmplDepth.pop();
            const line0 = tmplLine.pop()!;
            const j = this.skipTemplate(i + 1, end, line0);
            if (this.templateOpenedExpr) {
              this.templateOpenedExpr = false;
              emit(Tok.LBrace, j - 1, true);
              tmplDepth.push(0);
              tmplLine.push(line0);
            }
            hdr = -1;
            lastSig = 96;
            i = j;
            continue;
          }
          if (tmplDepth.length) tmplDepth[tmplDepth.length - 1]--;
          emit(Tok.RBrace, i);
          break;
        case 91: // [
          emit(Tok.LBracket, i);
          break;
        case 93: // ]
          emit(Tok.RBracket, i);
          break;
        case 40: // (
          if (casePattern && syn.shellCase) break; // optional `(` before a case pattern
          emit(Tok.LParen, i);
          break;
        case 41: // )
          if (casePattern && syn.shellCase) {
            casePattern = false; // the `)` ending a case pattern
            break;
          }
          emit(Tok.RParen, i);
          break;
        case 59: // ;
          whereClause = false;
          if (inBraceFrame()) hdr = -1;
          if (syn.shellCase && caseDepth > 0 && text.charCodeAt(i + 1) === 59) {
            casePattern = true;
            i++;
            if (text.charCodeAt(i + 1) === 38) i++; // ;;&
          } else if (syn.shellCase && caseDepth > 0 && text.charCodeAt(i + 1) === 38) {
            casePattern = true; // ;&
            i++;
          }
          break;
        case 44: // ,
          if (!whereClause || !inBraceFrame()) hdr = -1;
          break;
      }
      lastSig = c;
      i++;
    }
    return end;
  }

  // state handed back from special() to scanCode()
  private lastSpecialKind: 'comment' | 'preprocessor' | 'string' | 'regex' | 'template' = 'comment';
  private templateOpenedExpr = false;
  private templateLine = 0;

  /**
   * The slow path of scanCode for a char that may start a comment, a string or another special construct.
   * Returns the index after the construct, -1 when `c` is an ordinary char here, -2 at a stop close tag.
   */
  private special(
    i: number,
    end: number,
    c: number,
    syn: Syntax,
    lineHasToken: boolean,
    lastSig: number,
    lastWordStart: number,
    lastWordEnd: number,
    stopAtCloseTag?: string,
  ): number {
    const text = this.text;
    const next = text.charCodeAt(i + 1);

    if (stopAtCloseTag && c === 60 && next === 47 && text.substr(i, stopAtCloseTag.length).toLowerCase() === stopAtCloseTag) {
      return -2;
    }

    // line-start constructs
    if (!lineHasToken) {
      const atLineStart = i === 0 || text.charCodeAt(i - 1) === LF;
      if (atLineStart) {
        for (const m of syn.endMarkers) {
          if (text.startsWith(m, i) && /^[ \t\r]*(?:\n|$)/.test(text.slice(i + m.length, i + m.length + 4))) {
            this.lastSpecialKind = 'comment';
            this.line += countLF(text, i, end);
            return end; // data follows
          }
        }
        for (const [o, cl] of syn.lineStartBlocks) {
          // a lone `=` opener (Perl POD) needs a directive word: `=head1`, `=pod`, `=item`
          if (text.startsWith(o, i) && (o !== '=' || isAsciiLetter(text.charCodeAt(i + 1)))) {
            this.lastSpecialKind = 'comment';
            const startLine = this.line;
            let j = lineEnd(text, i, end);
            for (;;) {
              if (j >= end) {
                this.warn(o, startLine);
                return end;
              }
              this.line++;
              const k = lineEnd(text, j + 1, end);
              if (text.startsWith(cl, j + 1)) {
                return k;
              }
              j = k;
            }
          }
        }
      }
      if (c === 35 && syn.preprocessor) {
        // # directive, with backslash continuations
        let j = lineEnd(text, i, end);
        while (j < end && (text.charCodeAt(j - 1) === 92 || (text.charCodeAt(j - 1) === CR && text.charCodeAt(j - 2) === 92))) {
          this.line++;
          j = lineEnd(text, j + 1, end);
        }
        this.lastSpecialKind = 'preprocessor';
        return j;
      }
    }

    // block comments (before line comments: `--[[` must win over `--`, `<#` over `<`)
    if (syn.luaLong && c === 45 && next === 45 && text.charCodeAt(i + 2) === 91) {
      const m = /\[(=*)\[/y;
      m.lastIndex = i + 2;
      const r = m.exec(text);
      if (r) {
        this.lastSpecialKind = 'comment';
        return this.skipLong(i + 2 + r[0].length, end, `]${r[1]}]`, '--[[');
      }
    }
    for (const [o, cl] of syn.blockComments) {
      if (c === o.charCodeAt(0) && text.startsWith(o, i)) {
        this.lastSpecialKind = 'comment';
        return this.skipBlockComment(i, end, o, cl, syn.nestedComments);
      }
    }
    for (const lc of syn.lineComments) {
      if (c !== lc.charCodeAt(0) || !text.startsWith(lc, i)) continue;
      if (c === 35) {
        const prev = i > 0 ? text.charCodeAt(i - 1) : LF;
        if (syn.hashRule === 'wordStart' && !(prev === LF || isSpace(prev) || prev === 59 || prev === 124 || prev === 38 || prev === 40)) continue;
        if (syn.hashRule === 'lineStart' && lineHasToken) continue;
        if (syn.hashRule === 'notAttribute' && next === 91) continue;
      }
      if (syn.slashAfterColon && lc === '//' && i > 0 && text.charCodeAt(i - 1) === 58) continue;
      this.lastSpecialKind = 'comment';
      return lineEnd(text, i, end);
    }

    // strings
    if (syn.shellStrings && (c === 92 || c === 34 || c === 96)) {
      this.lastSpecialKind = 'string';
      if (c === 92) {
        // `\x` outside quotes: an escaped char (`\(`, `\'`), a line continuation
        if (next === LF) this.line++;
        return Math.min(end, i + 2);
      }
      const startLine = this.line;
      const j = c === 34 ? this.skipShellDouble(i + 1, end) : this.skipShellBacktick(i + 1, end);
      if (j < 0) {
        this.warn(c === 34 ? '"' : '`', startLine);
        return end;
      }
      return j;
    }
    if (syn.luaLong && c === 91) {
      const m = /\[(=*)\[/y;
      m.lastIndex = i;
      const r = m.exec(text);
      if (r) {
        this.lastSpecialKind = 'string';
        return this.skipLong(i + r[0].length, end, `]${r[1]}]`, '[[');
      }
      return -1;
    }
    if (c === 96 && syn.template) {
      this.lastSpecialKind = 'template';
      return this.skipTemplate(i + 1, end, this.line);
    }
    if (syn.csharpVerbatim && (c === 64 || c === 36)) {
      const m = /[@$]{1,2}"/y;
      m.lastIndex = i;
      const r = m.exec(text);
      if (r && r[0].includes('@')) {
        this.lastSpecialKind = 'string';
        return this.stringOrWarn(i + r[0].length, end, str('"', true, '', true), '@"');
      }
      if (c === 64) return -1;
    }
    if (syn.perl && c === 36) {
      // $) $( $] $[ $; $, $/ $\ $' $" … are variables, not brackets or quotes
      this.lastSpecialKind = 'string';
      return next < 128 && PERL_PUNCT_VARS[next] === 1 ? i + 2 : i + 1;
    }
    if (syn.sqlDollar && c === 36) {
      const m = /\$([A-Za-z_][A-Za-z_0-9]*)?\$/y;
      m.lastIndex = i;
      const r = m.exec(text);
      if (!r) return -1;
      this.lastSpecialKind = 'string';
      const j = text.indexOf(r[0], i + r[0].length);
      const stop = j === -1 || j > end ? end : j + r[0].length;
      this.line += countLF(text, i, stop);
      return stop;
    }
    if (c === 39 && syn.charTick) {
      // 'x' or '\n' is a char literal; anything else is a lifetime / prime / tick
      if (next === 92) {
        const j = text.indexOf("'", i + 3);
        const le = lineEnd(text, i, end);
        this.lastSpecialKind = 'string';
        return j !== -1 && j < le ? j + 1 : i + 1;
      }
      const w = next >= 0xd800 && next <= 0xdbff ? 2 : 1;
      if (next !== LF && text.charCodeAt(i + 1 + w) === 39) {
        this.lastSpecialKind = 'string';
        return i + 2 + w;
      }
      this.lastSpecialKind = 'string';
      return i + 1;
    }
    if (syn.heredoc !== 'none' && c === 60 && next === 60) return this.heredocStart(i, end, syn);
    if (syn.yamlQuotes && (c === 34 || c === 39)) {
      // only a quote at the start of a scalar opens a string: `key: 'v'`, `- "v"`, `['a']`
      let k = i - 1;
      while (k >= 0 && (text.charCodeAt(k) === SP || text.charCodeAt(k) === TAB)) k--;
      const p = k < 0 ? LF : text.charCodeAt(k);
      if (!(p === LF || p === 58 || p === 45 || p === 91 || p === 123 || p === 44 || p === 63 || p === 124 || p === 62)) return -1;
    }
    for (const rule of syn.strings) {
      if (c === rule.open.charCodeAt(0) && text.startsWith(rule.open, i)) {
        if (syn.digitSeparator && c === 39 && i > 0 && isHex(text.charCodeAt(i - 1)) && isHex(next)) return -1;
        this.lastSpecialKind = 'string';
        return this.stringOrWarn(i + rule.open.length, end, rule, rule.open);
      }
    }

    // regex literal: only where an operand may start, and only if it closes on the same line
    if (c === 47 && syn.regex) {
      const lastWord = isIdentPart(lastSig) && lastWordEnd - lastWordStart <= 10 ? text.slice(lastWordStart, lastWordEnd) : '';
      const canStart = lastSig === 0 || (lastSig < 128 && REGEX_AFTER[lastSig] === 1) || REGEX_KEYWORDS.has(lastWord);
      if (!canStart || next === 47 || next === 42) return -1;
      const le = Math.min(lineEnd(text, i, end), i + 4000);
      let inClass = false;
      for (let j = i + 1; j < le; j++) {
        const d = text.charCodeAt(j);
        if (d === 92) j++;
        else if (d === 91) inClass = true;
        else if (d === 93) inClass = false;
        else if (d === 47 && !inClass) {
          this.lastSpecialKind = 'regex';
          j++;
          while (j < end && isIdentPart(text.charCodeAt(j))) j++; // flags
          return j;
        }
      }
      return -1;
    }
    return -1;
  }

  /**
   * Parses a JSX element starting at `<` (speculatively: on failure everything is rolled back and -1
   * returned). Attribute strings and element text are not JS strings, so `<p>Don't</p>` is fine;
   * `{…}` containers are scanned as code.
   */
  private jsxElement(i: number, end: number, syn: Syntax): number {
    const save = { count: this.count, line: this.line, warnings: this.out.unterminated.length, tags: this.out.tagPairs.length };
    const fail = () => {
      this.count = save.count;
      this.line = save.line;
      this.out.unterminated.length = save.warnings;
      this.out.tagPairs.length = save.tags;
      return -1;
    };
    if (this.jsxOff || this.jsxFailed.has(i)) return -1;
    this.jsxHitEnd = false;
    const r = this.jsxElementInner(i, end, syn, 0);
    // a failed parse that ran to the end means this is not JSX-shaped code: stop trying (stays linear)
    if (r < 0 && this.jsxHitEnd) this.jsxOff = true;
    return r < 0 ? fail() : r;
  }

  private jsxOff = false;
  private jsxHitEnd = false;
  /** start offsets of elements that failed to parse (a failure does not depend on the context) */
  private readonly jsxFailed = new Set<number>();

  private jsxContainer(j: number, end: number, syn: Syntax): number {
    this.token(Tok.LBrace, j, j);
    const k = this.scanCode(j + 1, end, syn, undefined, true);
    if (k >= end || this.text.charCodeAt(k) !== 125) {
      this.jsxHitEnd = true;
      return -1;
    }
    this.token(Tok.RBrace, k, -1);
    return k + 1;
  }

  private jsxElementInner(i: number, end: number, syn: Syntax, depth: number): number {
    if (depth > 200 || this.jsxFailed.has(i)) return -1;
    const r = this.jsxElementParse(i, end, syn, depth);
    if (r < 0) this.jsxFailed.add(i);
    return r;
  }

  private jsxElementParse(i: number, end: number, syn: Syntax, depth: number): number {
    const text = this.text;
    const skipWs = (j: number, count = true) => {
      for (; j < end; j++) {
        const c = text.charCodeAt(j);
        if (c === LF) {
          if (count) this.line++;
        }
        else if (!isSpace(c)) break;
      }
      return j;
    };
    const name = (j: number) => {
      while (j < end) {
        const c = text.charCodeAt(j);
        if (isIdentPart(c) || c === 46 || c === 58 || c === 45) j++;
        else break;
      }
      return j;
    };
    let j = i + 1;
    const openLine = this.line;
    let tag = '';
    if (text.charCodeAt(j) !== 62) {
      const n0 = j;
      j = name(j);
      if (j === n0) return -1;
      tag = text.slice(n0, j).toLowerCase();
      // TypeScript generics in .tsx: `<T,>` and `<T extends X>` are not elements
      const k = skipWs(j, false);
      const c = text.charCodeAt(k);
      if (c === 44 || text.startsWith('extends', k)) return -1;
      // attributes
      for (;;) {
        j = skipWs(j);
        if (j >= end) {
          this.jsxHitEnd = true;
          return -1;
        }
        const d = text.charCodeAt(j);
        if (d === 47 && text.charCodeAt(j + 1) === 62) {
          if (this.line > openLine) this.out.tagPairs.push({ tag, openLine, closeLine: this.line, openOffset: i, depth: depth + 1 });
          return j + 2; // self-closing (recorded as a range only when it spans lines)
        }
        if (d === 62) {
          j++;
          break;
        }
        if (d === 123) {
          j = this.jsxContainer(j, end, syn);
          if (j < 0) return -1;
          continue;
        }
        if (!isIdentStart(d)) return -1;
        j = name(j);
        const e = skipWs(j, false);
        if (text.charCodeAt(e) !== 61) continue; // boolean attribute
        j = skipWs(j);
        j = skipWs(j + 1);
        const v = text.charCodeAt(j);
        if (v === 34 || v === 39) {
          const q = text.indexOf(String.fromCharCode(v), j + 1);
          if (q === -1 || q >= end) {
            this.jsxHitEnd = true;
            return -1;
          }
          this.line += countLF(text, j, q);
          j = q + 1;
        } else if (v === 123) {
          j = this.jsxContainer(j, end, syn);
          if (j < 0) return -1;
        } else if (v === 60) {
          j = this.jsxElementInner(j, end, syn, depth + 1);
          if (j < 0) return -1;
        } else return -1;
      }
    } else j++;
    // children, up to the closing tag
    while (j < end) {
      const c = text.charCodeAt(j);
      if (c === LF) {
        this.line++;
        j++;
      } else if (c === 123) {
        j = this.jsxContainer(j, end, syn);
        if (j < 0) return -1;
      } else if (c === 60) {
        if (text.charCodeAt(j + 1) === 47) {
          const gt = text.indexOf('>', j + 2);
          if (gt === -1 || gt >= end) {
            this.jsxHitEnd = true;
            return -1;
          }
          this.line += countLF(text, j, gt);
          this.out.tagPairs.push({ tag, openLine, closeLine: this.line, openOffset: i, depth: depth + 1 });
          return gt + 1;
        }
        j = this.jsxElementInner(j, end, syn, depth + 1);
        if (j < 0) return -1;
      } else j++;
    }
    this.jsxHitEnd = true;
    return -1;
  }

  /** Skips a string body; on an unterminated string records a warning and resumes at the line end (or EOF). */
  private stringOrWarn(i: number, end: number, rule: StringRule, symbol: string): number {
    const startLine = this.line;
    const j = this.skipString(i, end, rule);
    if (j >= 0) return j;
    this.warn(symbol, startLine);
    if (rule.multiline) return end;
    // single-line kinds stop at the end of the line (the newline itself is scanned as code)
    return lineEnd(this.text, i, end);
  }

  /**
   * Perl quote-like operators: `m/…/`, `qw(…)`, `s{…}{…}`, `tr/a/b/` with any delimiter (bracket pairs nest).
   * `start..wordEnd` is the word; returns the index after the construct and its modifiers, or -1.
   */
  private skipPerlQuote(start: number, wordEnd: number, end: number): number {
    const text = this.text;
    const word = text.slice(start, wordEnd);
    if (!PERL_QUOTE_WORDS.has(word)) return -1;
    const before = start > 0 ? text.charCodeAt(start - 1) : 0;
    // `$s`, `%q`, `->s(`, `Foo::y` are names, not operators
    if (before === 36 || before === 64 || before === 37 || before === 38 || before === 62 || before === 58) return -1;
    let j = wordEnd;
    while (j < end && (text.charCodeAt(j) === SP || text.charCodeAt(j) === TAB)) j++;
    const d = text[j];
    if (!d || /[\w\s;)=]/.test(d) || (j > wordEnd && (d === '#' || d === ',')) || text.startsWith('=>', j)) return -1;
    const startLine = this.line;
    const part = (from: number): number => {
      const open = text[from];
      const close = CLOSER_OF[open] ?? open;
      let depth = 0;
      for (let k = from + 1; k < end; k++) {
        const c = text[k];
        if (c === '\\') k++;
        else if (c === '\n') this.line++;
        else if (c === close && open !== close && depth > 0) depth--;
        else if (c === close) return k + 1;
        else if (c === open && open !== close) depth++;
      }
      return -1;
    };
    let k = part(j);
    if (k >= 0 && (word === 's' || word === 'tr' || word === 'y')) {
      if (CLOSER_OF[text[j]]) {
        while (k < end && /\s/.test(text[k])) {
          if (text[k] === '\n') this.line++;
          k++;
        }
        k = part(k);
      } else k = part(k - 1);
    }
    if (k < 0) {
      this.warn(word + text[j], startLine);
      return end;
    }
    while (k < end && isIdentPart(text.charCodeAt(k))) k++; // modifiers
    return k;
  }

  /** Skips a shell double-quoted string body (after `"`): `$(…)` and backticks nest. -1 when unterminated. */
  private skipShellDouble(i: number, end: number): number {
    const text = this.text;
    while (i < end) {
      const c = text.charCodeAt(i);
      if (c === 92) {
        if (text.charCodeAt(i + 1) === LF) this.line++;
        i += 2;
      } else if (c === 34) return i + 1;
      else if (c === 96) {
        i = this.skipShellBacktick(i + 1, end);
        if (i < 0) return -1;
      } else if (c === 36 && text.charCodeAt(i + 1) === 40) {
        i = this.skipShellParen(i + 2, end);
        if (i < 0) return -1;
      } else {
        if (c === LF) this.line++;
        i++;
      }
    }
    return -1;
  }

  /** Skips a backtick command substitution body (after the opening backtick). -1 when unterminated. */
  private skipShellBacktick(i: number, end: number): number {
    const text = this.text;
    while (i < end) {
      const c = text.charCodeAt(i);
      if (c === 92) {
        if (text.charCodeAt(i + 1) === LF) this.line++;
        i += 2;
      } else if (c === 96) return i + 1;
      else if (c === 34) {
        i = this.skipShellDouble(i + 1, end);
        if (i < 0) return -1;
      } else if (c === 39) {
        const q = text.indexOf("'", i + 1);
        if (q === -1 || q >= end) return -1;
        this.line += countLF(text, i, q);
        i = q + 1;
      } else {
        if (c === LF) this.line++;
        i++;
      }
    }
    return -1;
  }

  /** Skips a `$(…)` body inside double quotes (after `$(`), quote-aware. -1 when unterminated. */
  private skipShellParen(i: number, end: number): number {
    const text = this.text;
    let depth = 1;
    while (i < end) {
      const c = text.charCodeAt(i);
      if (c === 92) {
        if (text.charCodeAt(i + 1) === LF) this.line++;
        i += 2;
        continue;
      }
      if (c === 40) depth++;
      else if (c === 41 && --depth === 0) return i + 1;
      else if (c === 34 || c === 96) {
        i = c === 34 ? this.skipShellDouble(i + 1, end) : this.skipShellBacktick(i + 1, end);
        if (i < 0) return -1;
        continue;
      } else if (c === 39) {
        const q = text.indexOf("'", i + 1);
        if (q === -1 || q >= end) return -1;
        this.line += countLF(text, i, q);
        i = q + 1;
        continue;
      } else if (c === LF) this.line++;
      i++;
    }
    return -1;
  }

  private skipLong(i: number, end: number, close: string, symbol: string): number {
    const j = this.text.indexOf(close, i);
    const startLine = this.line;
    const stop = j === -1 || j + close.length > end ? end : j + close.length;
    this.line += countLF(this.text, i, stop);
    if (j === -1) this.warn(symbol, startLine);
    return stop;
  }

  /**
   * Skips template literal text from `i` (after the backtick or the `}` of a `${}`): returns the index after
   * the closing backtick, or after `${` with templateOpenedExpr set.
   */
  private skipTemplate(i: number, end: number, line0: number): number {
    const text = this.text;
    this.templateLine = line0;
    while (i < end) {
      const c = text.charCodeAt(i);
      if (c === 92) {
        if (text.charCodeAt(i + 1) === LF) this.line++;
        i += 2;
        continue;
      }
      if (c === 96) return i + 1;
      if (c === 36 && text.charCodeAt(i + 1) === 123) {
        this.templateOpenedExpr = true;
        return i + 2;
      }
      if (c === LF) this.line++;
      i++;
    }
    this.warn('`', line0);
    return end;
  }

  private skipRustRaw(i: number, end: number): number {
    const text = this.text;
    let j = i;
    while (text.charCodeAt(j) === 35) j++;
    if (text.charCodeAt(j) !== 34) return -1;
    const close = '"' + '#'.repeat(j - i);
    const k = text.indexOf(close, j + 1);
    const stop = k === -1 || k + close.length > end ? end : k + close.length;
    if (k === -1) this.warn('r"', this.line);
    this.line += countLF(text, i, stop);
    return stop;
  }

  private skipCppRaw(i: number, end: number): number {
    const text = this.text;
    const open = text.indexOf('(', i + 1);
    const le = lineEnd(text, i, end);
    if (open === -1 || open > le || open - i - 1 > 16) return i + 1;
    const close = ')' + text.slice(i + 1, open) + '"';
    const k = text.indexOf(close, open + 1);
    const stop = k === -1 || k + close.length > end ? end : k + close.length;
    if (k === -1) this.warn('R"', this.line);
    this.line += countLF(text, i, stop);
    return stop;
  }

  private pendingHeredocs: Array<{ word: string; strip: boolean; line: number }> = [];

  /** `<<WORD`, `<<-WORD`, `<<~WORD`, `<<'WORD'` (shell, Ruby, Perl) and `<<<WORD` (PHP). */
  private heredocStart(i: number, end: number, syn: Syntax): number {
    const text = this.text;
    const re =
      syn.heredoc === 'php'
        ? /<<<[ \t]*(["']?)([A-Za-z_][A-Za-z_0-9]*)\1/y
        : syn.heredoc === 'sh'
          ? /<<(-?)[ \t]*(["']?)\\?([A-Za-z_][A-Za-z_0-9]*)\2/y
          : /<<([-~]?)(["']?)([A-Za-z_][A-Za-z_0-9]*)\2/y;
    re.lastIndex = i;
    const m = re.exec(text);
    if (!m) return -1;
    const word = syn.heredoc === 'php' ? m[2] : m[3];
    this.pendingHeredocs.push({ word, strip: syn.heredoc === 'php' || m[1] !== '', line: this.line });
    this.lastSpecialKind = 'string';
    return i + m[0].length;
  }

  /** Called by scanCode at every newline: skips pending heredoc bodies. */
  afterNewline(i: number, end: number): number {
    const text = this.text;
    while (this.pendingHeredocs.length) {
      const h = this.pendingHeredocs.shift()!;
      let j = i;
      for (;;) {
        if (j >= end) {
          this.warn('<<' + h.word, h.line);
          return end;
        }
        const le = lineEnd(text, j, end);
        let body = text.slice(j, le);
        if (body.endsWith('\r')) body = body.slice(0, -1);
        if (h.strip) body = body.trimStart();
        const done = body === h.word || (h.strip && (body === h.word + ';' || body.startsWith(h.word + ';') || body.startsWith(h.word + ')') || body.startsWith(h.word + ',')));
        if (done) {
          i = le; // the terminator line's newline is scanned normally
          break;
        }
        if (le >= end) {
          this.warn('<<' + h.word, h.line);
          return end;
        }
        this.line++;
        j = le + 1;
      }
    }
    return i;
  }
}


// ---------------------------------------------------------------------------------------------------------
// Markup, Markdown and plain-text scanners

function emitBracket(s: Scanner, c: number, i: number): void {
  switch (c) {
    case 123: s.token(Tok.LBrace, i, i); break;
    case 125: s.token(Tok.RBrace, i, -1); break;
    case 91: s.token(Tok.LBracket, i, -1); break;
    case 93: s.token(Tok.RBracket, i, -1); break;
    case 40: s.token(Tok.LParen, i, -1); break;
    case 41: s.token(Tok.RParen, i, -1); break;
  }
}
const isBracket = (c: number) => c === 123 || c === 125 || c === 91 || c === 93 || c === 40 || c === 41;
const isAsciiLetter = (c: number) => (c >= 97 && c <= 122) || (c >= 65 && c <= 90);
const MAX_TAG = 65536;

function embeddedSyntax(tagName: string, tagText: string): Syntax | 'raw' {
  const attr = (name: string) => new RegExp(`\\b${name}\\s*=\\s*["']?([\\w/+.-]+)`, 'i').exec(tagText)?.[1]?.toLowerCase();
  if (tagName === 'style') {
    const lang = attr('lang');
    return syntaxFor(lang === 'scss' || lang === 'sass' ? 'scss' : lang === 'less' ? 'less' : 'css');
  }
  const lang = attr('lang');
  const type = attr('type');
  if (type && /json/.test(type)) return syntaxFor('json');
  if (type && !/javascript|ecmascript|module|babel|jsx|typescript|^text\/ts/.test(type)) return 'raw';
  return syntaxFor(lang === 'ts' || lang === 'tsx' || lang === 'typescript' ? 'typescript' : 'javascript');
}

/** Index of `</name` (case-insensitive) from `from`, or `end`. */
function indexOfCloseTag(text: string, from: number, end: number, closeTag: string): number {
  for (let j = text.indexOf('</', from); j !== -1 && j < end; j = text.indexOf('</', j + 2)) {
    if (text.substr(j, closeTag.length).toLowerCase() === closeTag) return j;
  }
  return end;
}

/** Scans HTML/XML/Vue/Svelte: tags (multi-line, quote-aware), comments, CDATA, `<!…>`, `<?…?>`, embedded script/style. */
export function scanMarkupInto(s: Scanner, from: number, end: number, syn: Syntax): void {
  const text = s.text;
  const out = s.out;
  const stack: Array<{ name: string; line: number; offset: number }> = [];
  let textBraces = 0;
  let i = from;
  while (i < end) {
    const c = text.charCodeAt(i);
    if (c === LF) {
      s.line++;
      i++;
      continue;
    }
    if (c !== 60) {
      // text: `{…}` are template interpolations (Vue, Svelte, Angular, Jinja) and are checked with what
      // they contain; other brackets in prose are not structure ("1) first", ":)")
      if (c === 123) {
        textBraces++;
        emitBracket(s, c, i);
      } else if (c === 125) {
        if (textBraces > 0) textBraces--;
        emitBracket(s, c, i);
      } else if (textBraces > 0 && isBracket(c)) emitBracket(s, c, i);
      i++;
      continue;
    }
    const next = text.charCodeAt(i + 1);
    if (next === 33) {
      // <!-- -->, <![CDATA[ ]]>, <!DOCTYPE …>
      if (text.startsWith('<!--', i)) {
        i = s.skipBlockComment(i, end, '<!--', '-->', false);
        continue;
      }
      const close = text.startsWith('<![CDATA[', i) ? ']]>' : '>';
      const j = text.indexOf(close, i + 2);
      const stop = j === -1 || j + close.length > end ? end : j + close.length;
      if (j === -1) s.warn(close === '>' ? '<!' : '<![CDATA[', s.line);
      s.line += countLF(text, i, stop);
      i = stop;
      continue;
    }
    if (next === 63) {
      const j = text.indexOf('?>', i + 2);
      const stop = j === -1 || j + 2 > end ? end : j + 2;
      s.line += countLF(text, i, stop);
      i = stop;
      continue;
    }
    const tagStart = i;
    const closing = next === 47;
    const nameStart = closing ? i + 2 : i + 1;
    if (!isAsciiLetter(text.charCodeAt(nameStart))) {
      i++; // a `<` in text
      continue;
    }
    let k = nameStart + 1;
    while (k < end) {
      const d = text.charCodeAt(k);
      if (isIdentPart(d) || d === 45 || d === 58 || d === 46) k++;
      else break;
    }
    const name = text.slice(nameStart, k).toLowerCase();
    // find the tag's `>`, skipping quoted attribute values and `{…}` expressions
    const startLine = s.line;
    let line = s.line;
    let quote = 0;
    let quoteLine = 0;
    let braces = 0;
    let j = k;
    let gt = -1;
    const limit = Math.min(end, i + MAX_TAG);
    const tokensBefore = s.count;
    for (; j < limit; j++) {
      const d = text.charCodeAt(j);
      if (d === LF) line++;
      if (quote) {
        if (d === quote) quote = 0;
        continue;
      }
      if (d === 34 || d === 39) {
        // a quote opens an attribute value only after `=` (an apostrophe elsewhere is just text)
        let p = j - 1;
        while (p > k && isSpace(text.charCodeAt(p))) p--;
        if (text.charCodeAt(p) === 61 || braces > 0) {
          quote = d;
          quoteLine = line;
        }
        continue;
      }
      if (d === 123) braces++;
      else if (d === 125 && braces > 0) braces--;
      else if (d === 62 && braces === 0) {
        gt = j;
        break;
      } else if (d === 60 && braces === 0) break; // a new tag starts: this `<` was text
    }
    if (gt === -1) {
      if (quote) s.warn(String.fromCharCode(quote), quoteLine);
      s.count = tokensBefore;
      i++;
      continue;
    }
    // brackets inside the tag (Vue/Svelte expressions), outside quoted values
    {
      let q = 0;
      let ln = startLine;
      for (let p = k; p < gt; p++) {
        const d = text.charCodeAt(p);
        if (d === LF) ln++;
        else if (q) {
          if (d === q) q = 0;
        } else if ((d === 34 || d === 39) && /=\s*$/.test(text.slice(Math.max(k, p - 8), p))) q = d;
        else if (isBracket(d)) {
          const save = s.line;
          s.line = ln;
          emitBracket(s, d, p);
          s.line = save;
        }
      }
    }
    s.line = line;
    i = gt + 1;
    if (closing) {
      let idx = stack.length - 1;
      while (idx >= 0 && stack[idx].name !== name) idx--;
      if (idx === -1) {
        out.tagUnbalanced.push({
          symbol: `</${name}>`,
          line: startLine,
          expected: stack.length ? `</${stack[stack.length - 1].name}>` : '(no matching open tag)',
        });
        continue;
      }
      for (let p = stack.length - 1; p > idx; p--) {
        const t = stack[p];
        if (syn.xml || !OPTIONAL_END.has(t.name)) out.tagUnbalanced.push({ symbol: `<${t.name}>`, line: t.line, expected: `</${t.name}>` });
      }
      const open = stack[idx];
      stack.length = idx;
      out.tagPairs.push({ tag: name, openLine: open.line, closeLine: line, openOffset: open.offset, depth: idx + 1 });
      continue;
    }
    const selfClosing = text.charCodeAt(gt - 1) === 47;
    if (selfClosing || (!syn.xml && VOID_ELEMENTS.has(name))) continue;
    stack.push({ name, line: startLine, offset: tagStart });
    if (!syn.xml && (name === 'script' || name === 'style' || name === 'textarea' || name === 'title')) {
      const closeTag = `</${name}`;
      const emb = name === 'script' || name === 'style' ? embeddedSyntax(name, text.slice(k, gt)) : 'raw';
      if (emb === 'raw') {
        const stop = indexOfCloseTag(text, i, end, closeTag);
        s.line += countLF(text, i, stop);
        i = stop;
      } else {
        i = s.scanCode(i, end, emb, closeTag);
      }
    }
  }
  for (const t of stack) {
    if (syn.xml || !OPTIONAL_END.has(t.name)) out.tagUnbalanced.push({ symbol: `<${t.name}>`, line: t.line, expected: `</${t.name}>` });
  }
}

/** Markdown: brackets in prose, fenced code scanned with the fence's language, inline code and comments skipped. */
export function scanMarkdownInto(s: Scanner, from: number, end: number): void {
  const text = s.text;
  let i = from;
  let atLineStart = true;
  while (i < end) {
    const c = text.charCodeAt(i);
    if (c === LF) {
      s.line++;
      i++;
      atLineStart = true;
      continue;
    }
    if (atLineStart) {
      atLineStart = false;
      const fence = /^ {0,3}(`{3,}|~{3,})[ \t]*([^\s`]*)[^\n]*/my;
      fence.lastIndex = i;
      const m = fence.exec(text);
      if (m) {
        const bodyStart = Math.min(end, i + m[0].length + 1);
        const closeRe = new RegExp(`^ {0,3}${m[1][0] === '`' ? '`' : '~'}{${m[1].length},}[ \\t\\r]*$`, 'mg');
        closeRe.lastIndex = bodyStart;
        let bodyEnd = end;
        let after = end;
        for (let r = closeRe.exec(text); r; r = closeRe.exec(text)) {
          if (r.index >= bodyStart) {
            bodyEnd = r.index;
            after = r.index + r[0].length;
            break;
          }
        }
        s.line++; // the fence line
        const info = m[2].toLowerCase();
        // only fences in a known language are checked (output, logs and diagrams are not code)
        const known = info && (SYNTAX[info] || ALIASES[info]) ? syntaxFor(info) : undefined;
        if (known?.kind === 'code') s.scanCode(bodyStart, Math.min(bodyEnd, end), known);
        else s.line += countLF(text, bodyStart, Math.min(bodyEnd, end));
        i = Math.min(after, end);
        if (bodyStart > end) i = end;
        continue;
      }
    }
    if (c === 92 && text.charCodeAt(i + 1) === 96) {
      i += 2; // an escaped backtick does not start inline code (an escaped bracket is still a bracket)
      continue;
    }
    if (c === 60 && text.startsWith('<!--', i)) {
      i = s.skipBlockComment(i, end, '<!--', '-->', false);
      continue;
    }
    if (c === 96) {
      let n = 1;
      while (text.charCodeAt(i + n) === 96) n++;
      const ticks = '`'.repeat(n);
      const le = lineEnd(text, i, end);
      const j = text.indexOf(ticks, i + n);
      i = j !== -1 && j < le ? j + n : i + n;
      continue;
    }
    if (isBracket(c)) emitBracket(s, c, i);
    i++;
  }
}

export function scanPlainInto(s: Scanner, from: number, end: number): void {
  const text = s.text;
  for (let i = from; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c === LF) s.line++;
    else if (isBracket(c)) emitBracket(s, c, i);
  }
}

/** Scans a whole text with the scanner of `languageId`. */
export function scanText(text: string, languageId: string, keywords?: Set<string>): ScanResult {
  const syn = syntaxFor(languageId);
  const s = new Scanner(text);
  s.keywords = keywords;
  if (syn.kind === 'markup') scanMarkupInto(s, 0, text.length, syn);
  else if (syn.kind === 'markdown') scanMarkdownInto(s, 0, text.length);
  else if (syn.kind === 'plain') scanPlainInto(s, 0, text.length);
  else s.scanCode(0, text.length, syn);
  return s.finish();
}

export { Scanner };

// ---------------------------------------------------------------------------------------------------------
// Bracket matching

export interface Matching {
  /** token index of the partner, -1 when unbalanced */
  partner: Int32Array;
  /** nesting depth of a matched pair (1 = outermost), on both tokens */
  depth: Int32Array;
  /** token indices that are unbalanced, in token order */
  unbalanced: number[];
}

const LOOKAHEAD = 4096;
/** how deep below the top a partner is searched for, and how much of the stack a simulation copies */
const SEARCH_DEPTH = 256;

/**
 * Mismatch cost of continuing with `stackKinds` over the next tokens (plain matching, no recovery). Only
 * the top of the stack is copied; closers that reach below it are assumed to match (the same for every
 * option compared, so the comparison stays fair).
 */
function simulate(kinds: ArrayLike<number>, from: number, stackKinds: number[]): number {
  const st = stackKinds;
  let errors = 0;
  const to = Math.min(kinds.length, from + LOOKAHEAD);
  for (let t = from; t < to; t++) {
    const k = kinds[t];
    if ((k & 1) === 0) st.push(k);
    else if (!st.length) continue;
    else if (st[st.length - 1] === k - 1) st.pop();
    else errors++;
  }
  if (to === kinds.length) errors += st.length;
  return errors;
}

/**
 * Stack matching with recovery: at a closer that does not match the top, either the closer is extra or
 * the openers above its partner were never closed; the choice that leaves fewer mismatches over the next
 * tokens wins. So one missing bracket is reported once, not as a cascade.
 */
export function matchBrackets(kinds: ArrayLike<number>): Matching {
  const n = kinds.length;
  const partner = new Int32Array(n).fill(-1);
  const depth = new Int32Array(n);
  const stack: number[] = [];
  const bad: number[] = [];
  // lookahead work is bounded overall, so a file full of mismatches stays linear
  let budget = 4_000_000 + 4 * n;
  // openers of each kind on the stack: a closer whose kind is absent needs no search
  const open = [0, 0, 0, 0, 0, 0];
  for (let t = 0; t < n; t++) {
    const k = kinds[t];
    if ((k & 1) === 0) {
      stack.push(t);
      open[k]++;
      continue;
    }
    const top = stack.length - 1;
    if (top >= 0 && kinds[stack[top]] === k - 1) {
      const o = stack.pop()!;
      open[k - 1]--;
      partner[o] = t;
      partner[t] = o;
      depth[o] = depth[t] = stack.length + 1;
      continue;
    }
    if (open[k - 1] === 0) {
      bad.push(t);
      continue;
    }
    let j = top - 1;
    const floor = Math.max(0, top - SEARCH_DEPTH);
    while (j >= floor && kinds[stack[j]] !== k - 1) j--;
    if (j < floor || budget <= 0) {
      bad.push(t);
      continue;
    }
    budget -= 2 * (LOOKAHEAD + SEARCH_DEPTH);
    const base = Math.max(0, j - SEARCH_DEPTH);
    const stackKinds: number[] = [];
    for (let p = base; p <= top; p++) stackKinds.push(kinds[stack[p]]);
    const costUnclosed = top - j + simulate(kinds, t + 1, stackKinds.slice(0, j - base));
    const costExtra = 1 + simulate(kinds, t + 1, stackKinds);
    if (costExtra <= costUnclosed) {
      bad.push(t);
      continue;
    }
    for (let p = top; p > j; p--) {
      bad.push(stack[p]);
      open[kinds[stack[p]]]--;
    }
    stack.length = j + 1;
    const o = stack.pop()!;
    open[k - 1]--;
    partner[o] = t;
    partner[t] = o;
    depth[o] = depth[t] = stack.length + 1;
  }
  for (const o of stack) bad.push(o);
  bad.sort((a, b) => a - b);
  return { partner, depth, unbalanced: bad };
}

// ---------------------------------------------------------------------------------------------------------
// be-balance reports

export type BalanceReport =
  | { mode: 'unbalanced'; status: 'all balanced' }
  | { mode: 'unbalanced'; unbalanced: UnbalancedItem[] | null; quote_warnings: QuoteWarning[] | null }
  | {
      mode: 'verbose';
      symbols: string;
      tags: string;
      tag_tree: string | null;
      matched: MatchedPair[] | null;
      unbalanced: UnbalancedItem[] | null;
      quote_warnings: QuoteWarning[] | null;
    };

/** 1-based columns of token offsets, with one pass over the text for the line starts (no per-item search). */
function columnsOf(text: string, offsets: number[]): number[] {
  if (!offsets.length) return [];
  const order = offsets.map((_, k) => k).sort((a, b) => offsets[a] - offsets[b]);
  const cols = new Array<number>(offsets.length);
  let lineStart = 0;
  let nextNL = text.indexOf('\n');
  for (const k of order) {
    const off = offsets[k];
    while (nextNL !== -1 && nextNL < off) {
      lineStart = nextNL + 1;
      nextNL = text.indexOf('\n', lineStart);
    }
    cols[k] = off - lineStart + 1;
  }
  return cols;
}

const EXPECTED = ['}', '{', ']', '[', ')', '('];

interface Analysis {
  scan: ScanResult;
  matching: Matching;
  unbalanced: UnbalancedItem[];
  quoteWarnings: QuoteWarning[];
}

/** Full analysis: scan, match, and the upstream-shaped unbalanced items and quote warnings. */
export function analyzeBalance(text: string, languageId: string): Analysis {
  const scan = scanText(text, languageId);
  const matching = matchBrackets(scan.kinds);
  const cols = columnsOf(text, matching.unbalanced.map((t) => scan.offsets[t]));
  const unbalanced: UnbalancedItem[] = matching.unbalanced.map((t, k) => ({
    symbol: TOKEN_CHARS[scan.kinds[t]],
    line: scan.lines[t],
    col: cols[k],
    expected: EXPECTED[scan.kinds[t]],
  }));
  unbalanced.push(...scan.tagUnbalanced);
  unbalanced.sort((a, b) => a.line - b.line || (a.col ?? 0) - (b.col ?? 0));
  const syn = syntaxFor(languageId);
  const quoteWarnings: QuoteWarning[] = [];
  if (syn.quoteChecks || syn.kind === 'markup') {
    const by = new Map<string, number[]>();
    for (const u of scan.unterminated) {
      const l = by.get(u.symbol) ?? [];
      l.push(u.line);
      by.set(u.symbol, l);
    }
    for (const [symbol, lines] of by) {
      quoteWarnings.push({ symbol, count: lines.length, lines: [...new Set(lines)].sort((a, b) => a - b) });
    }
    quoteWarnings.sort((a, b) => a.lines[0] - b.lines[0]);
  }
  return { scan, matching, unbalanced, quoteWarnings };
}

function formatSymbols(scan: ScanResult): string {
  const byKind: number[][] = [[], [], [], [], [], []];
  for (let t = 0; t < scan.kinds.length; t++) byKind[scan.kinds[t]].push(scan.lines[t]);
  const order = [Tok.LBrace, Tok.RBrace, Tok.LParen, Tok.RParen, Tok.LBracket, Tok.RBracket];
  return order.map((k) => `${TOKEN_CHARS[k]}\t${byKind[k].length ? byKind[k].join(' ') : '(none)'}`).join('\n');
}

function formatTagTree(pairs: TagPair[]): string {
  const rows = pairs.map((p) => `${p.depth}\t${'  '.repeat(Math.min(p.depth - 1, 10))}<${p.tag}>\t${p.openLine}\t${p.closeLine}`);
  return ['depth\ttag\topen\tclose', ...rows].join('\n');
}

/** be-balance: upstream's result shapes, with English "(none)". */
export function checkBalance(text: string, languageId: string, verbose: boolean): BalanceReport {
  const a = analyzeBalance(text, languageId);
  const unbalanced = a.unbalanced.length ? a.unbalanced : null;
  const quote_warnings = a.quoteWarnings.length ? a.quoteWarnings : null;
  if (!verbose) {
    if (!unbalanced && !quote_warnings) return { mode: 'unbalanced', status: 'all balanced' };
    return { mode: 'unbalanced', unbalanced, quote_warnings };
  }
  const { scan, matching } = a;
  const matched: MatchedPair[] = [];
  // upstream order: pairs in the order they close
  for (let t = 0; t < scan.kinds.length; t++) {
    const o = matching.partner[t];
    if ((scan.kinds[t] & 1) === 1 && o >= 0) {
      matched.push({ symbol: TOKEN_CHARS[scan.kinds[o]] + TOKEN_CHARS[scan.kinds[t]], open_line: scan.lines[o], close_line: scan.lines[t], depth: matching.depth[t] });
    }
  }
  return {
    mode: 'verbose',
    symbols: formatSymbols(scan),
    tags: scan.tagPairs.length ? scan.tagPairs.map((p) => `<${p.tag}>  ${p.openLine}:${p.closeLine}`).join('\n') : '(none)',
    tag_tree: scan.tagPairs.length ? formatTagTree(scan.tagPairs) : null,
    matched: matched.length ? matched : null,
    unbalanced,
    quote_warnings,
  };
}

/**
 * The one-line check of the whole new file put in edit results:
 * en `balance: OK` / `balance: unbalanced ({} missing 1; " unterminated at line 4)`,
 * zh upstream's `符号闭合快速检查：OK` / `符号闭合快速检查：Error ({} 差 1 个; …)`.
 */
export function quickBalance(text: string, languageId: string, lang: 'en' | 'zh' = 'en'): string {
  const a = analyzeBalance(text, languageId);
  const counts = new Map<string, number>();
  for (const t of a.matching.unbalanced) {
    const pair = TOKEN_CHARS[a.scan.kinds[t] & ~1] + TOKEN_CHARS[(a.scan.kinds[t] & ~1) + 1];
    counts.set(pair, (counts.get(pair) ?? 0) + 1);
  }
  const parts: string[] = [];
  for (const pair of ['{}', '[]', '()']) {
    const n = counts.get(pair);
    if (n) parts.push(lang === 'zh' ? `${pair} 差 ${n} 个` : `${pair} missing ${n}`);
  }
  if (a.scan.tagUnbalanced.length) {
    const n = a.scan.tagUnbalanced.length;
    parts.push(lang === 'zh' ? `标签 差 ${n} 个` : `tags unbalanced ${n}`);
  }
  for (const q of a.quoteWarnings) {
    const where = q.lines.slice(0, 5).join(', ') + (q.lines.length > 5 ? ', …' : '');
    parts.push(lang === 'zh' ? `${q.symbol} 未闭合（行 ${where}）` : `${q.symbol} unterminated at line ${where}`);
  }
  if (!parts.length) return lang === 'zh' ? '符号闭合快速检查：OK' : 'balance: OK';
  return lang === 'zh' ? `符号闭合快速检查：Error (${parts.join('; ')})` : `balance: unbalanced (${parts.join('; ')})`;
}
