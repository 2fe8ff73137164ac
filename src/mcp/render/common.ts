/** Pieces every renderer shares. */
import type { RenderContext } from './types';

/** Tool names in a core hint (`be-read {...}`) as the client lists them. */
export function listedNames(text: string, ctx: RenderContext): string {
  return text.replace(/\bbe-[a-z]+(?:-[a-z]+)*/g, (name) => ctx.listedName(name));
}

/** Numbered rows as the model sees them: an empty line is an empty row (its number is implied by its place). */
export function compactRows(content: string): string {
  return content.replace(/^\d+\t(?:<blank>)?$/gm, '');
}

/** `! warning` lines, one per warning (none when there are none). */
export function warningLines(result: Record<string, unknown>): string[] {
  const out: string[] = [];
  const w = result.warnings;
  if (Array.isArray(w)) for (const x of w) out.push(`! ${String(x)}`);
  if (typeof result.warning === 'string' && result.warning) out.push(`! ${result.warning}`);
  return out;
}

export const join = (lines: (string | undefined | false)[]): string => lines.filter((l): l is string => typeof l === 'string').join('\n');
