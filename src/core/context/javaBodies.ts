/**
 * A large Java text with its method bodies emptied, for the outline's parse (memberBodies.ts reads the members; here
 * are Java's literals and keywords). A Java outline shows types, methods and constructors with their heads and
 * ranges; it never looks inside a method's body, an initializer or an enum constant's body, and those bodies were
 * most of the parse (a generated 4 MB file: ~1.1 s whole, first call of a fresh server). Types are `class`,
 * `interface`, `enum`, `record NAME` and `@interface`; literals are strings and characters (closed on their line),
 * text blocks and comments.
 */
import { emptyRanges } from './cBodies';
import { memberBodies, type MemberDialect } from './memberBodies';
import { quotedEnd, slashCommentEnd } from './literals';

const SLASH = 47;
const BACKSLASH = 92;
const QUOTE = 34;
const APOSTROPHE = 39;

/**
 * The end (exclusive) of the comment, string, character literal or text block opened at `i`, i when none opens
 * there, or -1 when it does not close (a string or character literal at its line's end, the others at the text's).
 */
function literalEnd(text: string, i: number): number {
  const c = text.charCodeAt(i);
  if (c === SLASH) return slashCommentEnd(text, i);
  if (c === QUOTE && text.startsWith('""', i + 1)) {
    // a text block: to the next `"""` that no backslash escapes
    for (let k = i + 3; k < text.length; k++) {
      const d = text.charCodeAt(k);
      if (d === BACKSLASH) k++;
      else if (d === QUOTE && text.startsWith('""', k + 1)) return k + 3;
    }
    return -1;
  }
  return c === QUOTE || c === APOSTROPHE ? quotedEnd(text, i + 1, c) : i;
}

/** Java's literals and keywords for memberBodies.ts. */
const JAVA: MemberDialect = {
  literalEnd,
  opensLiteral: (c) => c === SLASH || c === QUOTE || c === APOSTROPHE,
  typeKeywords: new Set(['class', 'interface', 'enum']),
  clause: 'throws',
  clausePunctuation: new Set([44, 46, 60, 62, 63]),
  verbatimNames: false,
  directives: false,
};

/** The method, constructor, initializer and enum constant bodies of `text` whose bounds are certain: sorted, disjoint [start, end) each, between a `{` and its `}`. */
export function javaMethodBodies(text: string): [number, number][] {
  return memberBodies(text, JAVA);
}

/** `text` with the bodies of javaMethodBodies emptied (their line breaks kept), or undefined when there is none. */
export function emptyJavaMethodBodies(text: string): string | undefined {
  const bodies = javaMethodBodies(text);
  return bodies.length ? emptyRanges(text, bodies) : undefined;
}
