import { lineQueryTool } from './lineQueryTool';

export const beFuncRange = lineQueryTool({
  name: 'be-func-range', title: 'Function range',
  description: 'Start and end of the function or block around line.',
  example: { file: 'src/main.go', line: 42 },
  run: (edits, args) => edits.funcRange(args),
});
