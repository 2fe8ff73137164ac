/**
 * A large C++ text with its function bodies emptied to their line breaks, for the outline's parse (cBodies.ts
 * emptyRanges; a generated 4 MB file parses in ~190 ms emptied, ~410 blanked to spaces, ~1,270 whole; on 215 real
 * C++ files emptied and blanked give the same outline but for 2 with syntax errors, where emptied gives the whole
 * parse's symbols). cBodies.ts finds C's bodies at the top level only; C++ puts its functions in namespaces and
 * classes, so its bodies are found by the layout clang-format writes
 * (layoutBodies.ts: a head at a line's start, its `{` last on its line and first outside its parentheses and
 * brackets, the body closed by a line that is the head's indent and `}`; every `#if` in a body closes in it).
 * A head is a declarator up to its `(` (`static std::vector<int> Foo::bar(`, `Foo::~Foo(`, `TEST(`), never a
 * statement's (`if (`, `for (`, …) or a declaration's (`template <…>`, `class`, `namespace`, …); a constructor's
 * initializer list between the `)` and the `{` is part of the head. Comments, strings, raw strings
 * (`R"x(…)x"`), characters (a `'` after a digit is a digit separator) and directive lines are stepped over. What is
 * lost: the syntax errors inside the bodies emptied.
 */
import { emptyRanges } from './cBodies';
import { layoutBodies, type LayoutDialect } from './layoutBodies';
import type { ScanBudget } from './scanBudget';
import { isNameChar, quotedEnd, slashCommentEnd } from './literals';

const SLASH = 47;
const QUOTE = 34;
const APOSTROPHE = 39;

/** A declarator up to its `(` at a line's start, after the indent it captures; never a statement's or a declaration's keyword. */
const HEAD =
  /([ \t]*)(?!(?:if|for|while|switch|catch|do|else|return|case|default|namespace|class|struct|union|enum|template|typedef|using|throw|delete|new|sizeof|static_assert|goto|co_return|co_await|co_yield)\b)[A-Za-z_~:][\w:<>,*&~ \t]*?(?=\()/y;

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

/** Whether the `"` at `i` opens a raw string: `R"`, `u8R"`, `LR"`, `uR"`, `UR"`, not part of a longer name. */
function rawAt(text: string, i: number): boolean {
  if (text.charCodeAt(i - 1) !== 82) return false;
  let start = i - 1;
  if (text.startsWith('u8', start - 2)) start -= 2;
  else if (/[LuU]/.test(text[start - 1] ?? '')) start -= 1;
  return start === 0 || !isNameChar(text.charCodeAt(start - 1));
}

/**
 * The end (exclusive) of the comment, string, raw string or character opened at `i`, i when none opens there, or -1
 * when it does not close (strings and characters close on their line).
 */
function literalEnd(text: string, i: number): number {
  const c = text.charCodeAt(i);
  if (c === SLASH) return slashCommentEnd(text, i);
  if (c === APOSTROPHE && isDigit(text.charCodeAt(i - 1))) return i; // 1'000'000
  if (c === QUOTE && rawAt(text, i)) {
    const paren = text.indexOf('(', i + 1);
    if (paren < 0 || paren - i - 1 > 16) return -1;
    const close = text.indexOf(`)${text.slice(i + 1, paren)}"`, paren + 1);
    return close < 0 ? -1 : close + paren - i + 1;
  }
  return c === QUOTE || c === APOSTROPHE ? quotedEnd(text, i + 1, c) : i;
}

const CPP: LayoutDialect = { head: HEAD, literalEnd, angles: false, directives: true };

/** The function bodies of `text` whose bounds are certain, sorted and disjoint: [start, end) each, between a `{` and its `}`. */
export function cppFunctionBodies(text: string, budget?: ScanBudget): [number, number][] {
  return layoutBodies(text, CPP, budget);
}

/** `text` with the function bodies of cppFunctionBodies emptied (their line breaks kept), or undefined when there is none. */
export function emptyCppFunctionBodies(text: string): string | undefined {
  const bodies = cppFunctionBodies(text);
  return bodies.length ? emptyRanges(text, bodies) : undefined;
}
