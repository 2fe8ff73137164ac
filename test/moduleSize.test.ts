/** The source stays in modules a reader can hold: no file under src/ over 600 lines (the team's limit). */
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';

const DIR = path.join(__dirname, '../src');
const MAX_LINES = 600;

function sources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return sources(p);
    return e.isFile() && e.name.endsWith('.ts') ? [p] : [];
  });
}

describe('module size', () => {
  it(`no source file in src/ has more than ${MAX_LINES} lines`, () => {
    const files = sources(DIR);
    assert.ok(files.length > 100, `expected the sources under ${DIR}`);
    const over = files
      .map((f) => ({ file: path.relative(DIR, f), lines: fs.readFileSync(f, 'utf8').split('\n').length - 1 }))
      .filter((f) => f.lines > MAX_LINES);
    assert.deepEqual(over, [], `split these by concern: ${over.map((f) => `${f.file} (${f.lines} lines)`).join(', ')}`);
  });
});
