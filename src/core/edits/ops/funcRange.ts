/**
 * be-func-range and be-read's `target: function`: from the syntax tree where the host has one (SymbolLocator),
 * else from the brace/indent analyzers (funcRange.ts). Either answer is put in the one kind vocabulary
 * (functions/kinds.ts) here, so no parser's own words reach a reply.
 */
import { ToolError } from '../../errors';
import { analyzableText, checkLine, loadFile, type EditContext, type LocatedSymbol } from '../editContext';
import { findFunctionByName, findFunctionRange } from '../funcRange';
import { functionKindOf } from '../functions/kinds';
import type { LoadedText } from '../../read/load';
import { targetMessages } from '../messages';
import type { FuncRangeResult, LineArgs } from '../types';

export async function functionRange(ctx: EditContext, args: LineArgs): Promise<FuncRangeResult> {
  const ld = await loadFile(ctx, args.file);
  const line = checkLine(ld, args.line);
  return enclosingFunction(ctx, ld, analyzableText(ctx, ld), line);
}

function inVocabulary(r: LocatedSymbol): FuncRangeResult {
  const out: FuncRangeResult = { start: r.start, end: r.end, kind: functionKindOf(r.kind) };
  if (r.name) out.name = r.name;
  return out;
}

/** The innermost function (else block) around `line` of `text` (the file's analyzable text); throws when there is none. */
export async function enclosingFunction(ctx: EditContext, ld: LoadedText, text: string, line: number): Promise<FuncRangeResult> {
  const r = (await ctx.symbols?.enclosing(text, line, ld.languageId)) ?? findFunctionRange(text, line, ld.languageId);
  if (!r) throw new ToolError('invalid_argument', targetMessages.notInFunction(line, ld.display));
  return inVocabulary(r);
}

/** The definition named `name` (`Class.method` to qualify) in `text`; throws when there is none. */
export async function namedFunction(ctx: EditContext, ld: LoadedText, text: string, name: string): Promise<FuncRangeResult> {
  const r = (await ctx.symbols?.byName(text, name, ld.languageId)) ?? findFunctionByName(text, name, ld.languageId);
  if (!r) throw new ToolError('invalid_argument', targetMessages.functionNotFound(ld.display, name));
  return inVocabulary(r);
}
