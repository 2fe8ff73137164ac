/** The tool catalog is sent to the model on every turn: it stays under 1,000 tokens (o200k_base), as the bench counts it. */
import assert from 'node:assert/strict';
import { getEncoding } from 'js-tiktoken';
import { toolTable } from '../../src/mcp/tools/index';
import { toolListing } from '../../src/mcp/server';

const enc = getEncoding('o200k_base');
const catalogTokens = (noPrefix: boolean) =>
  enc.encode(
    JSON.stringify(
      toolTable.map((t) => {
        const l = toolListing(t, noPrefix ? t.name.replace(/^be-/, '') : t.name, 'en');
        return { name: l.name, description: l.description, inputSchema: l.inputSchema };
      }),
    ),
  ).length;

describe('mcp catalog size', () => {
  it('every tool together (name, description, inputSchema) is at most 1,000 tokens, with and without the prefix', () => {
    for (const noPrefix of [false, true]) {
      const n = catalogTokens(noPrefix);
      assert.ok(n <= 1000, `catalog is ${n} tokens (noPrefix ${noPrefix})`);
    }
  });

  it('unlisted arguments are still accepted by the schema the call is checked with', () => {
    for (const t of toolTable) {
      for (const k of t.unlistedArgs ?? []) assert.ok(k in t.inputSchema, `${t.name}: unlisted ${k} is not an argument`);
      const listed = Object.keys((toolListing(t, t.name, 'en').inputSchema.properties ?? {}) as object);
      for (const k of t.unlistedArgs ?? []) assert.ok(!listed.includes(k), `${t.name}: ${k} is listed`);
    }
  });
});
