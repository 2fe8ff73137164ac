/**
 * be-func-range and `target: function`: the innermost enclosing function or method of a line, or a named
 * definition. Brace languages use the balance scanner's `{}` pairs (strings and comments skipped) and classify
 * each block by its statement header; Python uses indentation; Ruby and Lua use `def`/`function` … `end`.
 *
 * A range starts at the signature's first line, which includes decorators/annotations written directly above
 * it (`@Override`, `#[test]`, `[HttpGet]`) but not doc comments; it ends at the closing `}` (or, for Python,
 * the last non-blank line indented deeper than the `def`).
 */
import { syntaxFor } from '../text/languages';
import { scanText, Tok } from '../text/scan';
import { matchBrackets } from './matchBrackets';

export type FunctionKind = 'function' | 'method' | 'class' | 'block';

export interface FunctionRange {
  start: number;
  end: number;
  kind: FunctionKind;
  name?: string;
}

interface Block {
  start: number; // first line (signature / decorators)
  end: number; // last line
  open: number; // offset (or line for Python) that orders nesting
  kind: FunctionKind | 'container';
  name?: string;
  owner?: string; // the class a method is qualified with (`Foo::bar`, Go receiver type)
  functionLike: boolean;
  classLike: boolean;
}

// ---------------------------------------------------------------------------------------------------------
// Header classification for brace languages

