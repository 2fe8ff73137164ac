import { z } from 'zod';
import { lineQueryTool } from './lineQueryTool';

export const beTagRange = lineQueryTool({
  name: 'be-tag-range', title: 'Tag range',
  description: 'Range and name of the markup tag pair around line.',
  example: { file: 'src/App.vue', line: 12 },
  // Small data: kept as structuredContent, described for clients that validate it.
  outputSchema: () => ({ start: z.number().int(), end: z.number().int(), kind: z.string(), tag: z.string() }),
  run: (edits, args) => edits.tagRange(args),
});
