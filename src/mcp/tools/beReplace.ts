import { z } from 'zod';
import { asRecord, brief, defineTool, format, GRAMMAR_RANGE, preview } from './common';

export const beReplace = defineTool({
  name: 'be-replace',
  title: 'Replace lines',
  description:
    'Replace lines S..E with content. file: "path:N" or "path:S-E" (1-based, inclusive). ' +
    'Omit content to delete the range. old, if given, must equal the current lines. viewed_code_id from be-read refuses a stale edit.',
  grammar: GRAMMAR_RANGE,
  example: { file: 'src/main.go:5-15', content: 'new lines\n' },
  aliases: { old_text: 'old' },
  inputSchema: {
    file: z.string().describe('path with line range: a.go:10 or a.go:5-15'),
    content: z.string().optional().describe('new text for the range; omit to delete it'),
    old: z.string().optional().describe('expected current text of the range'),
    viewed_code_id: z.string().optional().describe('id from be-read'),
    format,
    preview,
    brief,
  },
  annotations: { title: 'Replace lines', readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  async handler(args, { services }) {
    return asRecord(await services.edits.replace(args));
  },
});
