/** Walks a tree-sitter tree with a LanguageSpec and returns the nested outline. */
import type { Node, Tree } from '@vscode/tree-sitter-wasm';
import type { LanguageSpec, NodeRule } from './outlineLanguages';
import type { OutlineSymbol, SymbolKind } from './types';

/** A signature's length at most (clipped with an ellipsis). */
export const MAX_SIGNATURE = 160;
const MAX_DOC = 80;
const MEMBER_CONTAINERS = new Set<SymbolKind>(['class', 'interface', 'struct', 'impl']);

export interface Extracted {
  symbols: OutlineSymbol[];
  imports: string[];
  /** 1-based lines where the parser had to recover from a syntax error (first few). */
  errorLines: number[];
  /** 1-based line ranges of the ERROR/MISSING nodes (first MAX_ERROR_RANGES): where the outline is not to be trusted. */
  errorRanges: { start: number; end: number }[];
}

const MAX_ERROR_RANGES = 100;

export function extractOutline(tree: Tree, spec: LanguageSpec): Extracted {
  const imports: string[] = [];
  const symbols: OutlineSymbol[] = [];
  // A grammar without decorators never has one before a declaration: no sibling look-ups for them.
  const ctx: Walk = { spec, imports, decorators: tree.language.idForNodeType('decorator', true) !== null };
  walk(tree.rootNode.namedChildren, null, true, symbols, ctx);
  const errorRanges = tree.rootNode.hasError ? errorNodes(tree.rootNode, MAX_ERROR_RANGES) : [];
  return { symbols, imports: dedupe(imports), errorLines: [...new Set(errorRanges.slice(0, 5).map((r) => r.start))], errorRanges };
}

interface Walk {
  spec: LanguageSpec;
  imports: string[];
  decorators: boolean;
}

/**
 * `nodes` is always one node's named children: a statement's previous named siblings are the entries before it
 * (each look-up through the tree is a WebAssembly call that walks the parent's children).
 */
function walk(nodes: (Node | null)[], container: OutlineSymbol | null, topLevel: boolean, out: OutlineSymbol[], ctx: Walk): void {
  const { spec, imports } = ctx;
  for (let i = 0; i < nodes.length; i++) {
    const c = nodes[i];
    if (!c) continue;
    const type = c.type;
    if (spec.imports.has(type) || (type === 'call' && topLevel && spec.requireCalls)) {
      const imp = importText(c, type);
      if (imp) imports.push(...(Array.isArray(imp) ? imp : [imp]));
      continue;
    }
    const inner = spec.wrappers.has(type) ? unwrap(c, spec) : c;
    if (!inner) continue;
    const innerType = inner === c ? type : inner.type;
    const rule = spec.rules[innerType];
    if (rule) {
      const targets = rule.expand ? rule.expand(inner) : [inner];
      for (const t of targets) {
        const tRule = t === inner ? rule : spec.rules[t.type];
        if (!tRule) continue;
        // A single declarator takes the whole statement's range (`export const x = …;`).
        const outer = targets.length === 1 ? c : t;
        const sym = makeSymbol(t, outer, { nodes, at: i, type }, tRule, container, topLevel, ctx);
        if (!sym) continue;
        if (tRule.container) {
          const body = (tRule.body ? tRule.body(t) : t.childForFieldName('body')) ?? t;
          const kids: OutlineSymbol[] = [];
          walk(body.namedChildren, sym, sym.kind === 'module', kids, ctx);
          if (kids.length) sym.children = kids;
        }
        out.push(sym);
      }
    } else if (spec.transparent?.has(innerType)) {
      walk(inner.namedChildren, container, topLevel, out, ctx);
    }
  }
}

/** Peel export/decorator/template wrappers down to the declaration they carry. */
function unwrap(n: Node, spec: LanguageSpec): Node | undefined {
  let cur: Node = n;
  for (let i = 0; i < 4 && spec.wrappers.has(cur.type); i++) {
    const next =
      cur.childForFieldName('declaration') ??
      cur.childForFieldName('definition') ??
      [...cur.namedChildren].reverse().find((k) => !!k && (!!spec.rules[k.type] || spec.wrappers.has(k.type)));
    if (!next) return undefined;
    cur = next;
  }
  return cur;
}

/** A statement in its parent's named children (walk's `nodes`), with its type. */
interface Statement {
  nodes: (Node | null)[];
  at: number;
  type: string;
}

