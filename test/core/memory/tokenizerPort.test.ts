/**
 * Ports, not globals: below the composition roots nothing picks the shared tokenizer itself; ChatMemory, the
 * context service and the tools get theirs passed in (the lint rule in eslint.config.mjs says the same to editors).
 */
import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';

const SRC = path.resolve(__dirname, '../../../src');
/** The only files under src/core and src/mcp allowed to name getTokenizer: its definition and the MCP composition root. */
const ALLOWED = new Set(['core/memory/node/tokenizer.ts', 'mcp/services.ts']);

async function tsFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await fs.readdir(dir, { withFileTypes: true })) {
    const abs = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await tsFiles(abs)));
    else if (entry.isFile() && entry.name.endsWith('.ts')) out.push(abs);
  }
  return out;
}

describe('tokenizer port', () => {
  it('getTokenizer is imported or called only by the composition roots, never in src/core or src/mcp', async () => {
    const offenders: string[] = [];
    for (const layer of ['core', 'mcp']) {
      for (const abs of await tsFiles(path.join(SRC, layer))) {
        const rel = path.relative(SRC, abs).split(path.sep).join('/');
        if (ALLOWED.has(rel)) continue;
        const text = await fs.readFile(abs, 'utf8');
        text.split('\n').forEach((line, i) => {
          if (/\bgetTokenizer\s*\(/.test(line) || /^\s*import\b.*\bgetTokenizer\b/.test(line)) offenders.push(`src/${rel}:${i + 1}: ${line.trim()}`);
        });
      }
    }
    assert.deepEqual(offenders, [], `take a Tokenizer (or tokenizerFor) as a dependency instead:\n${offenders.join('\n')}`);
  });
});
