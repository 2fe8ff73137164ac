/**
 * be-insert-chip: insert a chip's text (or a file's) after a line, through be-insert's path; with neither `from`
 * nor `to`, list the chips (filtered by tool, path or text: core/chips/listFilter.ts).
 */
import { filterChips, type ChipListFilter } from '../../chips/listFilter';
import type { ChipSink } from '../../chips/types';
import { ToolError } from '../../errors';
import { languageIdFromPath } from '../../text/languages';
import { parseFileRange } from '../../text/range';
import { loadFile, type EditContext } from '../editContext';
import { chipMessages } from '../messages';
import type { ChipListResult, InsertChipArgs, InsertChipResult } from '../types';
import { insertAt } from './insert';

export async function insertChip(ctx: EditContext, args: InsertChipArgs): Promise<ChipListResult | InsertChipResult> {
  const from = (args.from ?? '').trim();
  const to = (args.to ?? '').trim();
  if (from === '' && to === '') return listChips(ctx, args);
  if (from === '') throw new ToolError('invalid_argument', chipMessages.fromMissing);
  if (to === '') throw new ToolError('invalid_argument', chipMessages.toMissing);
  const format = args.format ?? 'raw';
  const target = parseFileRange(to);
  if (target.spec.kind !== 'line') throw new ToolError('invalid_argument', chipMessages.toNeedsLine(target.path));
  let text: string;
  let source: string;
  if (/^chip:\/\//i.test(from)) {
    const id = from.slice('chip://'.length).trim();
    const chips = requireChips(ctx);
    const chip = await chips.get(id);
    if (!chip) throw new ToolError('not_found', chipMessages.notFound(id, (await chips.list()).map((c) => c.id)));
    text = ctx.renderChip(chip, format, languageIdFromPath(target.path));
    source = `chip://${chip.id}`;
  } else {
    const ld = await loadFile(ctx, from);
    text = ld.doc.text();
    source = ld.display;
  }
  const r = await insertAt(ctx, target, text, { preview: args.preview, format: 'plain' }, 'be-insert-chip');
  return { ...r, source, format };
}

function requireChips(ctx: EditContext): ChipSink {
  if (!ctx.chips) throw new ToolError('invalid_argument', chipMessages.unavailable);
  return ctx.chips;
}

async function listChips(ctx: EditContext, filter: ChipListFilter): Promise<ChipListResult> {
  const { chips, sandbox } = ctx;
  const list = chips ? filterChips(await chips.list(), filter, (c) => chips.originalText(c), (abs) => sandbox.display(abs)) : [];
  const result: ChipListResult = {
    status: 'ok',
    chips: list.map((c) => c.id),
    items: list.map((c) => {
      const item: ChipListResult['items'][number] = {
        id: c.id,
        tool: c.tool,
        created_at: c.created_at,
        size: c.size,
        preview: c.preview,
      };
      if (c.file) item.file = sandbox.display(c.file);
      if (c.range) item.range = c.range;
      if (c.tampered) item.tampered = true;
      return item;
    }),
  };
  if (list.length === 0) result.message = chipMessages.noneRecorded;
  return result;
}