const CONTROL = new Set([
  'if', 'else', 'for', 'foreach', 'while', 'do', 'switch', 'try', 'catch', 'finally', 'with', 'synchronized',
  'unsafe', 'loop', 'match', 'select', 'lock', 'using', 'fixed', 'checked', 'unchecked', 'return', 'case',
  'default', 'when', 'until', 'unless', 'elif', 'except', 'await', 'yield', 'throw', 'static', 'then', 'in',
  'async', 'const', 'let', 'var', 'new', 'typeof', 'sizeof', 'not', 'and', 'or', 'defer', 'go', 'extern',
]);
const CLASS_WORDS = new Set([
  'class', 'struct', 'interface', 'trait', 'impl', 'enum', 'union', 'record', 'object', 'protocol', 'extension', 'actor',
]);
const CONTAINER_WORDS = new Set(['namespace', 'module', 'mod', 'package']);
const MODIFIERS = new Set([
  'export', 'default', 'public', 'private', 'protected', 'internal', 'static', 'final', 'abstract', 'sealed', 'open',
  'data', 'pub', 'unsafe', 'partial', 'declare', 'async', 'readonly', 'override', 'virtual', 'inline', 'extern',
  'const', 'constexpr', 'external', 'fileprivate', 'inner', 'annotation', 'case', 'implicit', 'lazy', 'mutating',
  'nonmutating', 'indirect', 'convenience', 'required', 'dynamic', 'strictfp', 'native', 'transient', 'volatile',
  'synchronized', 'typedef', 'value', 'enum', 'fun',
]);
const FUNCTION_KEYWORD = /(?:^|[^\w$.])(function\s*\*?|func|fn|fun|def|sub)(?=[\s*(<&]|$)/;

interface Classified {
  kind: FunctionKind | 'container';
  name?: string;
  owner?: string;
  method?: boolean; // method syntax whatever the container
}

function stripComments(h: string, lineComments: string[]): string {
  let s = h.replace(/\/\*[\s\S]*?\*\//g, ' ');
  for (const lc of lineComments) {
    const esc = lc.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    s = s.replace(new RegExp(lc === '#' ? '#(?!\\[).*$' : `${esc}.*$`, 'gm'), ' ');
  }
  return s;
}

function stripAnnotations(h: string): string {
  let prev: string;
  do {
    prev = h;
    h = h
      .replace(/^@[\w.$]+(?:\s*\((?:[^()]|\([^()]*\))*\))?\s*/, '')
      .replace(/^#!?\[[^\]]*\]\s*/, '')
      .replace(/^\[[^\]]*\]\s*/, '')
      .replace(/^template\s*<[^{};]*?>\s*(?=\w)/, '');
  } while (h !== prev);
  return h;
}

function assignedName(h: string): string | undefined {
  const m =
    /^(?:(?:export|default|const|let|var|val|readonly|public|private|protected|static|override|declare)\s+)*([A-Za-z_$#][\w$]*)\s*(?:[?!]?\s*:[^=]*)?=(?![=>])/.exec(h) ??
    /^(?:(?:static|async|get|set)\s+)*['"]?([A-Za-z_$][\w$]*)['"]?\s*:/.exec(h) ??
    /(?:^|[\s.])([A-Za-z_$][\w$]*)\s*=\s*(?:async\s+)?(?:function\b|\(|[A-Za-z_$][\w$]*\s*=>)/.exec(h);
  return m?.[1];
}

/** Classifies the statement header (text from the last boundary to the `{`). */
export function classifyHeader(rawHeader: string, lineComments: string[] = ['//']): Classified {
  if (rawHeader.length > 4000) rawHeader = rawHeader.slice(-4000); // signatures are short; bound the regex work
  const h = stripAnnotations(stripComments(rawHeader, lineComments).replace(/\s+/g, ' ').trim());
  if (!h) return { kind: 'block' };
  // arrow functions and lambdas
  if (/(?:=>|->)$/.test(h) && !/\bfn\b|\bfunc\b/.test(h)) return { kind: 'function', name: assignedName(h) };
  const words = h.split(/[^\w$]+/).filter(Boolean);
  // function keywords
  const fk = FUNCTION_KEYWORD.exec(h);
  if (fk && !(words[0] === 'if' || words[0] === 'while')) {
    const rest = h.slice(fk.index + fk[0].length);
    const receiver = /^\s*\(\s*(?:[A-Za-z_]\w*\s+)?\*?\s*([A-Za-z_]\w*)[^)]*\)\s*(?=[A-Za-z_])/.exec(rest);
    const afterRecv = receiver ? rest.slice(receiver[0].length) : rest;
    const nm = /^\s*\*?\s*&?\s*([A-Za-z_$][\w$]*)/.exec(afterRecv);
    const name = nm ? nm[1] : assignedName(h);
    return { kind: 'function', name, owner: receiver?.[1], method: !!receiver };
  }
  // class-like declarations, after modifiers
  let w = 0;
  while (w < words.length - 1 && MODIFIERS.has(words[w]) && !CLASS_WORDS.has(words[w])) w++;
  const first = words[w];
  if (first === 'type' && words.length > w + 2 && /^(struct|interface)$/.test(words[w + 2])) {
    return { kind: 'class', name: words[w + 1] };
  }
  if (first === 'enum' && words[w + 1] === 'class') w++;
  if (CLASS_WORDS.has(words[w] ?? '')) {
    const kw = words[w];
    if (kw === 'impl') {
      const m = /\bimpl\b\s*(?:<[^{]*?>\s*)?([\w:]+)(?:\s*<[^{]*?>)?(?:\s+for\s+([\w:]+))?/.exec(h);
      return { kind: 'class', name: m?.[2] ?? m?.[1] };
    }
    const m = new RegExp(`\\b${kw}\\b\\s+([A-Za-z_$][\\w$]*)`).exec(h);
    return { kind: 'class', name: m?.[1] && !MODIFIERS.has(m[1]) ? m[1] : m?.[1] };
  }
  if (CONTAINER_WORDS.has(first ?? '')) return { kind: 'container', name: words[w + 1] };
  if (/(?:^|\s)new\s+[\w$.<>, ]+\([^)]*\)$/.test(h)) return { kind: 'class' }; // anonymous class
  if (CONTROL.has(words[0] ?? '') && !/^(?:static|async|const|default)$/.test(words[0])) return { kind: 'block' };
  // `name(params) [trailing]` — a method or a C-style function
  const m = /(?:^|[^\w$.])(~?[A-Za-z_$][\w$]*(?:\s*::\s*~?[A-Za-z_$][\w$]*)*|operator\s*[^\s(]+)\s*(?:<[^()]*>)?\s*\(((?:[^()]|\((?:[^()]|\([^()]*\))*\))*)\)\s*(:[^;]*|[^(){};=]*)$/.exec(h);
  if (m) {
    const qualified = m[1].replace(/\s+/g, '');
    const parts = qualified.split('::');
    const name = parts[parts.length - 1];
    if (CONTROL.has(name) || (words[0] === 'static' && words.length === 1)) return { kind: 'block' };
    const before = h.slice(0, m.index + (m[0].length - m[0].trimStart().length)).trim();
    // `x = foo(a) {`, `return foo(a) {` are not definitions
    if (/[=]$|\breturn$/.test(before)) return { kind: 'block' };
    return { kind: 'function', name, owner: parts.length > 1 ? parts[parts.length - 2] : undefined, method: parts.length > 1 || !before };
  }
  if (CONTROL.has(words[0] ?? '')) return { kind: 'block' };
  return { kind: 'block' };
}

// ---------------------------------------------------------------------------------------------------------
// Blocks for brace languages

function lineStartsOf(text: string): number[] {
  const starts = [0];
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  return starts;
}

function lineOfOffset(starts: number[], offset: number): number {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid] <= offset) lo = mid;
    else hi = mid - 1;
  }
  return lo + 1;
}

/**
 * The `{}` blocks of a brace language, classified lazily: a 10 MB file has hundreds of thousands of blocks,
 * and a query needs only those around one line (or those whose header mentions one name).
 */
class BraceIndex {
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

// ---------------------------------------------------------------------------------------------------------
// Blocks for Python (indentation)

interface PyLines {
  /** the line begins a logical line (not inside brackets, strings or a backslash continuation) */
  logicalStart: Uint8Array;
  /** blank or comment-only (at a logical start) */
  blank: Uint8Array;
  /** whitespace-only line */
  empty: Uint8Array;
  indent: Int32Array;
  /** offset of the first non-blank char */
  first: Int32Array;
  count: number;
}

/** One linear pass over the text: per line, is it a logical line start, blank, and its indentation. */
function pythonLines(text: string): PyLines {
  let count = 1;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) count++;
  const r: PyLines = {
    logicalStart: new Uint8Array(count),
    blank: new Uint8Array(count),
    empty: new Uint8Array(count),
    indent: new Int32Array(count),
    first: new Int32Array(count),
    count,
  };
  let depth = 0;
  let triple = 0; // quote char code of an open triple-quoted string
  let continued = false;
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0; // a BOM is not indentation
  const n = text.length;
  for (let l = 0; l < count; l++) {
    const logicalStart = depth === 0 && triple === 0 && !continued;
    let indent = 0;
    while (i < n) {
      const c = text.charCodeAt(i);
      if (c === 32) indent++;
      else if (c === 9) indent = (Math.floor(indent / 8) + 1) * 8;
      else break;
      i++;
    }
    r.indent[l] = indent;
    r.first[l] = i;
    let blank = triple === 0;
    let empty = true;
    continued = false;
    let lastNonSpace = 0;
    for (; i < n; i++) {
      const c = text.charCodeAt(i);
      if (c === 10) break;
      if (c !== 32 && c !== 9 && c !== 13) {
        empty = false;
        lastNonSpace = c;
      }
      if (triple !== 0) {
        if (c === 92) i++;
        else if (c === triple && text.charCodeAt(i + 1) === triple && text.charCodeAt(i + 2) === triple) {
          i += 2;
          triple = 0;
        }
        continue;
      }
      if (c === 35) {
        // comment: skip to the end of the line
        const j = text.indexOf('\n', i);
        i = j === -1 ? n : j;
        break;
      }
      if (c === 32 || c === 9 || c === 13) continue;
      blank = false;
      if (c === 34 || c === 39) {
        if (text.charCodeAt(i + 1) === c && text.charCodeAt(i + 2) === c) {
          triple = c;
          i += 2;
          continue;
        }
        for (i++; i < n; i++) {
          const d = text.charCodeAt(i);
          if (d === 92) i++;
          else if (d === c || d === 10) break;
        }
        if (text.charCodeAt(i) === 10) break;
        continue;
      }
      if (c === 40 || c === 91 || c === 123) depth++;
      else if ((c === 41 || c === 93 || c === 125) && depth > 0) depth--;
    }
    if (lastNonSpace === 92 && triple === 0) continued = true;
    r.logicalStart[l] = logicalStart ? 1 : 0;
    r.blank[l] = logicalStart && blank ? 1 : 0;
    r.empty[l] = empty ? 1 : 0;
    i++; // past the newline
  }
  return r;
}

function pythonBlocks(text: string): Block[] {
  const L = pythonLines(text);
  const blocks: Block[] = [];
  const n = L.count;
  const defRe = /(?:async[ \t]+)?(def|class)[ \t]+([A-Za-z_]\w*)/y;
  const isCode = (l: number) => L.logicalStart[l] === 1 && L.blank[l] === 0;
  for (let l = 0; l < n; l++) {
    if (!isCode(l)) continue;
    const f = text.charCodeAt(L.first[l]);
    if (f !== 97 && f !== 99 && f !== 100) continue; // a(sync), c(lass), d(ef)
    defRe.lastIndex = L.first[l];
    const m = defRe.exec(text);
    if (!m) continue;
    const indent = L.indent[l];
    // the body: up to the next logical line indented no deeper than the def
    let next = l + 1;
    while (next < n && !(isCode(next) && L.indent[next] <= indent)) next++;
    let end = next - 1;
    while (end > l && (L.empty[end] === 1 || (L.blank[end] === 1 && L.indent[end] <= indent))) end--;
    // decorators directly above, at the same indentation
    let start = l;
    for (let p = l - 1; p >= 0; p--) {
      if (!L.logicalStart[p]) continue;
      if (isCode(p) && L.indent[p] === indent && text.charCodeAt(L.first[p]) === 64) start = p;
      else break;
    }
    const isClass = m[1] === 'class';
    blocks.push({
      start: start + 1,
      end: end + 1,
      open: l,
      kind: isClass ? 'class' : 'function',
      name: m[2],
      functionLike: !isClass,
      classLike: isClass,
    });
  }
  // methods: the nearest enclosing def/class is a class (blocks are in line order, so a stack finds it)
  const stack: Block[] = [];
  for (const b of blocks) {
    while (stack.length && stack[stack.length - 1].end < b.open + 1) stack.pop();
    const container = stack[stack.length - 1];
    if (b.functionLike && container?.classLike) {
      b.kind = 'method';
      b.owner = container.name;
    }
    stack.push(b);
  }
  return blocks;
}

// ---------------------------------------------------------------------------------------------------------
// Blocks for Ruby and Lua (keyword … end)

const RUBY_KEYWORDS = new Set(['def', 'class', 'module', 'do', 'begin', 'case', 'if', 'unless', 'while', 'until', 'for', 'end']);
const LUA_KEYWORDS = new Set(['function', 'if', 'for', 'while', 'do', 'repeat', 'until', 'end']);
/** after these, `if`/`while`… start a statement (`x = if c`); elsewhere they are modifiers (`return if c`) */
const STATEMENT_AFTER = new Set('=(,;|&![{'.split('').map((c) => c.charCodeAt(0)));

function keywordBlocks(text: string, languageId: string): Block[] {
  const ruby = languageId === 'ruby';
  const scan = scanText(text, languageId, ruby ? RUBY_KEYWORDS : LUA_KEYWORDS);
  const stack: Array<Block | undefined> = [];
  const blocks: Block[] = [];
  let loopLine = -1;
  const at = (re: RegExp, offset: number) => {
    re.lastIndex = offset;
    return re.exec(text);
  };
  for (const k of scan.keywords) {
    if (k.before === 46 || (ruby && k.before === 58)) continue; // `x.end`, `:end`
    const w = k.word;
    if (w === 'end' || (!ruby && w === 'until')) {
      const b = stack.pop();
      if (b) {
        b.end = k.line;
        blocks.push(b);
      }
      continue;
    }
    if (ruby && (w === 'if' || w === 'unless' || w === 'while' || w === 'until') && !(k.first || k.lastSig === 0 || STATEMENT_AFTER.has(k.lastSig))) {
      continue; // modifier form
    }
    if (w === 'while' || w === 'until' || w === 'for') loopLine = k.line;
    if (w === 'do' && loopLine === k.line) {
      loopLine = -1; // `while c do`: the loop's own `do`
      continue;
    }
    if (ruby && w === 'def' && at(/def\s+[\w.]+[?!]?\s*(?:\([^)]*\))?\s*=(?![=~>])/y, k.offset)) continue; // endless def
    let block: Block | undefined;
    if (w === 'def' || w === 'function') {
      const m = ruby ? at(/def\s+(?:([\w:]+)\.)?([\w]+[?!=]?)/y, k.offset) : at(/function\s+([\w.]+[.:])?([\w]+)/y, k.offset);
      let name = m?.[2];
      let owner = m?.[1]?.replace(/[.:]$/, '');
      if (!name && !ruby) {
        const lineStart = text.lastIndexOf('\n', k.offset - 1) + 1;
        name = /([\w]+)\s*=\s*$/.exec(text.slice(lineStart, k.offset))?.[1];
      }
      if (owner === 'self') owner = undefined;
      const method = !ruby && !!m?.[1]?.endsWith(':');
      block = { start: k.line, end: -1, open: k.offset, kind: method ? 'method' : 'function', name, owner, functionLike: true, classLike: false };
    } else if (ruby && (w === 'class' || w === 'module')) {
      const m = at(/(?:class|module)\s+([\w:]+)/y, k.offset);
      block = { start: k.line, end: -1, open: k.offset, kind: 'class', name: m?.[1]?.split('::').pop(), functionLike: false, classLike: true };
    }
    stack.push(block);
  }
  blocks.sort((a, b) => a.open - b.open);
  // Ruby: a def directly inside a class/module is a method
  const open: Block[] = [];
  for (const b of blocks) {
    while (open.length && open[open.length - 1].end < b.start) open.pop();
    let container: Block | undefined;
    for (let p = open.length - 1; p >= 0 && !container; p--) if (open[p].functionLike || open[p].classLike) container = open[p];
    if (b.functionLike && container?.classLike) {
      b.kind = 'method';
      b.owner ??= container.name;
    }
    open.push(b);
  }
  return blocks;
}

// ---------------------------------------------------------------------------------------------------------
// Public API

const INDENT_LANGUAGES = new Set(['python', 'py']);
const isIndentLanguage = (languageId: string) => INDENT_LANGUAGES.has((languageId || '').toLowerCase());
const isKeywordLanguage = (languageId: string) => /^(ruby|lua)$/i.test(languageId || '');

function toRange(b: Block): FunctionRange {
  const kind: FunctionKind = b.kind === 'container' ? 'block' : b.kind;
  return b.name ? { start: b.start, end: b.end, kind, name: b.name } : { start: b.start, end: b.end, kind };
}

function pickInnermost(blocks: Block[]): FunctionRange | undefined {
  const innermost = (pred: (b: Block) => boolean) =>
    blocks.filter(pred).reduce<Block | undefined>((best, b) => (!best || b.open > best.open ? b : best), undefined);
  const fn = innermost((b) => b.functionLike);
  if (fn) return toRange(fn);
  const cls = innermost((b) => b.classLike);
  if (cls) return toRange(cls);
  const outer = blocks.reduce<Block | undefined>((best, b) => (!best || b.open < best.open ? b : best), undefined);
  return outer ? toRange(outer) : undefined;
}

/**
 * The innermost function or method containing `line` (1-based); else the innermost class; else the
 * outermost brace block (upstream's behaviour); else undefined.
 */
export function findFunctionRange(text: string, line: number, languageId: string): FunctionRange | undefined {
  if (isIndentLanguage(languageId)) {
    return pickInnermost(pythonBlocks(text).filter((b) => b.start <= line && line <= b.end));
  }
  if (isKeywordLanguage(languageId)) {
    return pickInnermost(keywordBlocks(text, languageId.toLowerCase()).filter((b) => b.start <= line && line <= b.end));
  }
  return pickInnermost(new BraceIndex(text, languageId).containing(line));
}

/**
 * The definition of `name` (function, method, class; `Class.method` or `Class::method` to qualify), or an
 * arrow/function expression assigned to it. Never a mere call. Functions win over classes of the same name.
 */
export function findFunctionByName(text: string, name: string, languageId: string): FunctionRange | undefined {
  const parts = name.split(/::|\./).filter(Boolean);
  const simple = parts[parts.length - 1];
  const owner = parts.length > 1 ? parts[parts.length - 2] : undefined;
  if (!simple) return undefined;
  const indent = isIndentLanguage(languageId) || isKeywordLanguage(languageId);
  const blocks = isIndentLanguage(languageId)
    ? pythonBlocks(text)
    : isKeywordLanguage(languageId)
      ? keywordBlocks(text, languageId.toLowerCase())
      : new BraceIndex(text, languageId).mentioning(simple);
  const named = blocks.filter((b) => b.name === simple && (b.functionLike || b.classLike) && (!owner || b.owner === owner));
  const hit = named.find((b) => b.functionLike) ?? named[0];
  if (hit) return toRange(hit);
  return indent ? undefined : expressionFunction(text, simple, languageId);
}

/** Before the name on its line (`export const`), and after it (sticky, at the name's end): type, `=`, a function. */
const EXPRESSION_LEAD = /^[ \t]*(?:export\s+)?(?:(?:const|let|var|val)\s+)?$/;
const EXPRESSION_TAIL = /\s*(?::[^=\n]*)?=\s*(?:async\s+)?(?:function\b|\([^\n]*=>|[A-Za-z_$][\w$]*\s*=>)/y;

/**
 * `const name = (a) => a * 2;` and friends, which have no braces of their own. The name (the agent's text) is
 * matched literally, never put into a pattern: `((\w+)+)+Q` as a pattern backtracked for minutes.
 */
function expressionFunction(text: string, name: string, languageId: string): FunctionRange | undefined {
  let at = -1;
  let lineStart = 0;
  let nextBreak = text.indexOf('\n');
  for (let k = text.indexOf(name); k !== -1; k = text.indexOf(name, k + 1)) {
    while (nextBreak !== -1 && nextBreak < k) {
      lineStart = nextBreak + 1;
      nextBreak = text.indexOf('\n', lineStart);
    }
    if (!EXPRESSION_LEAD.test(text.slice(lineStart, k))) continue;
    EXPRESSION_TAIL.lastIndex = k + name.length;
    if (EXPRESSION_TAIL.test(text)) {
      at = lineStart;
      break;
    }
  }
  if (at === -1) return undefined;
  const startLine = lineOfOffset(lineStartsOf(text), at);
  const scan = scanText(text, languageId);
  const { partner } = matchBrackets(scan.kinds);
  let end = startLine;
  for (let t = 0; t < scan.kinds.length; t++) {
    if (scan.lines[t] < startLine) continue;
    if (scan.lines[t] > end) break;
    if ((scan.kinds[t] & 1) === 0 && partner[t] >= 0) end = Math.max(end, scan.lines[partner[t]]);
  }
  return { start: startLine, end, kind: 'function', name };
}
