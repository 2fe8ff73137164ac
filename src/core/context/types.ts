/** Shapes shared by the context modes (overview, structure, full). Plain data, JSON-serialisable. */

export type SymbolKind =
  | 'module'
  | 'class'
  | 'interface'
  | 'struct'
  | 'enum'
  | 'type'
  | 'impl'
  | 'function'
  | 'method'
  | 'constructor'
  | 'variable'
  | 'const'
  /** a describe/it/test block of a test file */
  | 'test'
  | 'heading'
  | 'key'
  | 'block';

export interface OutlineSymbol {
  kind: SymbolKind;
  name: string;
  /** One line, whitespace collapsed, body left out. */
  signature: string;
  /** 1-based inclusive line range of the whole declaration (decorators and `export` included). */
  start: number;
  end: number;
  /** First line of the doc comment or docstring, when there is one. */
  doc?: string;
  exported?: boolean;
  children?: OutlineSymbol[];
}

export type OutlineSource = 'tree-sitter' | 'markdown' | 'json' | 'yaml' | 'indent' | 'document-symbols' | 'none';

export interface FileStructure {
  /** Path as the agent should use it. */
  path: string;
  languageId: string;
  source: OutlineSource;
  lines: number;
  /** Exact with the tokenizer, or estimated (chars / 4) for files too large to count; see tokensEstimated. */
  tokens: number;
  tokensEstimated?: boolean;
  imports: string[];
  symbols: OutlineSymbol[];
  /** Parse problems, size limits: anything the reader should know about completeness. */
  notes: string[];
}

export type ContextMode = 'overview' | 'structure' | 'full';
export type DataType = 'context_summary' | 'file_content';

/**
 * An optional port for languages tree-sitter lacks: the VS Code host answers from
 * `vscode.executeDocumentSymbolProvider`. Return undefined when it has nothing.
 */
export interface SymbolProvider {
  symbols(absPath: string, languageId: string): Promise<OutlineSymbol[] | undefined>;
}

/** The part of the memory tokenizer (src/core/memory/node/tokenizer.ts) the context modes use. */
export interface TokenCounter {
  count(text: string): number;
  /** Loads what `count` needs without blocking the event loop; awaited before a read's first count. */
  ready?(): Promise<void>;
}