function makeSymbol(
  node: Node,
  outer: Node,
  statement: Statement,
  rule: NodeRule,
  container: OutlineSymbol | null,
  topLevel: boolean,
  ctx: Walk,
): OutlineSymbol | undefined {
  if (rule.topLevelOnly && !topLevel) return undefined;
  let kind = typeof rule.kind === 'function' ? rule.kind(node) : rule.kind;
  if (!kind) return undefined;
  const name = (rule.name ? rule.name(node) : node.childForFieldName('name')?.text)?.replace(/\s+/g, ' ');
  if (!name) return undefined;
  if (kind === 'function' && container && MEMBER_CONTAINERS.has(container.kind)) kind = 'method';
  const sym: OutlineSymbol = {
    kind,
    name,
    signature: rule.signature ? clip(rule.signature(node), MAX_SIGNATURE) : signature(node),
    start: (ctx.decorators ? firstDecorator(outer) : outer).startPosition.row + 1,
    end: endLine(outer),
  };
  const doc = docComment(ctx.decorators ? firstDecoratorAt(statement) : statement.at, statement.nodes, ctx.spec) ?? (ctx.spec.docstrings ? docstring(node) : undefined);
  if (doc) sym.doc = doc;
  if (statement.type === 'export_statement') sym.exported = true;
  return sym;
}

/** Decorators of class members are the member's preceding siblings (TS/JS): the declaration starts at the first. */
function firstDecorator(n: Node): Node {
  let first = n;
  while (first.previousNamedSibling?.type === 'decorator') first = first.previousNamedSibling;
  return first;
}

/** firstDecorator of a statement, as its index among its siblings. */
function firstDecoratorAt({ nodes, at }: Statement): number {
  let first = at;
  while (first > 0 && nodes[first - 1]?.type === 'decorator') first--;
  return first;
}

/** 1-based last line; a node ending at column 0 ends on the line before. */
export function endLine(n: Node): number {
  const { row, column } = n.endPosition;
  return column === 0 && row > n.startPosition.row ? row : row + 1;
}

const FUNCTION_VALUES = new Set(['arrow_function', 'function_expression', 'function', 'generator_function']);

/** Declarations whose value decides the signature: `const f = (a) => …`, class fields `onError = (err) => …`. */
const VALUE_HOLDERS = new Set(['variable_declarator', 'public_field_definition', 'field_definition']);

