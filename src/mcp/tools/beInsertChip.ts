import { z } from 'zod';
import type { ChipFormat } from '../../core/chips/types';
import type { ServerDeps } from '../deps';
import { asRecord, defineTool } from './common';

const FORMATS = ['raw', 'annotated', 'json'] as const satisfies readonly ChipFormat[];

/**
 * The ServerDeps entry a host sets to `() => ChipFormat`: the format of a call that names none (VS Code: the
 * `betterEditTools.chips.replayFormat` setting, read at each call so a change applies at once). Default raw.
 */
export const CHIP_FORMAT_DEP = 'chipFormat';

export function defaultChipFormat(services: ServerDeps): ChipFormat {
  const get = services[CHIP_FORMAT_DEP];
  const f: unknown = typeof get === 'function' ? get() : undefined;
  return FORMATS.includes(f as ChipFormat) ? (f as ChipFormat) : 'raw';
}

export const beInsertChip = defineTool({
  name: 'be-insert-chip',
  title: 'Insert chip',
  description:
    'Insert a chip\'s original text (chip://<id>) or a file\'s text (file:///abs/path, inside the roots) after a line: ' +
    'to: "path:N" (after line N, "path:0" = top). Omit both to list chips; narrow the list with tool, path and text (newest first).',
  grammar: 'from: "chip://<id>" or "file:///abs/path"; to: "path:N" inserts after line N, "path:0" at the top.',
  example: { from: 'chip://a1b2c3', to: 'src/main.go:10' },
  inputSchema: {
    from: z.string().optional().describe('chip://<id> or file:///abs/path; omit to list chips'),
    to: z.string().optional().describe('target path:N (insert after line N; :0 = top)'),
    format: z.enum(FORMATS).optional().describe("raw: the original text (default: the host's setting, else raw)"),
    preview: z.boolean().optional().describe('compute the result without writing'),
    tool: z.string().optional().describe('listing: only chips made by this tool (e.g. be-delete)'),
    path: z.string().optional().describe('listing: only chips from a file whose path contains this'),
    text: z.string().optional().describe('listing: only chips whose text contains this (case-insensitive)'),
  },
  readOnlyCall: (args) => args.from === undefined && args.to === undefined, // the listing
  annotations: { title: 'Insert chip', readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  async handler(args, { services }) {
    return asRecord(await services.edits.insertChip({ ...args, format: args.format ?? defaultChipFormat(services) }));
  },
});
