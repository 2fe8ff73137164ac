// Creates the demo workspace `npm start` opens and the e2e tests edit: a few small source files.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export function createDemoWorkspace(dir) {
  const files = {
    'README.md': [
      '# Demo workspace',
      '',
      'No agent signed in? Press F1 and run **Better Edit: Run Demo**: a scripted agent session over the real MCP server',
      '(a failed large call and a deletion become chips, one is inserted at the cursor, the Token Window fills).',
      '',
      'With an agent: ask it to edit `src/greet.ts`, or run **Better Edit: Recover Chip…** after a `be-delete`.',
      '',
    ].join('\n'),
    'src/greet.ts': [
      'export function greet(name: string): string {',
      '  return `Hello, ${name}!`;',
      '}',
      '',
      'export function farewell(name: string): string {',
      '  const words = ["Goodbye", name];',
      '  return words.join(", ") + ".";',
      '}',
      '',
      'export const VERSION = "1.0.0";',
      '',
    ].join('\n'),
    'src/math.py': [
      'def add(a, b):',
      '    return a + b',
      '',
      '',
      'def mul(a, b):',
      '    result = 0',
      '    for _ in range(b):',
      '        result = add(result, a)',
      '    return result',
      '',
    ].join('\n'),
    'src/notes.txt': Array.from({ length: 20 }, (_, i) => `line ${i + 1}`).join('\n') + '\n',
    'src/scratch.txt': Array.from({ length: 10 }, (_, i) => `scratch ${i + 1}`).join('\n') + '\n',
  };
  for (const [rel, text] of Object.entries(files)) {
    const file = path.join(dir, rel);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, text);
  }
  return dir;
}

if (import.meta.url === `file://${process.argv[1]}`) createDemoWorkspace(process.argv[2]);
