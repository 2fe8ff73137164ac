/**
 * The tree-sitter outline of one text: parse (a second parse where the TypeScript grammar has a known gap) and
 * extract. Pure: it is given its parsers. Run in-thread for small texts and on the outline worker for the rest
 * (node/outlinePool.ts), through the OutlineSource port.
 */
import type { Edit, Parser, Tree } from '@vscode/tree-sitter-wasm';
import { extractOutline, type Extracted } from './extract';
import { languageSpec } from './outlineLanguages';
import { errorCount, repairedTypeScript } from './repair';
import { hasGrammar } from '../text/languages';
import { BLANK_BODIES_MIN_CHARS, blankFunctionBodies } from './cBodies';
import { COMPACT_LITERALS_MIN_CHARS, compactDataLiterals, DATA_LITERAL_LANGUAGES } from './dataLiterals';
import { emptyGoFunctionBodies } from './goBodies';
import { emptyJavaMethodBodies } from './javaBodies';
import { emptyCsharpMethodBodies } from './csharpBodies';
import { emptyRustFunctionBodies } from './rustBodies';
import { emptyJsFunctionBodies } from './jsBodies';
import { emptyCppFunctionBodies } from './cppBodies';
import { emptyPhpFunctionBodies } from './phpBodies';
import { emptyRubyMethodBodies } from './rubyBodies';
import { emptyPythonFunctionBodies } from './pythonBodies';
import { emptyBashFunctionBodies } from './bashBodies';
import type { ParserSource } from './node/treeSitter';

export type { Extracted } from './extract';

/** Where outlines come from: parsed here, or on a worker thread (node/outlinePool.ts). */
export interface OutlineSource {
  /**
   * The tree-sitter outline of `text`, undefined when `languageId` has no grammar. Rejects with an error named
   * `AbortError` when `signal` aborts first.
   */
  outline(text: string, languageId: string, signal?: AbortSignal): Promise<Extracted | undefined>;
  /**
   * Gets ready in the background (a worker pool starts its workers; `forLargeText`: every lane a large text is parsed
   * on, not only the first); nothing waits for it.
   */
  warm?(delayMs?: number, forLargeText?: boolean): void;
}

/** Outlines parsed on the calling thread. */
export function inThreadOutlines(parsers: ParserSource): OutlineSource {
  return { outline: (text, languageId) => treeSitterOutline(text, languageId, parsers) };
}

/** The tree-sitter outline of `text`, with the regions that did not parse; undefined without a grammar. */
export async function treeSitterOutline(text: string, languageId: string, parsers: ParserSource): Promise<Extracted | undefined> {
  const inputs = outlineInputs(text, languageId);
  const parsed = await parseOutline(inputs.text, languageId, parsers, undefined, inputs.whole);
  parsed?.free();
  return parsed?.outline;
}

/**
 * What the outline of `text` parses: a large C text with its function bodies blanked (cBodies.ts: every offset,
 * line and column the same), a large C++, Go, Rust, Java, C#, TypeScript, JavaScript, PHP, Ruby or Python text with
 * its function and method bodies emptied but their line breaks (cppBodies.ts, goBodies.ts, rustBodies.ts,
 * javaBodies.ts, csharpBodies.ts, jsBodies.ts, phpBodies.ts, rubyBodies.ts, pythonBodies.ts), a large JavaScript,
 * TypeScript or Python text without the tails of its data literals but their line breaks (dataLiterals.ts), else
 * `text` itself: every line number the same. The syntax errors in what was blanked or taken out are no longer seen.
 */
export function outlineText(text: string, languageId: string): string {
  return outlineInputs(text, languageId).text;
}

/** The languages whose large texts are parsed with their function bodies blanked or emptied. */
const BODY_BLANKERS: Readonly<Record<string, (text: string) => string | undefined>> = {
  c: blankFunctionBodies,
  cpp: emptyCppFunctionBodies,
  go: emptyGoFunctionBodies,
  java: emptyJavaMethodBodies,
  csharp: emptyCsharpMethodBodies,
  rust: emptyRustFunctionBodies,
  typescript: emptyJsFunctionBodies,
  javascript: emptyJsFunctionBodies,
  php: emptyPhpFunctionBodies,
  ruby: emptyRubyMethodBodies,
  python: emptyPythonFunctionBodies,
  shellscript: emptyBashFunctionBodies,
};

/**
 * outlineText, and `whole`: what parseOutline parses instead when that parses with errors. Error recovery weighs
 * the characters it skips, and a compacted text has fewer, so its outline could differ from the whole text's where
 * the text has an error outside the tails; a blanked C text keeps every character's place, and 87 of 211 real C
 * files have errors in their whole parse (macros the grammar does not know), which would pay both parses.
 */
