/**
 * The bodies a Java or C# outline never looks inside, found member by member (javaBodies.ts, csharpBodies.ts give
 * each language's literals and keywords): every character between such a body's `{` and its `}` is taken out but
 * the line breaks (cBodies.ts emptyRanges), so every line keeps its number.
 *
 * The text is read member by member inside each type's body (and, in C#, each namespace's). A `{` there is blanked
 * when its bounds are certain and it is
 * - a method's or constructor's body: it follows the `)` of a parameter list after a name (or a generic name,
 *   `M<T>(`), a `throws` or `where` clause between them aside, in a member without an `=`; a Java enum constant's
 *   body `A(1) {` and a C# constructor's `: base(x) {` read the same way;
 * - an initializer: `static {` or a bare `{`.
 * Any other `{` (a field's initializer, an array, an anonymous class, a lambda, a property's accessors, a compact
 * constructor) is stepped over whole and left as it is; a type's body is read in turn. A body's bounds are certain
 * when every brace inside it closes, no `}` in it or closing it starts a line (column 0), every literal and
 * comment in it closes as the language's lexer closes it, and (C#) every `#if` in it closes in it.
 * At anything else (a brace that never closes, a `}` too many, a literal left open) the reading stops, and what it
 * found before stays blanked. What is lost: the syntax errors inside the bodies blanked.
 */
import { conditionalDepth } from './cBodies';
import { isNameChar } from './literals';

const NL = 10;
const CR = 13;
const HASH = 35;
const OPEN = 123;
const CLOSE = 125;
const PAREN_OPEN = 40;
const PAREN_CLOSE = 41;
const SEMICOLON = 59;
const EQUALS = 61;
const DOT = 46;
const LESS = 60;
const GREATER = 62;
const AT = 64;

/** What a language gives the member reading. */
export interface MemberDialect {
  /**
   * The end (exclusive) of the comment or literal opened at `i`, i when none opens there, or -1 when it does not
   * close as the language's lexer closes it.
   */
  literalEnd(text: string, i: number): number;
  /** Whether a comment or literal may open at the character `c` (literalEnd is asked only then). */
  opensLiteral(c: number): boolean;
  /** The keywords whose member declares a type (or a namespace) whose body holds members. */
  typeKeywords: ReadonlySet<string>;
  /** The clause between a parameter list and its body: `throws` (Java), `where` (C#). */
  clause: string;
  /** The characters between the names of that clause. */
  clausePunctuation: ReadonlySet<number>;
  /** `@word` is a name, never a keyword (C#'s `@class`); else `@` is an annotation's (Java's `@interface`). */
  verbatimNames: boolean;
  /** `#` at a line's start opens a directive line (C#). */
  directives: boolean;
}

function isBlank(c: number): boolean {
  return c === 32 || c === 9 || c === NL || c === CR || c === 12;
}

/** Letters and digits, `_` and `$`; any non-ASCII character counts (identifiers may hold them). */
function isWordChar(c: number): boolean {
  return isNameChar(c) || c === 36;
}

/** Whether only blanks come before `i` on its line. */
function startsLine(text: string, i: number): boolean {
  for (let k = i - 1; k >= 0; k--) {
    const c = text.charCodeAt(k);
    if (c === NL) return true;
    if (c !== 32 && c !== 9) return false;
  }
  return true;
}

/** The index of the line break ending the line at `i` (or the text's end). */
function lineEnd(text: string, i: number): number {
  const nl = text.indexOf('\n', i);
  return nl < 0 ? text.length : nl;
}

/** The `}` closing the `{` at `open`, or -1 when its bounds are not certain (see the module comment). */
function blockClose(text: string, open: number, d: MemberDialect): number {
  let depth = 1;
  /** #if nesting inside the block: every #if in it closes in it */
  let conditional = 0;
  for (let i = open + 1; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === OPEN) depth++;
    else if (c === CLOSE) {
      // a member's block closed at column 0 closes its type there too: the braces inside did not balance
      if (text.charCodeAt(i - 1) === NL) return -1;
      if (--depth === 0) return conditional === 0 ? i : -1;
    } else if (c === HASH && d.directives && startsLine(text, i)) {
      conditional = conditionalDepth(text, i + 1, conditional);
      if (conditional < 0) return -1;
      i = lineEnd(text, i) - 1;
    } else if (d.opensLiteral(c)) {
      const end = d.literalEnd(text, i);
      if (end < 0) return -1;
      if (end > i) i = end - 1;
    }
  }
  return -1;
}

/** What the member being read holds so far, from the last `;`, `{` or `}` of its type's body. */
interface Member {
  /** no token yet, or only `static` (then a `{` opens an initializer) */
  initializer: boolean;
  /** a type keyword (or `record NAME`): the next `{` opens a type's body */
  declaresType: boolean;
  /** an `=` outside parentheses: a field's initializer (or `=>`), whose braces are values */
  assigns: boolean;
  /** the last tokens are a parameter list after a name, and maybe a `throws` or `where` clause */
  afterParams: boolean;
  inClause: boolean;
  parens: number;
  /** whether the outermost open parenthesis followed a name */
  paramList: boolean;
  /** angle brackets open after a name (`M<T`), and how deep */
  angles: number;
  /** the last word, and whether a `.` came right before it */
  lastWord: string;
  lastWordQualified: boolean;
  /** whether the last token was that word (or a generic name's closing `>`) */
  wordLast: boolean;
  dotLast: boolean;
  /** C#'s `@` came last: the next word is a name, never a keyword */
  verbatimLast: boolean;
}

