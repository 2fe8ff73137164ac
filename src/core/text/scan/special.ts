/**
 * The slow path of the code scanner: a char that may start a comment, a string or another construct of
 * the language (a preprocessor line, a regex literal, a heredoc, a POD block…). Says what it found and
 * where it ends, or undefined when the char is ordinary code here.
 */
import * as chars from './chars';
import { skipPerlSigil } from './perl';
import type { ScanState } from './result';
import { heredocStart, skipShellBacktick, skipShellDouble } from './shell';
import { skipBlockComment, skipLong, skipTemplate, stringOrWarn } from './strings';
import { str, type Syntax } from './syntax';

// Local copies, read once: under the CommonJS transform that tests and tsx use, every use of an imported
// binding is a getter call, and the scans ran 5x slower (npm run bench:analyzers).
const {
  AMP, AT, BACKSLASH, BACKTICK, COLON, CR, DOLLAR, DQUOTE, HASH, LBRACKET, LF, LPAREN, LT, MINUS, PIPE, QUOTE,
  RBRACKET, SEMI, SLASH, SPACE, STAR, TAB, asciiSet, countLF, isAsciiLetter, isHex, isIdentPart, isSpace, lineEnd,
} = chars;

export type ConstructKind = 'comment' | 'preprocessor' | 'string' | 'regex' | 'template';

export interface Construct {
  kind: ConstructKind;
  /** index after the construct */
  end: number;
  /** template literal text that ended at a `${` (its expression is scanned as code) */
  opensExpr: boolean;
}

const found = (kind: ConstructKind, end: number): Construct => ({ kind, end, opensExpr: false });

/** Where the code scanner stands when it meets the char: what came before it on the line and in the code. */
export interface CodeContext {
  lineHasToken: boolean;
  /** last significant code char (0 at the start) */
  lastSig: number;
  /** the last word, when lastSig ends it */
  lastWordStart: number;
  lastWordEnd: number;
}

const REGEX_KEYWORDS = new Set([
  'return', 'throw', 'case', 'else', 'do', 'typeof', 'instanceof', 'in', 'of', 'new', 'void', 'delete', 'yield', 'await',
  // Perl
  'split', 'grep', 'if', 'unless', 'and', 'or', 'not', 'when', 'while', 'until',
]);
/** After these characters a `/` starts a regex literal rather than a division. */
const REGEX_AFTER = asciiSet('([{,;:=!?+-*%&|^~<>');

/** An operand may start here: a `/` opens a regex literal, a `<` a JSX element. */
export function operandPosition(text: string, ctx: CodeContext): boolean {
  const { lastSig } = ctx;
  if (lastSig === 0 || (lastSig < 128 && REGEX_AFTER[lastSig] === 1)) return true;
  const lastWord = isIdentPart(lastSig) && ctx.lastWordEnd - ctx.lastWordStart <= 10 ? text.slice(ctx.lastWordStart, ctx.lastWordEnd) : '';
  return REGEX_KEYWORDS.has(lastWord);
}

/** Built once per syntax and stop flag: markup builds one code scanner per script element. */
const SPECIAL_CHARS = new WeakMap<Syntax, Uint8Array[]>();

/** The ASCII chars that may start a construct of `syn` (the rest of code takes the fast path). */
export function specialChars(syn: Syntax, stopAtCloseTag: boolean): Uint8Array {
  let cached = SPECIAL_CHARS.get(syn);
  if (!cached) SPECIAL_CHARS.set(syn, (cached = []));
  return (cached[stopAtCloseTag ? 1 : 0] ??= buildSpecialChars(syn, stopAtCloseTag));
}

function buildSpecialChars(syn: Syntax, stopAtCloseTag: boolean): Uint8Array {
  const special = new Uint8Array(128);
  const mark = (...cs: number[]) => cs.forEach((c) => (special[c] = 1));
  for (const s of syn.lineComments) mark(s.charCodeAt(0));
  for (const [o] of syn.blockComments) mark(o.charCodeAt(0));
  for (const [o] of syn.lineStartBlocks) mark(o.charCodeAt(0));
  for (const r of syn.strings) mark(r.open.charCodeAt(0));
  for (const m of syn.endMarkers) mark(m.charCodeAt(0));
  if (syn.template) mark(BACKTICK);
  if (syn.regex) mark(SLASH);
  if (syn.charTick) mark(QUOTE);
  if (syn.preprocessor) mark(HASH);
  if (syn.csharpVerbatim) mark(AT, DOLLAR);
  if (syn.heredoc !== 'none') mark(LT);
  if (syn.shellStrings) mark(BACKSLASH, DQUOTE, BACKTICK);
  if (syn.perl || syn.sqlDollar) mark(DOLLAR);
  if (syn.luaLong) mark(LBRACKET, QUOTE, DQUOTE);
  if (stopAtCloseTag) mark(LT);
  return special;
}

