/**
 * Comments (and Python docstrings) blanked out of source text, so that the tag scan never takes a word of
 * prose for a name: `# the class Foo below` defines nothing, `// uses parseBody` uses nothing. Strings are
 * skipped whole (a `//` inside a URL is no comment) and kept; every blanked character becomes a space and every
 * newline stays, so offsets and line numbers are unchanged.
 */

const C_LIKE = String.raw`\/\/[^\n]*|\/\*[\s\S]*?(?:\*\/|$)`;
const HASH = String.raw`#[^\n]*`;
const DOCSTRING = String.raw`"""[\s\S]*?(?:"""|$)|'''[\s\S]*?(?:'''|$)`;
const QUOTED = String.raw`"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*'`;
const BACKTICK = String.raw`\x60(?:\\.|[^\x60\\])*\x60`;

/** Per language: the tokens to blank (first alternative group) and the strings to step over. */
function scanner(languageId: string): { blank: RegExp; comment: RegExp } | undefined {
  let comments: string;
  let strings = QUOTED;
  switch (languageId) {
    case 'python':
      comments = `${DOCSTRING}|${HASH}`;
      break;
    case 'ruby':
    case 'shellscript':
    case 'perl':
    case 'r':
      comments = HASH;
      break;
    case 'php':
      comments = `${C_LIKE}|${HASH}`;
      break;
    case 'lua':
      comments = String.raw`--\[\[[\s\S]*?(?:\]\]|$)|--[^\n]*`;
      break;
    case 'typescript':
    case 'typescriptreact':
    case 'javascript':
    case 'javascriptreact':
    case 'go':
    case 'vue':
    case 'svelte':
    case 'kotlin':
    case 'scala':
    case 'swift':
    case 'dart':
      comments = C_LIKE;
      strings = `${QUOTED}|${BACKTICK}`;
      break;
    case 'rust':
    case 'java':
    case 'c':
    case 'cpp':
    case 'csharp':
    case 'fsharp':
      comments = C_LIKE;
      break;
    default:
      return undefined;
  }
  // Comments come first among the alternatives only where they start earlier; strings are matched to be skipped.
  return { blank: new RegExp(`${comments}|${strings}`, 'g'), comment: new RegExp(`^(?:${comments})`) };
}

const cache = new Map<string, ReturnType<typeof scanner>>();

export function blankComments(text: string, languageId: string): string {
  if (!cache.has(languageId)) cache.set(languageId, scanner(languageId));
  const s = cache.get(languageId);
  if (!s) return text;
  return text.replace(s.blank, (tok) => (s.comment.test(tok) ? tok.replace(/[^\n]/g, ' ') : tok));
}
