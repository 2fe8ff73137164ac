/** Turning a chip back into text for be-insert-chip, in the target file's comment syntax. */
import { originalTextOf } from './content';
import type { ChipFormat, ChipRecord } from './types';

export interface CommentSyntax {
  /** written before the comment text, e.g. "// " */
  open: string;
  /** written after it, e.g. " -->" ('' for line comments) */
  close: string;
}

const LINE = (open: string): CommentSyntax => ({ open, close: '' });
const SLASH = LINE('// ');
const HASH = LINE('# ');
const DASH = LINE('-- ');
const XML: CommentSyntax = { open: '<!-- ', close: ' -->' };
const BLOCK: CommentSyntax = { open: '/* ', close: ' */' };

/** VS Code language ids -> comment syntax. Unknown languages get `// ` (upstream's only header). */
const BY_LANGUAGE: Record<string, CommentSyntax> = {
  python: HASH, shellscript: HASH, ruby: HASH, yaml: HASH, perl: HASH, perl6: HASH, raku: HASH, r: HASH,
  makefile: HASH, dockerfile: HASH, toml: HASH, powershell: HASH, elixir: HASH, coffeescript: HASH,
  julia: HASH, nim: HASH, cmake: HASH, properties: HASH, gitignore: HASH, 'git-commit': HASH, terraform: HASH,
  sql: DASH, lua: DASH, haskell: DASH, elm: DASH, ada: DASH, purescript: DASH,
  html: XML, xml: XML, markdown: XML, vue: XML, svelte: XML, xsl: XML, svg: XML, razor: XML,
  css: BLOCK, scss: BLOCK, less: BLOCK,
  ini: LINE('; '), clojure: LINE(';; '), lisp: LINE(';; '), scheme: LINE(';; '),
  latex: LINE('% '), tex: LINE('% '), bibtex: LINE('% '), erlang: LINE('% '), matlab: LINE('% '), prolog: LINE('% '),
  vb: LINE("' "), bat: LINE('REM '), fortran: LINE('! '), 'fortran-modern': LINE('! '), vim: LINE('" '),
};

export function commentSyntax(languageId: string): CommentSyntax {
  return BY_LANGUAGE[languageId.toLowerCase()] ?? SLASH;
}

function comment(syntax: CommentSyntax, text: string): string {
  // A closing marker inside the text would end the comment early.
  const safe = syntax.close ? text.split(syntax.close.trim()).join(syntax.close.trim().split('').join(' ')) : text;
  return `${syntax.open}${safe}${syntax.close}`;
}

/**
 * - `raw`: the original text byte for byte (args JSON pretty-printed when the chip has no text);
 * - `annotated`: one header comment line naming the chip, then the raw text;
 * - `json`: upstream's header + JSON dump of the arguments, in the target's comment syntax.
 */
export function renderChip(chip: ChipRecord, format: ChipFormat, languageId: string): string {
  const syntax = commentSyntax(languageId);
  const text = originalTextOf(chip);
  const argsJson = JSON.stringify(chip.args, null, 2);
  switch (format) {
    case 'raw':
      return text ?? argsJson;
    case 'annotated': {
      const when = new Date(chip.created_ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
      const where = chip.file ? ` (${chip.file}${chip.range ? `:${chip.range.start}-${chip.range.end}` : ''})` : '';
      const header = comment(syntax, `Chip ${chip.id} from tool "${chip.tool}" at ${when}${where}`);
      const body = text ?? argsJson;
      return `${header}\n${body}`;
    }
    case 'json':
      return (
        `${comment(syntax, `Chip ${chip.id} from tool ${JSON.stringify(chip.tool)}`)}\n` +
        `${comment(syntax, 'Original arguments:')}\n` +
        argsJson
      );
  }
}
