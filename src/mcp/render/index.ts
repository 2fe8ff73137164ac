/** The reply of a successful call as the model will see it (see types.ts). */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { renderChipList } from './chipList';
import { renderEditDiff } from './editDiff';
import { renderOutline } from './outline';
import { renderOverview } from './overview';
import { renderReadPage } from './readPage';
import type { RenderContext, Renderer, ReplyStyle } from './types';

export type { RenderContext, Renderer, ReplyStyle } from './types';
export { renderEditDiff, renderWrite } from './editDiff';
export { renderChipList } from './chipList';
export { renderMemory } from './memoryWindow';
export { renderOutline } from './outline';
export { renderOverview } from './overview';
export { renderReadPage } from './readPage';

/** be-read answers in one of three kinds (its `mode`): a page, an outline or a map. */
export const renderRead: Renderer = (r, ctx) =>
  r.mode === 'structure' ? renderOutline(r, ctx) : r.mode === 'overview' ? renderOverview(r, ctx) : renderReadPage(r, ctx);

/** be-insert-chip: the chip list, or the insert it made. */
export const renderInsertChip: Renderer = (r, ctx) => (Array.isArray(r.chips) ? renderChipList(r) : renderEditDiff(r, ctx));

export function parseReplyStyle(value: unknown): ReplyStyle | undefined {
  return value === 'json' || value === 'text' ? value : undefined;
}

/**
 * Text when the tool has a renderer and the style is text (no structuredContent: a client would show that
 * instead); else upstream's JSON in structuredContent and as text.
 */
export function replyOf(obj: Record<string, unknown>, render: Renderer | undefined, style: ReplyStyle, ctx: RenderContext): CallToolResult {
  if (style === 'json' || !render) return { content: [{ type: 'text', text: JSON.stringify(obj) }], structuredContent: obj };
  return { content: [{ type: 'text', text: render(obj, ctx) }] };
}
