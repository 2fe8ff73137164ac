/** How one tree-sitter node type becomes an outline symbol (languages.ts and testBlocks.ts both write them). */
import type { Node } from '@vscode/tree-sitter-wasm';
import type { SymbolKind } from './types';

export interface NodeRule {
  /** A kind, or a function deciding from the node (undefined = not a symbol). */
  kind: SymbolKind | ((node: Node) => SymbolKind | undefined);
  /** Members are looked for inside (classes, namespaces, impls). */
  container?: boolean;
  /** Only a symbol at file or namespace level (variables). */
  topLevelOnly?: boolean;
  /** Name of the symbol; default: the `name` field. */
  name?: (node: Node) => string | undefined;
  /** For declarations that declare several names at once (`const a = 1, b = 2`, Go `const (...)`). */
  expand?: (node: Node) => Node[];
  /** The node whose children are the members (default: the `body` field). */
  body?: (node: Node) => Node | undefined;
  /** The one-line signature (default: the declaration's text up to its body). */
  signature?: (node: Node) => string;
}
