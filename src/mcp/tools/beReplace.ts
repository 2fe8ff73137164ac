import { z } from 'zod';
import { GRAMMAR_RANGE } from './common';
import { lineEditTool } from './lineEditTool';

export const beReplace = lineEditTool({
  name: 'be-replace',
  title: 'Replace lines',
  description:
    'Replace lines S-E with content (none: delete); old (expected text) or viewed_code_id refuses a stale edit.',
  grammar: GRAMMAR_RANGE,
  example: { file: 'src/main.go:5-15', content: 'new lines\n' },
  aliases: { old_text: 'old' },
  unlistedArgs: ['format', 'brief', 'preview'],
  inputSchema: () => ({
    file: z.string(),
    content: z.string().optional(),
    old: z.string().optional(),
    viewed_code_id: z.string().optional(),
  }),
  destructive: true,
  run: (edits, args) => edits.replace(args),
});
