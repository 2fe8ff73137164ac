/** The `{}` blocks of a brace language over the balance scanner (strings and comments skipped), classified by header. */
import { syntaxFor } from '../../text/languages';
import { scanText, Tok } from '../../text/scan';
import { matchBrackets } from '../matchBrackets';
import { lineOfOffset, lineStartsOf, type Block } from './block';
import { classifyHeader, type Classified } from './header';

/**
 * The `{}` blocks of a brace language, classified lazily: a 10 MB file has hundreds of thousands of blocks,
 * and a query needs only those around one line (or those whose header mentions one name).
 */
export class BraceIndex {
  readonly starts: number[];
  readonly opens: number[] = [];
  readonly headerStarts: number[] = [];
  readonly openLines: number[] = [];
  readonly closeLines: number[] = [];
  readonly parents: number[] = [];
  private readonly classes = new Map<number, Classified>();
  private readonly blocks = new Map<number, Block>();
  private readonly lineComments: string[];
  private readonly noMethodShorthand: boolean;

  constructor(readonly text: string, languageId: string) {
    this.lineComments = syntaxFor(languageId).lineComments;
    // shell `name() {` is a function, not method shorthand
    this.noMethodShorthand = /^(shellscript|bash|sh|zsh|c|cuda-cpp)$/i.test(languageId);
    this.starts = lineStartsOf(text);
    const scan = scanText(text, languageId);
    const { partner } = matchBrackets(scan.kinds);
    const stack: Array<{ index: number; close: number }> = [];
    for (let t = 0; t < scan.kinds.length; t++) {
      if (scan.kinds[t] !== Tok.LBrace || partner[t] < 0) continue;
      const open = scan.offsets[t];
      while (stack.length && stack[stack.length - 1].close < open) stack.pop();
      const index = this.opens.length;
      this.opens.push(open);
      this.headerStarts.push(scan.headers[t] >= 0 ? scan.headers[t] : open);
      this.openLines.push(scan.lines[t]);
      this.closeLines.push(scan.lines[partner[t]]);
      this.parents.push(stack.length ? stack[stack.length - 1].index : -1);
      stack.push({ index, close: scan.offsets[partner[t]] });
    }
  }

  get size(): number {
    return this.opens.length;
  }

  classified(i: number): Classified {
    let c = this.classes.get(i);
    if (!c) {
      c = classifyHeader(this.text.slice(this.headerStarts[i], this.opens[i]), this.lineComments);
      this.classes.set(i, c);
    }
    return c;
  }

  block(i: number): Block {
    const cached = this.blocks.get(i);
    if (cached) return cached;
    const c = this.classified(i);
    let kind = c.kind;
    let owner = c.owner;
    if (kind === 'function') {
      // a method: the nearest function/class container is a class, or method syntax (`name() {`, `A::b`, receiver)
      let container: Classified | undefined;
      for (let p = this.parents[i]; p >= 0; p = this.parents[p]) {
        const pc = this.classified(p);
        if (pc.kind === 'function' || pc.kind === 'class') {
          container = pc;
          break;
        }
      }
      const shorthand = c.method && !this.noMethodShorthand;
      if (container?.kind === 'class' || (shorthand && container?.kind !== 'function') || (c.method && c.owner)) {
        kind = 'method';
        owner ??= container?.kind === 'class' ? container.name : undefined;
      }
    }
    const b: Block = {
      start: kind === 'block' || kind === 'container' ? this.openLines[i] : lineOfOffset(this.starts, this.headerStarts[i]),
      end: this.closeLines[i],
      open: this.opens[i],
      kind,
      name: c.name,
      owner,
      functionLike: kind === 'function' || kind === 'method',
      classLike: kind === 'class',
    };
    this.blocks.set(i, b);
    return b;
  }

  /** Blocks whose lines (header included) contain `line`. */
  containing(line: number): Block[] {
    const lineEnd = line < this.starts.length ? this.starts[line] : this.text.length + 1;
    const out: Block[] = [];
    for (let i = 0; i < this.opens.length; i++) {
      if (this.headerStarts[i] < lineEnd && this.closeLines[i] >= line) {
        const b = this.block(i);
        if (b.start <= line && line <= b.end) out.push(b);
      }
    }
    return out;
  }

  /** Blocks whose header mentions `name`, classified. */
  mentioning(name: string): Block[] {
    const hits: number[] = [];
    for (let k = this.text.indexOf(name); k !== -1; k = this.text.indexOf(name, k + 1)) hits.push(k);
    const out: Block[] = [];
    if (!hits.length) return out;
    for (let i = 0; i < this.opens.length; i++) {
      // is there a hit in [headerStart, open)?
      let lo = 0;
      let hi = hits.length;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (hits[mid] < this.headerStarts[i]) lo = mid + 1;
        else hi = mid;
      }
      if (lo < hits.length && hits[lo] < this.opens[i]) out.push(this.block(i));
    }
    return out;
  }
}
