/**
 * The markup scanner (HTML, XML, Vue, Svelte, Astro): tag pairs (tags split across lines, `>` inside quoted
 * attributes, void elements, self-closing tags, optional end tags), comments, CDATA, `<!…>`, `<?…?>`,
 * `{…}` interpolations in text, and script/style contents scanned as code.
 */
import * as chars from './chars';
import { scanCode } from './codeScanner';
import type { ScanState } from './result';
import { skipBlockComment } from './strings';
import type { Syntax } from './syntax';
import { syntaxFor } from '../languages';

// Local copies, read once: under the CommonJS transform that tests and tsx use, every use of an imported
// binding is a getter call, and the scans ran 5x slower (npm run bench:analyzers).
const {
  BANG, COLON, DOT, DQUOTE, EQUALS, GT, LBRACE, LF, LT, MINUS, QUESTION, QUOTE, RBRACE, SLASH, countLF,
  isAsciiLetter, isBracket, isIdentPart, isSpace,
} = chars;

const VOID_ELEMENTS = new Set([
  'area', 'base', 'br', 'col', 'embed', 'hr', 'img', 'input', 'link', 'meta', 'param', 'source', 'track', 'wbr',
  'keygen', 'command',
]);
/** HTML elements whose end tag may be omitted: not reported when implicitly closed. */
const OPTIONAL_END = new Set([
  'li', 'p', 'td', 'th', 'tr', 'thead', 'tbody', 'tfoot', 'option', 'optgroup', 'dt', 'dd', 'colgroup', 'caption',
  'rp', 'rt', 'rb', 'rtc', 'head', 'body', 'html',
]);
/** a tag longer than this is taken for a stray `<` */
const MAX_TAG = 65536;

