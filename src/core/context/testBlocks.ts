/**
 * `describe`/`it`/`test` blocks of JS/TS test files (mocha, jest, vitest, node:test, bun) as outline symbols:
 * a call of one of those names (also `.only`, `.skip`, `.each(…)`, …) whose first argument is a string and
 * whose last argument is a function. `describe` blocks hold the tests inside them.
 */
import type { Node } from '@vscode/tree-sitter-wasm';
import type { NodeRule } from './nodeRule';

const SUITE = /^(describe|suite|context|fdescribe|xdescribe)$/;
const TEST = /^(it|test|specify|fit|xit|bench)$/;
const MODIFIERS = /^(only|skip|todo|concurrent|sequential|failing|fails|each|for|runIf|skipIf)$/;
const CALLBACKS = new Set(['arrow_function', 'function_expression', 'function']);
const STRINGS = new Set(['string', 'template_string']);

interface TestCall {
  suite: boolean;
  title: string;
  callee: string;
  callback: Node;
}

/** `describe.only`, `test.each([…])`, `it.skipIf(x)`: the base name, when every step is a known modifier. */
function baseName(fn: Node | null): { name: string; callee: string } | undefined {
  if (!fn) return undefined;
  if (fn.type === 'identifier') return { name: fn.text, callee: fn.text };
  if (fn.type === 'member_expression') {
    const prop = fn.childForFieldName('property')?.text ?? '';
    const inner = baseName(fn.childForFieldName('object'));
    return inner && MODIFIERS.test(prop) ? { name: inner.name, callee: `${inner.callee}.${prop}` } : undefined;
  }
  // `test.each(table)(…)`: the table call is the callee.
  if (fn.type === 'call_expression') return baseName(fn.childForFieldName('function'));
  return undefined;
}

function testCall(n: Node): TestCall | undefined {
  const base = baseName(n.childForFieldName('function'));
  if (!base || !(SUITE.test(base.name) || TEST.test(base.name))) return undefined;
  const args = n.childForFieldName('arguments')?.namedChildren.filter((a): a is Node => !!a && a.type !== 'comment') ?? [];
  const first = args[0];
  const last = args[args.length - 1];
  if (!first || !STRINGS.has(first.type) || !last || !CALLBACKS.has(last.type)) return undefined;
  return { suite: SUITE.test(base.name), title: first.text.slice(1, -1), callee: base.callee, callback: last };
}

const testBlock: NodeRule = {
  kind: (n) => (testCall(n) ? 'test' : undefined),
  container: true,
  name: (n) => testCall(n)?.title,
  body: (n) => testCall(n)?.callback.childForFieldName('body') ?? undefined,
  signature: (n) => {
    const t = testCall(n)!;
    return `${t.callee}(${n.childForFieldName('arguments')!.namedChildren[0]!.text.replace(/\s+/g, ' ')})`;
  },
};

export const TEST_BLOCK_RULES: Record<string, NodeRule> = { call_expression: testBlock };
