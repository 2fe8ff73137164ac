/** The def/function … end blocks of Ruby and Lua, over the scanner's keywords (strings and comments skipped). */
import { scanText } from '../../text/scan';
import type { Block } from './block';

const RUBY_KEYWORDS = new Set(['def', 'class', 'module', 'do', 'begin', 'case', 'if', 'unless', 'while', 'until', 'for', 'end']);
const LUA_KEYWORDS = new Set(['function', 'if', 'for', 'while', 'do', 'repeat', 'until', 'end']);
/** after these, `if`/`while`… start a statement (`x = if c`); elsewhere they are modifiers (`return if c`) */
const STATEMENT_AFTER = new Set('=(,;|&![{'.split('').map((c) => c.charCodeAt(0)));

export function keywordBlocks(text: string, languageId: string): Block[] {
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
      // Lua `function T:m`, Ruby `def self.m` / `def T.m` (a singleton method, wherever it is written)
      const method = ruby ? m?.[1] !== undefined : !!m?.[1]?.endsWith(':');
      block = { start: k.line, end: -1, open: k.offset, kind: method ? 'method' : 'function', name, owner, functionLike: true, classLike: false };
    } else if (ruby && (w === 'class' || w === 'module')) {
      // a module is a namespace (a `block`, as the brace analyzer's `namespace`), its defs functions, not methods
      const m = at(/(?:class|module)\s+([\w:]+)/y, k.offset);
      const cls = w === 'class';
      block = { start: k.line, end: -1, open: k.offset, kind: cls ? 'class' : 'container', name: m?.[1]?.split('::').pop(), functionLike: false, classLike: cls };
    }
    stack.push(block);
  }
  blocks.sort((a, b) => a.open - b.open);
  // Ruby: a def directly inside a class is a method (inside a module, a function)
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
