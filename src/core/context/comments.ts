/**
 * Comments (and Python docstrings) blanked out of source text, so that the tag scan never takes a word of
 * prose for a name: `# the class Foo below` defines nothing, `// uses parseBody` uses nothing. Strings are
 * skipped whole (a `//` inside a URL is no comment) and kept; every blanked character becomes a space and every
 * newline stays, so offsets and line numbers are unchanged.
 */
import { tagRules, type TagRules } from '../text/languages';

const C_LIKE = String.raw`\/\/[^\n]*|\/\*[\s\S]*?(?:\*\/|$)`;
const HASH = String.raw`#[^\n]*`;
const DOCSTRING = String.raw`"""[\s\S]*?(?:"""|$)|'''[\s\S]*?(?:'''|$)`;
const QUOTED = String.raw`"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*'`;
const BACKTICK = String.raw`\x60(?:\\.|[^\x60\\])*\x60`;

/** Per comment style of the registry (text/languages.ts TagRules): the comments to blank and the strings to step over. */
const STYLES: Record<TagRules['comments'], { comments: string; strings: string }> = {
  c: { comments: C_LIKE, strings: QUOTED },
  'c-backtick': { comments: C_LIKE, strings: `${QUOTED}|${BACKTICK}` },
  hash: { comments: HASH, strings: QUOTED },
  python: { comments: `${DOCSTRING}|${HASH}`, strings: QUOTED },
  php: { comments: `${C_LIKE}|${HASH}`, strings: QUOTED },
  lua: { comments: String.raw`--\[\[[\s\S]*?(?:\]\]|$)|--[^\n]*`, strings: QUOTED },
};

/** A language's scanner: `blank` finds its comments and strings, `comment` tells a comment from a string. */
export function commentScanner(languageId: string): { blank: RegExp; comment: RegExp } | undefined {
  const style = tagRules(languageId)?.comments;
  if (!style) return undefined;
  const { comments, strings } = STYLES[style];
  // Comments come first among the alternatives only where they start earlier; strings are matched to be skipped.
  return { blank: new RegExp(`${comments}|${strings}`, 'g'), comment: new RegExp(`^(?:${comments})`) };
}

const cache = new Map<string, ReturnType<typeof commentScanner>>();

export function blankComments(text: string, languageId: string): string {
  if (!cache.has(languageId)) cache.set(languageId, commentScanner(languageId));
  const s = cache.get(languageId);
  if (!s) return text;
  // an exec loop that copies only around comments: replace() with a callback for every string and comment took
  // ~60% of this function's time
  const blank = s.blank;
  blank.lastIndex = 0;
  let out = '';
  let from = 0;
  for (let m = blank.exec(text); m; m = blank.exec(text)) {
    const tok = m[0];
    if (!tok) {
      blank.lastIndex++; // an empty match (none of the patterns has one today) must not stall the loop
      continue;
    }
    if (!s.comment.test(tok)) continue;
    out += text.slice(from, m.index) + spaced(tok);
    from = m.index + tok.length;
  }
  return from ? out + text.slice(from) : text;
}

/** `tok` with every character but a newline made a space. */
function spaced(tok: string): string {
  if (!tok.includes('\n')) return ' '.repeat(tok.length);
  return tok
    .split('\n')
    .map((line) => ' '.repeat(line.length))
    .join('\n');
}
