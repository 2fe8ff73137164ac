/**
 * Hand-written outlines for files tree-sitter does not cover here: Markdown headings, JSON and YAML keys
 * (two levels), and an indentation/brace outline for anything else. All line numbers are 1-based.
 */
import { clip } from './extract';
import type { OutlineSymbol } from './types';

const MAX_KEY_DEPTH = 2;

/** Nest symbols by a numeric level (heading depth, indentation). `items` are in file order. */
function nest(items: { level: number; sym: OutlineSymbol }[]): OutlineSymbol[] {
  const roots: OutlineSymbol[] = [];
  const stack: { level: number; sym: OutlineSymbol }[] = [];
  for (const it of items) {
    while (stack.length && stack[stack.length - 1]!.level >= it.level) stack.pop();
    const parent = stack[stack.length - 1];
    if (parent) (parent.sym.children ??= []).push(it.sym);
    else roots.push(it.sym);
    stack.push(it);
  }
  return roots;
}

function lastNonBlank(lines: string[], fromIdx: number, toIdx: number): number {
  let i = toIdx;
  while (i > fromIdx && lines[i]!.trim() === '') i--;
  return i;
}

export function markdownOutline(text: string): OutlineSymbol[] {
  const lines = text.split(/\r?\n/);
  const heads: { idx: number; level: number; title: string }[] = [];
  let fence: string | undefined;
  lines.forEach((line, idx) => {
    const f = /^\s{0,3}(`{3,}|~{3,})/.exec(line);
    if (f) {
      if (!fence) fence = f[1]![0]!;
      else if (f[1]![0] === fence) fence = undefined;
      return;
    }
    if (fence) return;
    const h = /^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$/.exec(line);
    if (h) heads.push({ idx, level: h[1]!.length, title: h[2]! });
  });
  const items = heads.map((h, i) => {
    // A section runs until the next heading of the same or a higher level.
    let endIdx = lines.length - 1;
    for (let j = i + 1; j < heads.length; j++) {
      if (heads[j]!.level <= h.level) {
        endIdx = heads[j]!.idx - 1;
        break;
      }
    }
    endIdx = lastNonBlank(lines, h.idx, endIdx);
    const sym: OutlineSymbol = {
      kind: 'heading',
      name: h.title,
      signature: `${'#'.repeat(h.level)} ${clip(h.title, 120)}`,
      start: h.idx + 1,
      end: endIdx + 1,
    };
    return { level: h.level, sym };
  });
  return nest(items);
}

/** Keys of the top two object levels of a JSON (or JSONC) document, with the lines their values span. */
export function jsonOutline(text: string): OutlineSymbol[] {
  interface Frame {
    kind: '{' | '[';
    depth: number; // object nesting depth, counting only objects
    pending?: OutlineSymbol; // the key whose value is being read in this frame
  }
  const items: { level: number; sym: OutlineSymbol }[] = [];
  const stack: Frame[] = [];
  let line = 1;
  let lastSig = 1; // line of the last character that belongs to a value
  let lastString: { value: string; line: number } | undefined;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (ch === '\n') {
      line++;
      continue;
    }
    if (ch === ' ' || ch === '\t' || ch === '\r') continue;
    if (ch === '/' && text[i + 1] === '/') {
      while (i + 1 < text.length && text[i + 1] !== '\n') i++;
      continue;
    }
    if (ch === '/' && text[i + 1] === '*') {
      const close = text.indexOf('*/', i + 2);
      const stop = close < 0 ? text.length : close + 2;
      for (let k = i; k < stop; k++) if (text[k] === '\n') line++;
      i = stop - 1;
      continue;
    }
    const top = stack[stack.length - 1];
    if (ch === '"') {
      let j = i + 1;
      let value = '';
      while (j < text.length && text[j] !== '"') {
        if (text[j] === '\\') j++;
        else if (text[j] === '\n') line++;
        else value += text[j];
        j++;
      }
      lastString = { value, line };
      lastSig = line;
      i = j;
      continue;
    }
    if (ch === ':' && top?.kind === '{' && lastString) {
      if (top.depth <= MAX_KEY_DEPTH) {
        const sym: OutlineSymbol = { kind: 'key', name: lastString.value, signature: clip(lastString.value, 80), start: lastString.line, end: lastString.line };
        top.pending = sym;
        items.push({ level: top.depth, sym });
      }
      lastString = undefined;
      continue;
    }
    lastString = undefined;
    if (ch === '{' || ch === '[') {
      stack.push({ kind: ch, depth: (top?.depth ?? 0) + (ch === '{' ? 1 : 0) });
      lastSig = line;
      continue;
    }
    if (ch === ',' || ch === '}' || ch === ']') {
      if (top?.pending) {
        top.pending.end = lastSig; // the value ended at the last value character before the separator
        top.pending = undefined;
      }
      if (ch !== ',') {
        stack.pop();
        lastSig = line;
      }
      continue;
    }
    lastSig = line; // numbers, true/false/null
  }
  return nest(items);
}

/** Keys of the top two indentation levels of a YAML document. */
export function yamlOutline(text: string): OutlineSymbol[] {
  const lines = text.split(/\r?\n/);
  const keyRe = /^(\s*)(?:-\s+)?("[^"]*"|'[^']*'|[^\s#'"{[][^:#]*?)\s*:(?:\s|$)/;
  const found: { idx: number; indent: number; name: string }[] = [];
  let levels: number[] = [];
  lines.forEach((line, idx) => {
    if (/^\s*(#|$)/.test(line) || /^(---|\.\.\.)\s*$/.test(line)) return;
    const m = keyRe.exec(line);
    if (!m) return;
    const indent = m[1]!.length;
    levels = levels.filter((l) => l < indent);
    levels.push(indent);
    if (levels.length > MAX_KEY_DEPTH) return;
    found.push({ idx, indent, name: m[2]!.replace(/^["']|["']$/g, '') });
  });
  const items = found.map((k, i) => {
    // A key's value runs until the next line that is indented no deeper than the key.
    let endIdx = lines.length - 1;
    for (let j = k.idx + 1; j < lines.length; j++) {
      const l = lines[j]!;
      if (/^\s*(#|$)/.test(l)) continue;
      const indent = /^\s*/.exec(l)![0].length;
      if (indent <= k.indent && !(indent === k.indent && /^\s*-\s/.test(l) && !/^\s*-\s/.test(lines[k.idx]!))) {
        endIdx = j - 1;
        break;
      }
    }
    endIdx = lastNonBlank(lines, k.idx, endIdx);
    void i;
    return { level: k.indent, sym: { kind: 'key' as const, name: k.name, signature: clip(k.name, 80), start: k.idx + 1, end: endIdx + 1 } };
  });
  return nest(items);
}

/**
 * For unknown languages: lines at the outermost indentation that open a block (end with `{`, `(`, `[`, `:`
 * or are followed by deeper lines), with one nested level. Closing-only lines and comments are skipped.
 */
export function indentOutline(text: string, maxSymbols = 400): OutlineSymbol[] {
  const lines = text.split(/\r?\n/);
  const indentOf = (l: string) => /^[ \t]*/.exec(l)![0].replace(/\t/g, '    ').length;
  const meaningful = (l: string) => l.trim() !== '' && !/^\s*[)\]}]+[;,]?\s*$/.test(l) && !/^\s*(\/\/|#|--|;|\*)/.test(l);
  const nextMeaningful = (i: number) => {
    for (let j = i + 1; j < lines.length; j++) if (lines[j]!.trim() !== '') return j;
    return -1;
  };
  let count = 0;
  const collect = (from: number, to: number, baseIndent: number, depth: number): OutlineSymbol[] => {
    const out: OutlineSymbol[] = [];
    for (let i = from; i <= to && count < maxSymbols; i++) {
      const l = lines[i]!;
      if (!meaningful(l) || indentOf(l) !== baseIndent) continue;
      const n = nextMeaningful(i);
      const opens = /[{([:]\s*$/.test(l) || (n >= 0 && n <= to && indentOf(lines[n]!) > baseIndent);
      if (!opens) continue;
      // Block end: the last line before the next line at this indentation or shallower, keeping a closing bracket line.
      let end = i;
      for (let j = i + 1; j <= to; j++) {
        const lj = lines[j]!;
        if (lj.trim() === '') continue;
        const ind = indentOf(lj);
        if (ind > baseIndent) end = j;
        else {
          if (ind === baseIndent && /^\s*[)\]}]/.test(lj)) end = j;
          break;
        }
      }
      count++;
      const sym: OutlineSymbol = { kind: 'block', name: clip(l.trim(), 80), signature: clip(l.trim(), 120), start: i + 1, end: end + 1 };
      if (depth < 1 && end > i) {
        const firstChild = nextMeaningful(i);
        if (firstChild > 0 && firstChild <= end) {
          const kids = collect(i + 1, end, indentOf(lines[firstChild]!), depth + 1);
          if (kids.length) sym.children = kids;
        }
      }
      out.push(sym);
      i = Math.max(i, end);
    }
    return out;
  };
  const first = lines.findIndex(meaningful);
  if (first < 0) return [];
  const base = Math.min(...lines.filter(meaningful).map(indentOf));
  return collect(0, lines.length - 1, base, 0);
}
