import { z } from 'zod';
import { asRecord, defineTool } from './common';

export const beInsertChip = defineTool({
  name: 'be-insert-chip',
  title: 'Insert chip',
  description:
    'Insert a chip\'s original text (chip://<id>) or a file\'s text (file:///abs/path, inside the roots) after a line: ' +
    'to: "path:N" (after line N, "path:0" = top). Omit both to list chips.',
  grammar: 'from: "chip://<id>" or "file:///abs/path"; to: "path:N" inserts after line N, "path:0" at the top.',
  example: { from: 'chip://a1b2c3', to: 'src/main.go:10' },
  inputSchema: {
    from: z.string().optional().describe('chip://<id> or file:///abs/path; omit to list chips'),
    to: z.string().optional().describe('target path:N (insert after line N; :0 = top)'),
    format: z.enum(['raw', 'annotated', 'json']).optional().describe('raw (default): the original text'),
    preview: z.boolean().optional().describe('compute the result without writing'),
  },
  readOnlyCall: (args) => args.from === undefined && args.to === undefined, // the listing
  annotations: { title: 'Insert chip', readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  async handler(args, { services }) {
    return asRecord(await services.edits.insertChip(args));
  },
});
