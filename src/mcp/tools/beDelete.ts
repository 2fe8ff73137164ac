import { z } from 'zod';
import { GRAMMAR_RANGE } from './common';
import { lineEditTool } from './lineEditTool';

export const beDelete = lineEditTool({
  name: 'be-delete',
  title: 'Delete lines',
  description:
    'Delete lines; their text is kept as chip://<id>.',
  grammar: GRAMMAR_RANGE,
  example: { file: 'src/main.go:5-15' },
  unlistedArgs: ['format', 'brief', 'preview'],
  inputSchema: () => ({ file: z.string() }),
  destructive: true,
  run: (edits, args) => edits.delete(args),
});