function newMember(): Member {
  return {
    initializer: true,
    declaresType: false,
    assigns: false,
    afterParams: false,
    inClause: false,
    parens: 0,
    paramList: false,
    angles: 0,
    lastWord: '',
    lastWordQualified: false,
    wordLast: false,
    dotLast: false,
    verbatimLast: false,
  };
}

/** The bodies of `text` whose bounds are certain (see the module comment): sorted, disjoint [start, end) each, between a `{` and its `}`. */
export function memberBodies(text: string, d: MemberDialect): [number, number][] {
  const bodies: [number, number][] = [];
  /** how many type bodies are open around the reading */
  let types = 0;
  let m = newMember();
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (isBlank(c)) continue;
    if (c === HASH && d.directives && startsLine(text, i)) {
      i = lineEnd(text, i) - 1;
      continue;
    }
    if (d.opensLiteral(c)) {
      const end = d.literalEnd(text, i);
      if (end < 0) return bodies;
      if (end > i) {
        // a comment is no token; a literal is one
        if (!isComment(text, i)) m = token(m, 0, d);
        i = end - 1;
        continue;
      }
    }
    if (isWordChar(c)) {
      let end = i + 1;
      while (end < text.length && isWordChar(text.charCodeAt(end))) end++;
      m = word(m, text.slice(i, end), d);
      i = end - 1;
      continue;
    }
    if (c === PAREN_OPEN) {
      if (m.parens++ === 0) m.paramList = m.wordLast && !m.lastWordQualified;
      m = token(m, c, d);
    } else if (c === PAREN_CLOSE) {
      if (m.parens === 0) return bodies;
      const closesList = --m.parens === 0 && m.paramList;
      m = token(m, c, d);
      m.afterParams = closesList;
    } else if (c === LESS && m.parens === 0 && (m.angles > 0 || (m.wordLast && !m.assigns))) {
      // `M<T>(`: a generic name is a name before its parameter list
      m.angles++;
      m = token(m, c, d);
    } else if (c === GREATER && m.angles > 0) {
      m = token(m, c, d);
      m.wordLast = --m.angles === 0;
    } else if (c === SEMICOLON && m.parens === 0) {
      m = newMember();
    } else if (c === OPEN && m.parens === 0 && (m.declaresType || types === 0)) {
      // a type's body (at the top level only types have one): its members are read in turn
      if (!m.declaresType) return bodies;
      types++;
      m = newMember();
    } else if (c === OPEN) {
      const close = blockClose(text, i, d);
      if (close < 0) return bodies;
      const isBody = m.parens === 0 && (m.initializer || (m.afterParams && !m.assigns));
      if (isBody) {
        if (close > i + 1) bodies.push([i + 1, close]);
        m = newMember();
      } else m = token(m, c, d);
      i = close;
    } else if (c === CLOSE) {
      if (m.parens > 0 || types === 0) return bodies;
      types--;
      m = newMember();
    } else {
      if (c === EQUALS && m.parens === 0) m.assigns = true;
      m = token(m, c, d);
    }
  }
  return bodies;
}

function isComment(text: string, i: number): boolean {
  const next = text.charCodeAt(i + 1);
  return text.charCodeAt(i) === 47 && (next === 47 || next === 42);
}

/** `m` after a token that is not a word: the character `c`, or 0 for a literal. */
function token(m: Member, c: number, d: MemberDialect): Member {
  m.initializer = false;
  const inClause = m.inClause && d.clausePunctuation.has(c);
  m.afterParams = m.afterParams && inClause;
  m.inClause = inClause;
  m.wordLast = false;
  m.dotLast = c === DOT;
  m.verbatimLast = c === AT && d.verbatimNames;
  return m;
}

/** `m` after the word `w`. */
function word(m: Member, w: string, d: MemberDialect): Member {
  const qualified = m.dotLast;
  // `) throws A, b.C<D>`, `) where T : IComparable<T>, new()`: the words of the clause keep the parameter list last
  const clauseNow = m.afterParams && w === d.clause;
  m.inClause = clauseNow || (m.inClause && m.parens === 0);
  m.afterParams = m.afterParams && m.inClause;
  // a type keyword in a clause (`where T : class`) declares nothing
  if (m.parens === 0 && !qualified && !m.verbatimLast && !m.inClause && (d.typeKeywords.has(w) || (m.wordLast && m.lastWord === 'record' && !m.lastWordQualified))) m.declaresType = true;
  m.initializer = m.initializer && w === 'static';
  m.lastWord = w;
  m.lastWordQualified = qualified;
  m.wordLast = true;
  m.dotLast = false;
  m.verbatimLast = false;
  return m;
}
