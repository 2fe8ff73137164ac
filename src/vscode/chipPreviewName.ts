/**
 * The name of a chip's preview document, which gives VS Code its language: the text of a chip (deleted text, the
 * `content` of a failed call) takes the name of the file it was meant for, so it is highlighted as that language;
 * text with no known file is plain text; a failed call without text shows its arguments, as JSON. Pure (tested in
 * test/vscode/pure.test.ts).
 */
import * as path from 'node:path';
import type { ChipRecord } from '../core/chips/types';
import { pathOfFileRange } from '../core/text/range';

/** The file a chip's text belongs to: the record's file, else the path in the call's `file` (or `to`) argument. */
export function chipTargetPath(chip: Pick<ChipRecord, 'file' | 'args'>): string | undefined {
  if (chip.file) return chip.file;
  const spec = [chip.args.file, chip.args.to].find((v): v is string => typeof v === 'string' && v.trim() !== '');
  if (!spec) return undefined;
  const p = pathOfFileRange(spec).replace(/^file:\/\//i, '');
  return p || undefined;
}

export function chipPreviewName(chip: Pick<ChipRecord, 'id' | 'file' | 'args'>, hasText: boolean): string {
  if (!hasText) return `chip-${chip.id}.json`;
  const target = chipTargetPath(chip);
  const base = target ? path.basename(target) : '';
  return base && base !== '.' && base !== '..' ? base : `chip-${chip.id}.txt`;
}
