import { asRecord, brief, defineTool, format, GRAMMAR_RANGE, preview } from './common';
import { z } from 'zod';
import { renderEditDiff } from '../render/index';

export const beDelete = defineTool({
  name: 'be-delete',
  title: 'Delete lines',
  description:
    'Delete lines; their text is kept as chip://<id>.',
  grammar: GRAMMAR_RANGE,
  example: { file: 'src/main.go:5-15' },
  unlistedArgs: ['format', 'brief', 'preview'],
  inputSchema: {
    file: z.string(),
    format,
    preview,
    brief,
  },
  annotations: { title: 'Delete lines', readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  render: renderEditDiff,
  async handler(args, { services, reply }) {
    // A text reply shows a unified diff (a few lines of context); json keeps upstream's default listing.
    return asRecord(await services.edits.delete({ ...args, format: args.format ?? (reply === 'json' ? undefined : 'diff') }));
  },
});
