import { z } from 'zod';
import { asRecord, defineTool, GRAMMAR_PLAIN, preview } from './common';

export const beWrite = defineTool({
  name: 'be-write',
  title: 'Write file',
  description:
    'Create or overwrite a whole file with content, byte for byte; missing parent directories are created. file: a plain path.',
  grammar: GRAMMAR_PLAIN,
  example: { file: 'src/new.go', content: 'package main\n' },
  inputSchema: {
    file: z.string().describe('path of the file to write'),
    content: z.string().describe('the whole file content'),
    preview,
    brief: z.boolean().optional().describe('minimal response'),
  },
  annotations: { title: 'Write file', readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  async handler(args, { services }) {
    return asRecord(await services.edits.write(args));
  },
});
