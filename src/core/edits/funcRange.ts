/**
 * be-func-range and `target: function`: the innermost enclosing function or method of a line, or a named
 * definition. Brace languages use the balance scanner's `{}` pairs (strings and comments skipped) and classify
 * each block by its statement header; Python uses indentation.
 *
 * A range starts at the signature's first line, which includes decorators/annotations written directly above
 * it (`@Override`, `#[test]`, `[HttpGet]`) but not doc comments; it ends at the closing `}` (or, for Python,
 * the last non-blank line indented deeper than the `def`).
 */
import { matchBrackets, scanText, syntaxFor, Tok } from './balance';

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
  const m = /(?:^|[^\w$.])(~?[A-Za-z_$][\w$]*(?:\s*::\s*~?[A-Za-z_$][\w$]*)*|operator\s*[^\s(]+)\s*(?:<[^()]*>)?\s*\(((?:[^()]|\((?:[^()]|\([^()]*\))*\))*)\)\s*(:[^{};]*|[^(){};=]*)$/.exec(h);
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

function braceBlocks(text: string, languageId: string): Block[] {
  const syn = syntaxFor(languageId);
  const scan = scanText(text, languageId);
  const { partner } = matchBrackets(scan.kinds);
  const starts = lineStartsOf(text);
  const blocks: Block[] = [];
  for (let t = 0; t < scan.kinds.length; t++) {
    if (scan.kinds[t] !== Tok.LBrace || partner[t] < 0) continue;
    const open = scan.offsets[t];
    const headerStart = scan.headers[t] >= 0 ? scan.headers[t] : open;
    const c = classifyHeader(text.slice(headerStart, open), syn.lineComments);
    blocks.push({
      start: c.kind === 'block' ? scan.lines[t] : lineOfOffset(starts, headerStart),
      end: scan.lines[partner[t]],
      open,
      kind: c.kind,
      name: c.name,
      owner: c.owner,
      functionLike: c.kind === 'function',
      classLike: c.kind === 'class',
      ...(c.method ? { method: true } : {}),
    } as Block & { method?: boolean });
  }
  // methods: function blocks whose nearest function/class container is a class, or method syntax
  const stack: Array<Block & { close: number }> = [];
  const closeOf = new Map<Block, number>();
  for (let t = 0, b = 0; t < scan.kinds.length; t++) {
    if (scan.kinds[t] === Tok.LBrace && partner[t] >= 0) closeOf.set(blocks[b++], scan.offsets[partner[t]]);
  }
  for (const blk of blocks) {
    const close = closeOf.get(blk) ?? blk.open;
    while (stack.length && stack[stack.length - 1].close < blk.open) stack.pop();
    if (blk.functionLike) {
      let container: Block | undefined;
      for (let s = stack.length - 1; s >= 0; s--) {
        if (stack[s].functionLike || stack[s].classLike) {
          container = stack[s];
          break;
        }
      }
      const methodSyntax = (blk as Block & { method?: boolean }).method === true;
      if (container?.classLike || (methodSyntax && !container?.functionLike) || (methodSyntax && blk.owner)) {
        blk.kind = 'method';
        if (!blk.owner && container?.classLike) blk.owner = container.name;
      }
    }
    stack.push(Object.assign(blk, { close }));
  }
  return blocks;
}

// ---------------------------------------------------------------------------------------------------------
// Blocks for Python (indentation)

interface PyLine {
  logicalStart: boolean; // the line begins a logical line (not inside brackets, strings or a continuation)
  blank: boolean; // blank or comment-only
  indent: number;
  text: string;
}

function pythonLines(text: string): PyLine[] {
  const raw = text.split('\n');
  const out: PyLine[] = [];
  let depth = 0;
  let triple: string | null = null;
  let continued = false;
  for (const line of raw) {
    const logicalStart = depth === 0 && triple === null && !continued;
    let blank = true;
    let i = 0;
    let indent = 0;
    for (; i < line.length; i++) {
      const c = line[i];
      if (c === ' ') indent++;
      else if (c === '\t') indent = (Math.floor(indent / 8) + 1) * 8;
      else break;
    }
    if (triple !== null) blank = false;
    continued = false;
    for (let j: number = triple !== null ? 0 : i; j < line.length; j++) {
      const c: string = line[j];
      if (triple !== null) {
        if (c === '\\') j++;
        else if (line.startsWith(triple, j)) {
          j += 2;
          triple = null;
        }
        continue;
      }
      if (c === '#') break;
      if (c === ' ' || c === '\t' || c === '\r') continue;
      blank = false;
      if (c === '"' || c === "'") {
        const q3: string = c.repeat(3);
        if (line.startsWith(q3, j)) {
          triple = q3;
          j += 2;
          continue;
        }
        for (j++; j < line.length && line[j] !== c; j++) if (line[j] === '\\') j++;
        continue;
      }
      if (c === '(' || c === '[' || c === '{') depth++;
      else if ((c === ')' || c === ']' || c === '}') && depth > 0) depth--;
      else if (c === '\\' && j === line.replace(/\r$/, '').length - 1) continued = true;
    }
    out.push({ logicalStart, blank: logicalStart && blank, indent, text: line });
  }
  return out;
}

function pythonBlocks(text: string): Block[] {
  const lines = pythonLines(text);
  const blocks: Block[] = [];
  const n = lines.length;
  for (let l = 0; l < n; l++) {
    const pl = lines[l];
    if (!pl.logicalStart || pl.blank) continue;
    const m = /^\s*(?:async\s+)?(def|class)\s+([A-Za-z_]\w*)/.exec(pl.text);
    if (!m) continue;
    const indent = pl.indent;
    // the body: up to the next logical line indented no deeper than the def
    let next = l + 1;
    while (next < n && !(lines[next].logicalStart && !lines[next].blank && lines[next].indent <= indent)) next++;
    let end = next - 1;
    while (end > l && (lines[end].text.trim() === '' || (lines[end].blank && lines[end].logicalStart && lines[end].indent <= indent))) end--;
    // decorators directly above, at the same indentation
    let start = l;
    for (let p = l - 1; p >= 0; p--) {
      if (!lines[p].logicalStart) continue;
      if (!lines[p].blank && lines[p].indent === indent && lines[p].text.trimStart().startsWith('@')) start = p;
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
  // methods: the nearest enclosing def/class is a class
  for (const b of blocks) {
    if (!b.functionLike) continue;
    let container: Block | undefined;
    for (const o of blocks) {
      if (o !== b && o.open < b.open && o.end >= b.end && (!container || o.open > container.open)) container = o;
    }
    if (container?.classLike) {
      b.kind = 'method';
      b.owner = container.name;
    }
  }
  return blocks;
}

// ---------------------------------------------------------------------------------------------------------
// Public API

const INDENT_LANGUAGES = new Set(['python', 'py']);

function blocksFor(text: string, languageId: string): Block[] {
  return INDENT_LANGUAGES.has((languageId || '').toLowerCase()) ? pythonBlocks(text) : braceBlocks(text, languageId);
}

function toRange(b: Block): FunctionRange {
  const kind: FunctionKind = b.kind === 'container' ? 'block' : b.kind;
  return b.name ? { start: b.start, end: b.end, kind, name: b.name } : { start: b.start, end: b.end, kind };
}

/**
 * The innermost function or method containing `line` (1-based); else the innermost class; else the
 * outermost brace block (upstream's behaviour); else undefined.
 */
export function findFunctionRange(text: string, line: number, languageId: string): FunctionRange | undefined {
  const blocks = blocksFor(text, languageId).filter((b) => b.start <= line && line <= b.end);
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
 * The definition of `name` (function, method, class; `Class.method` or `Class::method` to qualify), or an
 * arrow/function expression assigned to it. Never a mere call.
 */
export function findFunctionByName(text: string, name: string, languageId: string): FunctionRange | undefined {
  const parts = name.split(/::|\./).filter(Boolean);
  const simple = parts[parts.length - 1];
  const owner = parts.length > 1 ? parts[parts.length - 2] : undefined;
  if (!simple) return undefined;
  const blocks = blocksFor(text, languageId);
  const named = blocks.filter((b) => b.name === simple && (b.functionLike || b.classLike) && (!owner || b.owner === owner));
  const hit = named.find((b) => b.functionLike) ?? named[0];
  if (hit) return toRange(hit);
  if (INDENT_LANGUAGES.has((languageId || '').toLowerCase())) return undefined;
  return expressionFunction(text, simple, languageId);
}

/** `const name = (a) => a * 2;` and friends, which have no braces of their own. */
function expressionFunction(text: string, name: string, languageId: string): FunctionRange | undefined {
  const esc = name.replace(/[$]/g, '\\$');
  const re = new RegExp(
    `^[ \\t]*(?:export\\s+)?(?:(?:const|let|var|val)\\s+)?${esc}\\s*(?::[^=\\n]*)?=\\s*(?:async\\s+)?(?:function\\b|\\([^\\n]*=>|[A-Za-z_$][\\w$]*\\s*=>)`,
    'm',
  );
  const m = re.exec(text);
  if (!m) return undefined;
  const starts = lineStartsOf(text);
  const startLine = lineOfOffset(starts, m.index + (m[0].length - m[0].trimStart().length));
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
