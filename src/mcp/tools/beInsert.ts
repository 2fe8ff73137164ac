import { z } from 'zod';
import { renderEditDiff } from '../render/index';
import { asRecord, brief, defineTool, format, GRAMMAR_INSERT, preview } from './common';

export const beInsert = defineTool({
  name: 'be-insert',
  title: 'Insert lines',
  description:
    'Insert content after line N (path:N; path:0 = top).',
  grammar: GRAMMAR_INSERT,
  example: { file: 'src/main.go:10', content: 'inserted line\n' },
  unlistedArgs: ['format', 'brief', 'preview'],
  inputSchema: {
    file: z.string(),
    content: z.string(),
    format,
    preview,
    brief,
  },
  annotations: { title: 'Insert lines', readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  render: renderEditDiff,
  async handler(args, { services, reply }) {
    // A text reply shows a unified diff (a few lines of context); json keeps upstream's default listing.
    return asRecord(await services.edits.insert({ ...args, format: args.format ?? (reply === 'json' ? undefined : 'diff') }));
  },
});