export function outlineInputs(text: string, languageId: string): { text: string; whole?: string } {
  let parsed = text;
  let whole: string | undefined;
  if (DATA_LITERAL_LANGUAGES.has(languageId) && text.length >= COMPACT_LITERALS_MIN_CHARS) {
    const compacted = compactDataLiterals(text, languageId);
    if (compacted !== undefined) [parsed, whole] = [compacted, text];
  }
  const blank = BODY_BLANKERS[languageId];
  if (blank && text.length >= BLANK_BODIES_MIN_CHARS) parsed = blank(parsed) ?? parsed;
  return whole === undefined ? { text: parsed } : { text: parsed, whole };
}

/** An earlier tree of the same language and the edit (textEdit.ts) from its text to the new one. */
export interface Base {
  tree: Tree;
  edit: Edit;
}

export interface Parsed {
  outline: Extracted | undefined;
  /** Frees the parser and the tree (unless kept). */
  free(): void;
  /** The tree, for the next parse's Base, when it parsed without errors; `free` then leaves it. */
  keep(): Tree | undefined;
}

/**
 * The outline and a `free` for the tree and parser behind it: the worker answers first and frees after (freeing a
 * 4 MB file's tree takes ~40 ms). Undefined without a grammar; the outline is undefined when nothing parsed.
 * `text` is what outlineInputs gave for the file's text, and `whole`, when it gave one, is parsed instead of `text`
 * when that parses with errors.
 *
 * With a `base` (edited here, so it is the caller's to free and never to use again) the text is parsed
 * incrementally; the result is used only when it has no error, else the text is parsed whole, so that error
 * recovery, and the outline, are a fresh parse's.
 */
export async function parseOutline(text: string, languageId: string, parsers: ParserSource, base?: Base, whole?: string): Promise<Parsed | undefined> {
  if (!hasGrammar(languageId)) return undefined;
  const spec = languageSpec(languageId)!;
  const parser = await parsers.parserFor(languageId);
  if (!parser) return undefined;
  let tree: Tree | undefined;
  let kept = false;
  const free = () => {
    if (!kept) tree?.delete();
    parser.delete();
  };
  try {
    tree = base && incremental(parser, text, base);
    // a tree of the repaired TypeScript is not one of `text`: never a base
    let ofText = !!tree;
    if (!tree) {
      const first = parseInSlices(parser, text);
      tree = reparsed(parser, text, first, languageId);
      ofText = tree === first;
    }
    if (whole !== undefined && tree?.rootNode.hasError) {
      // outlineInputs: the whole text's own error recovery; a tree that is not of `text` is never kept
      tree.delete();
      tree = reparsed(parser, whole, parseInSlices(parser, whole), languageId);
      ofText = false;
    }
    return {
      outline: tree && extractOutline(tree, spec),
      free,
      keep: () => (tree && ofText && !tree.rootNode.hasError ? ((kept = true), tree) : undefined),
    };
  } catch (err) {
    free();
    throw err;
  }
}

function incremental(parser: Parser, text: string, base: Base): Tree | undefined {
  if (base.tree.rootNode.hasError) return undefined;
  base.tree.edit(base.edit);
  const tree = parser.parse(text, base.tree);
  if (tree && !tree.rootNode.hasError) return tree;
  tree?.delete();
  parser.reset();
  return undefined;
}

/** Bytes (the runtime counts UTF-16 bytes) parsed per call of the runtime's parse loop. */
const SLICE_BYTES = 256 * 1024;

/**
 * `parser.parse(text)`, stopped by the progress callback every SLICE_BYTES and resumed where it stopped (the
 * runtime's documented resume): the same tree. WebAssembly code moves to its optimizing tier only on a new call
 * of a function, and one call of the parse loop over a whole 4 MB file ran on the baseline tier throughout.
 */
export function parseInSlices(parser: Parser, text: string): Tree | null {
  let stopAt = SLICE_BYTES;
  for (;;) {
    let stopped = false;
    const tree = parser.parse(text, null, {
      progressCallback: ({ currentOffset }) => {
        if (currentOffset < stopAt) return false;
        stopAt = currentOffset + SLICE_BYTES;
        return (stopped = true);
      },
    });
    if (tree || !stopped) return tree;
  }
}

/** Where the TypeScript grammar has a known gap (see repair.ts), a second parse of the repaired text, if it is better. */
function reparsed(parser: Parser, text: string, tree: Tree | null, languageId: string): Tree | undefined {
  if (!tree || !tree.rootNode.hasError || !/^typescript(react)?$/.test(languageId)) return tree ?? undefined;
  const repaired = repairedTypeScript(text, tree);
  const second = repaired === undefined ? null : parseInSlices(parser, repaired);
  if (!second) return tree;
  if (errorCount(second.rootNode) < errorCount(tree.rootNode)) {
    tree.delete();
    return second;
  }
  second.delete();
  return tree;
}
