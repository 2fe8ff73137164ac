/**
 * be-func-range and `target: function`: the innermost enclosing function or method of a line, or a named
 * definition. Brace languages use the balance scanner's `{}` pairs (strings and comments skipped) and classify
 * each block by its statement header; Python uses indentation; Ruby and Lua use `def`/`function` … `end`.
 *
 * A range starts at the signature's first line, which includes decorators/annotations written directly above
 * it (`@Override`, `#[test]`, `[HttpGet]`) but not doc comments; it ends at the closing `}` (or, for Python,
 * the last non-blank line indented deeper than the `def`).
 */
import { scanText } from '../text/scan';
import { lineOfOffset, lineStartsOf, type Block, type FunctionKind, type FunctionRange } from './functions/block';
import { BraceIndex } from './functions/braceBlocks';
import { keywordBlocks } from './functions/keywordBlocks';
import { pythonBlocks } from './functions/pythonBlocks';
import { matchBrackets } from './matchBrackets';

export type { FunctionKind, FunctionRange } from './functions/block';
export { classifyHeader } from './functions/header';

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
