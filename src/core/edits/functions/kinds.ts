/**
 * The one kind vocabulary of be-func-range (and be-read's `function` target), whatever found the construct: the
 * bundled tree-sitter grammars (through the SymbolLocator port, in the outline's words) or the brace, indentation
 * and keyword analyzers. A model sees the same word for the same construct with and without a grammar.
 */
import type { SymbolKind } from '../../context/types';

export const FUNCTION_KINDS = ['function', 'method', 'class', 'block'] as const;

/**
 * - `function`: a function, arrow function or lambda, a test callback (`it(…, () => {…})`);
 * - `method`: a function of a class, struct, impl or receiver, constructors included;
 * - `class`: a type declaration: class, interface, trait, struct, enum, impl block, record, type alias;
 * - `block`: anything else: a namespace or module, an object literal, a plain `{…}`.
 */
export type FunctionKind = (typeof FUNCTION_KINDS)[number];

/** Every outline symbol kind onto the vocabulary (a kind added to SymbolKind fails to compile until it is placed). */
const OUTLINE: Record<SymbolKind, FunctionKind> = {
  function: 'function', test: 'function',
  method: 'method', constructor: 'method',
  class: 'class', interface: 'class', struct: 'class', enum: 'class', impl: 'class', type: 'class',
  module: 'block', variable: 'block', const: 'block', key: 'block', heading: 'block', block: 'block',
};
const FROM_OUTLINE = new Map<string, FunctionKind>(Object.entries(OUTLINE));

/** A locator's word for a kind in the vocabulary; a word it does not know is a `block`. */
export function functionKindOf(kind: string | undefined): FunctionKind {
  return (kind === undefined ? undefined : FROM_OUTLINE.get(kind)) ?? 'block';
}
