import { z } from 'zod';
import { GRAMMAR_INSERT } from './common';
import { lineEditTool } from './lineEditTool';

export const beInsert = lineEditTool({
  name: 'be-insert',
  title: 'Insert lines',
  description:
    'Insert content after line N (path:N; path:0 = top).',
  grammar: GRAMMAR_INSERT,
  example: { file: 'src/main.go:10', content: 'inserted line\n' },
  unlistedArgs: ['format', 'brief', 'preview'],
  inputSchema: () => ({ file: z.string(), content: z.string() }),
  destructive: false,
  run: (edits, args) => edits.insert(args),
});
