/** The def/class blocks of Python, by indentation over logical lines (brackets, strings and continuations joined). */
import type { Block } from './block';

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

export function pythonBlocks(text: string): Block[] {
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
