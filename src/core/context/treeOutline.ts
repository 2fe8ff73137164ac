/**
 * The tree-sitter outline of one text: parse (a second parse where the TypeScript grammar has a known gap) and
 * extract. Pure: it is given its parsers. Run in-thread for small texts and on the outline worker for the rest
 * (node/outlinePool.ts), through the OutlineSource port.
 */
import type { Parser, Tree } from '@vscode/tree-sitter-wasm';
import { extractOutline, type Extracted } from './extract';
import { languageSpec } from './outlineLanguages';
import { errorCount, repairedTypeScript } from './repair';
import { hasGrammar } from '../text/languages';
import type { ParserSource } from './node/treeSitter';

export type { Extracted } from './extract';

/** Where outlines come from: parsed here, or on a worker thread (node/outlinePool.ts). */
export interface OutlineSource {
  /**
   * The tree-sitter outline of `text`, undefined when `languageId` has no grammar. Rejects with an error named
   * `AbortError` when `signal` aborts first.
   */
  outline(text: string, languageId: string, signal?: AbortSignal): Promise<Extracted | undefined>;
}

/** Outlines parsed on the calling thread. */
export function inThreadOutlines(parsers: ParserSource): OutlineSource {
  return { outline: (text, languageId) => treeSitterOutline(text, languageId, parsers) };
}

/** The tree-sitter outline of `text`, with the regions that did not parse; undefined without a grammar. */
export async function treeSitterOutline(text: string, languageId: string, parsers: ParserSource): Promise<Extracted | undefined> {
  if (!hasGrammar(languageId)) return undefined;
  const spec = languageSpec(languageId)!;
  const parser = await parsers.parserFor(languageId);
  if (!parser) return undefined;
  const tree = reparsed(parser, text, parser.parse(text), languageId);
  try {
    return tree && extractOutline(tree, spec);
  } finally {
    tree?.delete();
    parser.delete();
  }
}

/** Where the TypeScript grammar has a known gap (see repair.ts), a second parse of the repaired text, if it is better. */
function reparsed(parser: Parser, text: string, tree: Tree | null, languageId: string): Tree | undefined {
  if (!tree || !tree.rootNode.hasError || !/^typescript(react)?$/.test(languageId)) return tree ?? undefined;
  const repaired = repairedTypeScript(text, tree);
  const second = repaired === undefined ? null : parser.parse(repaired);
  if (!second) return tree;
  if (errorCount(second.rootNode) < errorCount(tree.rootNode)) {
    tree.delete();
    return second;
  }
  second.delete();
  return tree;
}
