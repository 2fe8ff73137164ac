import { z } from 'zod';
import { ToolError } from '../../core/errors';
import { defineTool } from './common';

export const beChip = defineTool({
  name: 'be-chip',
  title: 'Chip',
  description:
    'Get, delete or clear chips (saved arguments, deleted text).',
  grammar: 'action: "get" | "delete" (with id, e.g. "a1b2c3" or "chip://a1b2c3") | "clear".',
  example: { action: 'get', id: 'a1b2c3' },
  inputSchema: () => ({
    action: z.enum(['get', 'delete', 'clear']),
    id: z.string().optional(),
  }),
  readOnlyCall: (args) => args.action === 'get',
  annotations: { title: 'Chip', readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  async handler(args, { services }) {
    const chips = services.chips;
    if (args.action === 'clear') {
      const all = await chips.list();
      if (chips.clear) await chips.clear();
      else for (const c of all) await chips.delete(c.id);
      return { status: 'ok', cleared: all.length };
    }
    const id = (args.id ?? '').replace(/^chip:\/\//, '').trim();
    if (!id) {
      throw new ToolError('invalid_argument', `be-chip ${args.action}: missing id. Expected {"action":"${args.action}","id":"a1b2c3"}; call be-insert-chip with no arguments to list ids.`);
    }
    const chip = await chips.get(id);
    if (!chip) {
      const ids = (await chips.list()).map((c) => c.id);
      throw new ToolError('not_found', `chip ${id} not found; existing chips: ${ids.length ? ids.join(', ') : '(none)'}`, { ids });
    }
    if (args.action === 'delete') {
      await chips.delete(id);
      return { status: 'ok', deleted: id };
    }
    const text = chips.originalText(chip);
    return { status: 'ok', chip, ...(text !== undefined ? { text } : {}) };
  },
});
