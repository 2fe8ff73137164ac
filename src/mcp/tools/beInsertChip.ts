import { z } from 'zod';
import { renderInsertChip } from '../render/index';
import type { ChipFormat } from '../../core/chips/types';
import type { ServerDeps } from '../deps';
import { asRecord, defineTool } from './common';

const FORMATS = ['raw', 'annotated', 'json'] as const satisfies readonly ChipFormat[];

/** The host's default format (ServerDeps.chipFormat), when it is one of ours (a setting may hold anything); else raw. */
export function defaultChipFormat(services: ServerDeps): ChipFormat {
  const f = services.chipFormat?.();
  return f !== undefined && FORMATS.includes(f) ? f : 'raw';
}

export const beInsertChip = defineTool({
  name: 'be-insert-chip',
  title: 'Insert chip',
  description:
    'Insert chip://<id> or file:///abs after line N of to (path:N); no from: lists chips.',
  grammar: 'from: "chip://<id>" or "file:///abs/path"; to: "path:N" inserts after line N, "path:0" at the top.',
  example: { from: 'chip://a1b2c3', to: 'src/main.go:10' },
  unlistedArgs: ['format', 'preview', 'tool', 'path', 'text'],
  inputSchema: () => ({
    from: z.string().optional(),
    to: z.string().optional(),
    format: z.enum(FORMATS).optional(),
    preview: z.boolean().optional(),
    tool: z.string().optional(),
    path: z.string().optional(),
    text: z.string().optional(),
  }),
  readOnlyCall: (args) => args.from === undefined && args.to === undefined, // the listing
  annotations: { title: 'Insert chip', readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  render: renderInsertChip,
  async handler(args, { services }) {
    return asRecord(await services.edits.insertChip({ ...args, format: args.format ?? defaultChipFormat(services) }));
  },
});
