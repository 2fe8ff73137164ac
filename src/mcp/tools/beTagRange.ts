import { lineQueryTool } from './lineQueryTool';

export const beTagRange = lineQueryTool({
  name: 'be-tag-range', title: 'Tag range',
  description: 'Start, end and tag of the markup tag pair around line.',
  example: { file: 'src/App.vue', line: 12 },
  run: (edits, args) => edits.tagRange(args),
});