const END_MARKER_LINE = /^[ \t\r]*(?:\n|$)/;

/** Constructs that only start a line: data after `__END__`, `=begin`/POD blocks, preprocessor lines. */
function lineStartConstruct(s: ScanState, i: number, end: number, c: number, syn: Syntax): Construct | undefined {
  const text = s.text;
  if (i === 0 || text.charCodeAt(i - 1) === LF) {
    for (const m of syn.endMarkers) {
      if (text.startsWith(m, i) && END_MARKER_LINE.test(text.slice(i + m.length, i + m.length + 4))) {
        s.line += countLF(text, i, end);
        return found('comment', end); // data follows
      }
    }
    for (const [o, cl] of syn.lineStartBlocks) {
      // a lone `=` opener (Perl POD) needs a directive word: `=head1`, `=pod`, `=item`
      if (!text.startsWith(o, i) || (o === '=' && !isAsciiLetter(text.charCodeAt(i + 1)))) continue;
      const startLine = s.line;
      let j = lineEnd(text, i, end);
      for (;;) {
        if (j >= end) {
          s.warn(o, startLine);
          return found('comment', end);
        }
        s.line++;
        const k = lineEnd(text, j + 1, end);
        if (text.startsWith(cl, j + 1)) return found('comment', k);
        j = k;
      }
    }
  }
  if (c === HASH && syn.preprocessor) {
    // # directive, with backslash continuations
    let j = lineEnd(text, i, end);
    while (j < end && (text.charCodeAt(j - 1) === BACKSLASH || (text.charCodeAt(j - 1) === CR && text.charCodeAt(j - 2) === BACKSLASH))) {
      s.line++;
      j = lineEnd(text, j + 1, end);
    }
    return found('preprocessor', j);
  }
  return undefined;
}

/** Block and line comments (block first: `--[[` must win over `--`, `<#` over `<`). */
function comment(s: ScanState, i: number, end: number, c: number, syn: Syntax, lineHasToken: boolean): Construct | undefined {
  const text = s.text;
  const next = text.charCodeAt(i + 1);
  if (syn.luaLong && c === MINUS && next === MINUS && text.charCodeAt(i + 2) === LBRACKET) {
    const r = longBracket(text, i + 2);
    if (r) return found('comment', skipLong(s, i + 2 + r[0].length, end, `]${r[1]}]`, '--[['));
  }
  for (const [o, cl] of syn.blockComments) {
    if (c === o.charCodeAt(0) && text.startsWith(o, i)) return found('comment', skipBlockComment(s, i, end, o, cl, syn.nestedComments));
  }
  for (const lc of syn.lineComments) {
    if (c !== lc.charCodeAt(0) || !text.startsWith(lc, i)) continue;
    if (c === HASH) {
      const prev = i > 0 ? text.charCodeAt(i - 1) : LF;
      if (syn.hashRule === 'wordStart' && !(prev === LF || isSpace(prev) || prev === SEMI || prev === PIPE || prev === AMP || prev === LPAREN)) continue;
      if (syn.hashRule === 'lineStart' && lineHasToken) continue;
      if (syn.hashRule === 'notAttribute' && next === LBRACKET) continue;
    }
    if (syn.slashAfterColon && lc === '//' && i > 0 && text.charCodeAt(i - 1) === COLON) continue;
    return found('comment', lineEnd(text, i, end));
  }
  return undefined;
}