function embeddedSyntax(tagName: string, tagText: string): Syntax | 'raw' {
  const attr = (name: string) => new RegExp(`\\b${name}\\s*=\\s*["']?([\\w/+.-]+)`, 'i').exec(tagText)?.[1]?.toLowerCase();
  const lang = attr('lang');
  if (tagName === 'style') return syntaxFor(lang === 'scss' || lang === 'sass' ? 'scss' : lang === 'less' ? 'less' : 'css');
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

interface OpenTag {
  name: string;
  line: number;
  offset: number;
}

/** Scans markup in [from, end) into `s`. */
export function scanMarkup(s: ScanState, from: number, end: number, syn: Syntax): void {
  new MarkupScanner(s, end, syn).run(from);
}

class MarkupScanner {
  private readonly text: string;
  private readonly stack: OpenTag[] = [];
  /** open `{` in text: `{…}` are template interpolations (Vue, Svelte, Angular, Jinja) */
  private textBraces = 0;

  constructor(private readonly s: ScanState, private readonly end: number, private readonly syn: Syntax) {
    this.text = s.text;
  }

  run(from: number): void {
    const { text, end } = this;
    let i = from;
    while (i < end) {
      const c = text.charCodeAt(i);
      if (c !== LT) {
        this.textChar(c, i);
        i++;
      } else {
        const next = text.charCodeAt(i + 1);
        if (next === BANG) i = this.declaration(i);
        else if (next === QUESTION) i = this.skipTo(i, '?>');
        else i = this.tag(i, next === SLASH);
      }
    }
    for (const t of this.stack) this.unclosed(t);
  }

  /** Interpolations are checked with what they contain; other brackets in prose are not structure ("1) first", ":)"). */
  private textChar(c: number, i: number): void {
    if (c === LF) this.s.line++;
    else if (c === LBRACE) {
      this.textBraces++;
      this.s.bracket(c, i);
    } else if (c === RBRACE) {
      if (this.textBraces > 0) this.textBraces--;
      this.s.bracket(c, i);
    } else if (this.textBraces > 0 && isBracket(c)) this.s.bracket(c, i);
  }

  /** `<!-- -->`, `<![CDATA[ ]]>`, `<!DOCTYPE …>` */
  private declaration(i: number): number {
    const { text, s, end } = this;
    if (text.startsWith('<!--', i)) return skipBlockComment(s, i, end, '<!--', '-->', false);
    const close = text.startsWith('<![CDATA[', i) ? ']]>' : '>';
    if (text.indexOf(close, i + 2) === -1) s.warn(close === '>' ? '<!' : '<![CDATA[', s.line);
    return this.skipTo(i, close);
  }

  private skipTo(i: number, close: string): number {
    const j = this.text.indexOf(close, i + 2);
    const stop = j === -1 || j + close.length > this.end ? this.end : j + close.length;
    this.s.line += countLF(this.text, i, stop);
    return stop;
  }

  private unclosed(t: OpenTag): void {
    if (this.syn.xml || !OPTIONAL_END.has(t.name)) this.s.out.tagUnbalanced.push({ symbol: `<${t.name}>`, line: t.line, expected: `</${t.name}>` });
  }

  /** A tag at `<` `i` (or a `<` in text): returns where the scan goes on. */
  private tag(i: number, closing: boolean): number {
    const { text, s, end } = this;
    const nameStart = closing ? i + 2 : i + 1;
    if (!isAsciiLetter(text.charCodeAt(nameStart))) return i + 1; // a `<` in text
    let k = nameStart + 1;
    while (k < end) {
      const d = text.charCodeAt(k);
      if (isIdentPart(d) || d === MINUS || d === COLON || d === DOT) k++;
      else break;
    }
    const name = text.slice(nameStart, k).toLowerCase();
    const startLine = s.line;
    const gt = this.tagEnd(i, k);
    if (gt === undefined) return i + 1;
    this.tagBrackets(k, gt, startLine);
    if (closing) {
      this.closeTag(name, startLine);
      return gt + 1;
    }
    const selfClosing = text.charCodeAt(gt - 1) === SLASH;
    if (selfClosing || (!this.syn.xml && VOID_ELEMENTS.has(name))) return gt + 1;
    this.stack.push({ name, line: startLine, offset: i });
    if (this.syn.xml || !(name === 'script' || name === 'style' || name === 'textarea' || name === 'title')) return gt + 1;
    return this.rawText(name, text.slice(k, gt), gt + 1);
  }

  /**
   * The tag's `>` from the end of its name `k`, skipping quoted attribute values and `{…}` expressions; sets the
   * line to that of the `>`. Undefined when a new tag starts first or none is found (this `<` was text).
   */
  private tagEnd(i: number, k: number): number | undefined {
    const { text, s } = this;
    let line = s.line;
    let quote = 0;
    let quoteLine = 0;
    let braces = 0;
    const limit = Math.min(this.end, i + MAX_TAG);
    for (let j = k; j < limit; j++) {
      const d = text.charCodeAt(j);
      if (d === LF) line++;
      if (quote) {
        if (d === quote) quote = 0;
        continue;
      }
      if (d === DQUOTE || d === QUOTE) {
        // a quote opens an attribute value only after `=` (an apostrophe elsewhere is just text)
        let p = j - 1;
        while (p > k && isSpace(text.charCodeAt(p))) p--;
        if (text.charCodeAt(p) === EQUALS || braces > 0) {
          quote = d;
          quoteLine = line;
        }
        continue;
      }
      if (d === LBRACE) braces++;
      else if (d === RBRACE && braces > 0) braces--;
      else if (d === GT && braces === 0) {
        s.line = line;
        return j;
      } else if (d === LT && braces === 0) break; // a new tag starts: this `<` was text
    }
    if (quote) s.warn(String.fromCharCode(quote), quoteLine);
    return undefined;
  }

  /** Brackets inside the tag (Vue/Svelte expressions), outside quoted values. */
  private tagBrackets(k: number, gt: number, startLine: number): void {
    const { text, s } = this;
    const line = s.line;
    let q = 0;
    s.line = startLine;
    for (let p = k; p < gt; p++) {
      const d = text.charCodeAt(p);
      if (d === LF) s.line++;
      else if (q) {
        if (d === q) q = 0;
      } else if ((d === DQUOTE || d === QUOTE) && /=\s*$/.test(text.slice(Math.max(k, p - 8), p))) q = d;
      else if (isBracket(d)) s.bracket(d, p);
    }
    s.line = line;
  }

  private closeTag(name: string, line: number): void {
    const stack = this.stack;
    let idx = stack.length - 1;
    while (idx >= 0 && stack[idx].name !== name) idx--;
    if (idx === -1) {
      const expected = stack.length ? `</${stack[stack.length - 1].name}>` : '(no matching open tag)';
      this.s.out.tagUnbalanced.push({ symbol: `</${name}>`, line, expected });
      return;
    }
    for (let p = stack.length - 1; p > idx; p--) this.unclosed(stack[p]);
    const open = stack[idx];
    stack.length = idx;
    this.s.out.tagPairs.push({ tag: name, openLine: open.line, closeLine: this.s.line, openOffset: open.offset, depth: idx + 1 });
  }

  /** The contents of script, style, textarea and title: code in the element's language, or raw text. */
  private rawText(name: string, tagText: string, i: number): number {
    const closeTag = `</${name}`;
    const emb = name === 'script' || name === 'style' ? embeddedSyntax(name, tagText) : 'raw';
    if (emb !== 'raw') return scanCode(this.s, i, this.end, emb, { stopAtCloseTag: closeTag });
    const stop = indexOfCloseTag(this.text, i, this.end, closeTag);
    this.s.line += countLF(this.text, i, stop);
    return stop;
  }
}
