import { z } from 'zod';
import { renderWrite } from '../render/index';
import { asRecord, defineTool, GRAMMAR_PLAIN } from './common';

export const beWrite = defineTool({
  name: 'be-write',
  title: 'Write file',
  description:
    'Create or overwrite a file with content.',
  grammar: GRAMMAR_PLAIN,
  example: { file: 'src/new.go', content: 'package main\n' },
  unlistedArgs: ['brief', 'preview'],
  inputSchema: () => ({
    file: z.string(),
    content: z.string(),
    preview: z.boolean().optional(),
    brief: z.boolean().optional(),
  }),
  annotations: { title: 'Write file', readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  render: renderWrite,
  async handler(args, { services }) {
    return asRecord(await services.edits.write(args));
  },
});
