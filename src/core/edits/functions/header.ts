/**
 * The statement header before a `{` in a brace language (from the last boundary to the brace), classified: a
 * function (arrow, keyword, C-style or method syntax), a class-like declaration, a container (namespace, module)
 * or a plain block. Annotations and comments in the header are skipped.
 */
import type { FunctionKind } from './block';

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

export interface Classified {
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
  // a type alias of an object type (`type Opts = {`) is a type declaration, as the outline has it
  if (first === 'type' && words.length > w + 1 && /=$/.test(h) && !/=>$/.test(h)) return { kind: 'class', name: words[w + 1] };
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
