import { z } from 'zod';
import { renderEditDiff } from '../render/index';
import { asRecord, brief, defineTool, format, GRAMMAR_RANGE, preview } from './common';

export const beReplace = defineTool({
  name: 'be-replace',
  title: 'Replace lines',
  description:
    'Replace lines S-E with content (none: delete); old (expected text) or viewed_code_id refuses a stale edit.',
  grammar: GRAMMAR_RANGE,
  example: { file: 'src/main.go:5-15', content: 'new lines\n' },
  aliases: { old_text: 'old' },
  unlistedArgs: ['format', 'brief', 'preview'],
  inputSchema: {
    file: z.string(),
    content: z.string().optional(),
    old: z.string().optional(),
    viewed_code_id: z.string().optional(),
    format,
    preview,
    brief,
  },
  annotations: { title: 'Replace lines', readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  render: renderEditDiff,
  async handler(args, { services, reply }) {
    // A text reply shows a unified diff (a few lines of context); json keeps upstream's default listing.
    return asRecord(await services.edits.replace({ ...args, format: args.format ?? (reply === 'json' ? undefined : 'diff') }));
  },
});