function signature(node: Node): string {
  let text: string;
  const value = VALUE_HOLDERS.has(node.type) ? node.childForFieldName('value') : null;
  if (value && FUNCTION_VALUES.has(value.type)) {
    const body = value.childForFieldName('body');
    text = body && body.type === 'statement_block' ? node.text.slice(0, body.startIndex - node.startIndex) : cutAt(node.text, '=>', 2);
  } else if (value) {
    const head = node.text.slice(0, value.startIndex - node.startIndex);
    text = head + clip(value.text.replace(/\s+/g, ' '), 24);
  } else {
    const body = node.childForFieldName('body');
    text = body && body.startIndex > node.startIndex ? node.text.slice(0, body.startIndex - node.startIndex) : node.text;
    if (!body && text.includes('\n') && /\{/.test(text)) text = text.slice(0, text.indexOf('{'));
  }
  // Comment lines between the head and the body are not part of the signature.
  text = text
    .split('\n')
    .filter((l, i) => i === 0 || !/^\s*(#|\/\/|\/\*|\*)/.test(l))
    // A trailing `# pragma: no cover` (Python, Ruby, shell) is not part of the signature either; `#[…]` is Rust.
    .map((l) => l.replace(/\s#(?![[!])[^'"\n]*$/, ''))
    .join(' ');
  text = text.replace(/\s+/g, ' ').trim().replace(/\s*[{:;]$/, '').trim();
  const keyword = DECLARATION_KEYWORD.has(node.type) ? declarationKeyword(node) : undefined;
  if (keyword && !text.startsWith(keyword + ' ')) text = `${keyword} ${text}`;
  return clip(text, MAX_SIGNATURE);
}

/** Declarators whose keyword sits on the enclosing declaration (`const x = 1`, Go `type T struct`). */
const DECLARATION_KEYWORD = new Set(['variable_declarator', 'type_spec', 'type_alias', 'const_spec', 'var_spec']);

function declarationKeyword(node: Node): string | undefined {
  const parent = node.parent;
  const first = parent?.child(0);
  if (!first || first.isNamed) return undefined;
  return /^(const|let|var|type)$/.test(first.text) ? first.text : undefined;
}

function cutAt(text: string, marker: string, extra: number): string {
  const i = text.indexOf(marker);
  return i < 0 ? text : text.slice(0, i + extra);
}

export function clip(s: string, max: number): string {
  return s.length <= max ? s : s.slice(0, max - 1) + '…';
}

/** First line of the comment block that ends right above the declaration, the statement `nodes[at]`. */
function docComment(at: number, nodes: (Node | null)[], spec: LanguageSpec): string | undefined {
  const statement = nodes[at]!;
  let expectedRow = statement.startPosition.row;
  // The siblings before the statement are `nodes` (a null entry: ask the tree); past the parent's start, the tree.
  let k = at - 1;
  const before = (n: Node, i: number): Node | null => (i < 0 ? null : (nodes[i] ?? n.previousNamedSibling));
  let prev = before(statement, k);
  let fromTree = false;
  // A comment right after `module X` / `class X {` can sit on the parent, before the body node starts.
  // Go's `type T struct` sits inside a `type_declaration` that carries the comment.
  if (!prev) {
    const parent = statement.parent;
    if (parent && parent.parent && (parent.startIndex === statement.startIndex || parent.firstNamedChild?.equals(statement))) {
      prev = parent.previousNamedSibling;
      expectedRow = parent.startPosition.row;
      fromTree = true;
    }
  }
  let top: Node | undefined;
  let topAt = -1;
  while (prev && spec.comments.has(prev.type) && prev.endPosition.row >= expectedRow - 1 && prev.endPosition.row <= expectedRow) {
    top = prev;
    topAt = k;
    expectedRow = prev.startPosition.row;
    if (fromTree) prev = prev.previousNamedSibling;
    else prev = before(prev, --k);
  }
  if (!top) return undefined;
  // Text of the whole run, from the top comment to the declaration.
  let text = '';
  const after = (n: Node, i: number): Node | null => (fromTree ? n.nextNamedSibling : i < nodes.length ? (nodes[i] ?? n.nextNamedSibling) : null);
  for (let n: Node | null = top, i = topAt; n && spec.comments.has(n.type) && n.startIndex < statement.startIndex; n = after(n, ++i)) {
    text += n.text + '\n';
  }
  return firstDocLine(text);
}

function docstring(node: Node): string | undefined {
  const body = node.childForFieldName('body');
  const first = body?.namedChildren[0];
  if (first?.type === 'expression_statement' && first.namedChildren[0]?.type === 'string') {
    return firstDocLine(first.namedChildren[0].text);
  }
  return undefined;
}

export function firstDocLine(raw: string): string | undefined {
  for (let line of raw.split('\n')) {
    line = line
      .replace(/^\s*(\/\*\*?|\*\/|\*|\/\/[/!]?|#+|--|"""|'''|r?""")\s?/, '')
      .replace(/(\*\/|"""|''')\s*$/, '')
      .replace(/<\/?summary>/g, '')
      .trim();
    if (line && !/^[-=*#/\s]+$/.test(line) && !line.startsWith('@') && !line.startsWith('!')) return clip(line, MAX_DOC);
  }
  return undefined;
}

function importText(n: Node, type: string): string | string[] | undefined {
  const text = n.text;
  if (type === 'call') {
    const m = /^(require|require_relative|load)\s*\(?\s*['"]([^'"]+)['"]/.exec(text);
    return m?.[2];
  }
  const strings = [...text.matchAll(/["'`<]([^"'`<>\n]+)["'`>]/g)].map((m) => m[1]!);
  if (strings.length) return strings;
  const from = /^from\s+(\S+)\s+import/.exec(text);
  if (from) return from[1];
  return text
    .replace(/^(import|use|using|extern crate|#include|namespace)\s+/, '')
    .replace(/;\s*$/, '')
    .replace(/\s+/g, ' ')
    .trim();
}

function dedupe(xs: string[]): string[] {
  return [...new Set(xs.filter(Boolean))];
}

function errorNodes(root: Node, max: number): { start: number; end: number }[] {
  const ranges: { start: number; end: number }[] = [];
  const visit = (n: Node): void => {
    if (ranges.length >= max) return;
    if (n.isError || n.isMissing) {
      ranges.push({ start: n.startPosition.row + 1, end: Math.max(n.startPosition.row + 1, endLine(n)) });
      return;
    }
    if (!n.hasError) return;
    for (const c of n.children) if (c) visit(c);
  };
  visit(root);
  return ranges;
}