function longBracket(text: string, i: number): RegExpExecArray | null {
  const m = /\[(=*)\[/y;
  m.lastIndex = i;
  return m.exec(text);
}

const VERBATIM = str('"', true, '', true);
/** Where a YAML quote opens a string: at the start of a scalar (`key: 'v'`, `- "v"`, `['a']`). */
const YAML_SCALAR_START = asciiSet(':-[{,?|>');

/** Strings and string-like constructs; undefined when `c` opens none here. */
function stringLike(s: ScanState, i: number, end: number, c: number, syn: Syntax): Construct | undefined {
  const text = s.text;
  const next = text.charCodeAt(i + 1);
  if (syn.shellStrings && (c === BACKSLASH || c === DQUOTE || c === BACKTICK)) {
    if (c === BACKSLASH) {
      // `\x` outside quotes: an escaped char (`\(`, `\'`), a line continuation
      if (next === LF) s.line++;
      return found('string', Math.min(end, i + 2));
    }
    const startLine = s.line;
    const j = c === DQUOTE ? skipShellDouble(s, i + 1, end) : skipShellBacktick(s, i + 1, end);
    if (j !== undefined) return found('string', j);
    s.warn(c === DQUOTE ? '"' : '`', startLine);
    return found('string', end);
  }
  if (syn.luaLong && c === LBRACKET) {
    const r = longBracket(text, i);
    return r ? found('string', skipLong(s, i + r[0].length, end, `]${r[1]}]`, '[[')) : undefined;
  }
  if (c === BACKTICK && syn.template) {
    const t = skipTemplate(s, i + 1, end, s.line);
    return { kind: 'template', end: t.end, opensExpr: t.opensExpr };
  }
  if (syn.csharpVerbatim && (c === AT || c === DOLLAR)) {
    const m = /[@$]{1,2}"/y;
    m.lastIndex = i;
    const r = m.exec(text);
    if (r && r[0].includes('@')) return found('string', stringOrWarn(s, i + r[0].length, end, VERBATIM, '@"'));
    if (c === AT) return undefined;
  }
  // $) $( $] $[ $; $, $/ $\ $' $" … are variables, not brackets or quotes
  if (syn.perl && c === DOLLAR) return found('string', skipPerlSigil(text, i));
  if (syn.sqlDollar && c === DOLLAR) {
    const m = /\$([A-Za-z_][A-Za-z_0-9]*)?\$/y;
    m.lastIndex = i;
    const r = m.exec(text);
    if (!r) return undefined;
    const j = text.indexOf(r[0], i + r[0].length);
    const stop = j === -1 || j > end ? end : j + r[0].length;
    s.line += countLF(text, i, stop);
    return found('string', stop);
  }
  if (c === QUOTE && syn.charTick) {
    // 'x' or '\n' is a char literal; anything else is a lifetime / prime / tick
    if (next === BACKSLASH) {
      const j = text.indexOf("'", i + 3);
      const le = lineEnd(text, i, end);
      return found('string', j !== -1 && j < le ? j + 1 : i + 1);
    }
    const w = next >= 0xd800 && next <= 0xdbff ? 2 : 1;
    return found('string', next !== LF && text.charCodeAt(i + 1 + w) === QUOTE ? i + 2 + w : i + 1);
  }
  if (c === LT && next === LT && syn.heredoc !== 'none') {
    const j = heredocStart(s, i, syn);
    return j === undefined ? undefined : found('string', j);
  }
  if (syn.yamlQuotes && (c === DQUOTE || c === QUOTE)) {
    let k = i - 1;
    while (k >= 0 && (text.charCodeAt(k) === SPACE || text.charCodeAt(k) === TAB)) k--;
    const p = k < 0 ? LF : text.charCodeAt(k);
    if (p !== LF && YAML_SCALAR_START[p] !== 1) return undefined;
  }
  for (const rule of syn.strings) {
    if (c === rule.open.charCodeAt(0) && text.startsWith(rule.open, i)) {
      if (syn.digitSeparator && c === QUOTE && i > 0 && isHex(text.charCodeAt(i - 1)) && isHex(next)) return undefined;
      return found('string', stringOrWarn(s, i + rule.open.length, end, rule, rule.open));
    }
  }
  return undefined;
}

/** A regex literal: only where an operand may start, and only if it closes on the same line. */
function regexLiteral(text: string, i: number, end: number, ctx: CodeContext): Construct | undefined {
  const next = text.charCodeAt(i + 1);
  if (!operandPosition(text, ctx) || next === SLASH || next === STAR) return undefined;
  const le = Math.min(lineEnd(text, i, end), i + 4000);
  let inClass = false;
  for (let j = i + 1; j < le; j++) {
    const d = text.charCodeAt(j);
    if (d === BACKSLASH) j++;
    else if (d === LBRACKET) inClass = true;
    else if (d === RBRACKET) inClass = false;
    else if (d === SLASH && !inClass) {
      j++;
      while (j < end && isIdentPart(text.charCodeAt(j))) j++; // flags
      return found('regex', j);
    }
  }
  return undefined;
}

/** The construct of `syn` starting with char `c` at `i`, or undefined when `c` is ordinary code here. */
export function scanConstruct(s: ScanState, i: number, end: number, c: number, syn: Syntax, ctx: CodeContext): Construct | undefined {
  if (!ctx.lineHasToken) {
    const r = lineStartConstruct(s, i, end, c, syn);
    if (r) return r;
  }
  const r = comment(s, i, end, c, syn, ctx.lineHasToken) ?? stringLike(s, i, end, c, syn);
  if (r) return r;
  return c === SLASH && syn.regex ? regexLiteral(s.text, i, end, ctx) : undefined;
}

