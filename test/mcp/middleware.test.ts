/** Pure parts of the call middleware: chip arguments of oversized calls, and argument error texts. */
import assert from 'node:assert/strict';
import { z } from 'zod';
import { argsForChip, describeZodFailure, OVERSIZED_CHIP_HEAD_BYTES, toolListing } from '../../src/mcp/server';
import { toolTable } from '../../src/mcp/tools/index';
import { zhDescriptions } from '../../src/mcp/i18n';

describe('mcp middleware helpers', () => {
  it('argsForChip keeps arguments within the limit whole and truncates oversized ones to a head plus size', () => {
    const small = { file: 'a.txt:1', content: 'x'.repeat(100) };
    assert.deepEqual(argsForChip(small, 1000), small);
    const big = { file: 'a.txt:1', content: '日'.repeat(33_334) }; // 100 002 UTF-8 bytes; 16 KiB is not a multiple of 3
    const out = argsForChip(big, 60_000) as Record<string, any>;
    assert.equal(out.file, 'a.txt:1');
    assert.ok(Buffer.byteLength(out.content) <= OVERSIZED_CHIP_HEAD_BYTES);
    assert.ok(big.content.startsWith(out.content), 'the head is a prefix (no split character)');
    assert.deepEqual(out._truncated, { content: 100_002 });
    assert.equal(Buffer.byteLength(out.content), OVERSIZED_CHIP_HEAD_BYTES - 1);
    // metadata (anything but content) is bounded: 50 items, strings cut to a 200-character head
    const nested = argsForChip({ edits: new Array(5000).fill({ oldText: 'abc', newText: 'def' }) }, 10_000) as Record<string, any>;
    assert.equal(nested.edits.length, 51);
    assert.equal(nested.edits[50], '… (4950 more items)');
    const longPath = argsForChip({ file: 'p/'.repeat(10_000), content: 'c'.repeat(5000) }, 1_000_000) as Record<string, any>;
    assert.equal(longPath.file, `${'p/'.repeat(100)}… (19800 more chars)`);
    assert.equal(longPath.content.length, 5000, 'content is kept whole');
    assert.equal(argsForChip('plain', 10), 'plain');
  });

  it('describeZodFailure names each bad argument, unknown ones, the grammar and an example', () => {
    const replace = toolTable.find((t) => t.name === 'be-replace')!;
    const args = { file: 7, conten: 'x', format: 'html' };
    const parsed = z.object(replace.inputSchema).safeParse(args);
    assert.equal(parsed.success, false);
    const text = describeZodFailure(replace, args, parsed.error!);
    assert.match(text, /^be-replace: invalid arguments: /);
    assert.match(text, /file: Invalid input: expected string, received number/);
    assert.match(text, /format: Invalid option: expected one of "plain"\|"diff"/);
    assert.match(text, /Unknown argument\(s\): conten; accepted: file, content, old/);
    assert.match(text, /Expected file: "path:N" \(one line\), "path:S-E" \(lines S\.\.E\), or "path:ALL"; 1-based, inclusive\./);
    assert.match(text, /Example: \{"file":"src\/main.go:5-15","content":"new lines\\n"\}/);
  });

  it('every built-in tool has a grammar, an example that passes its own schema, a zh description and a JSON schema', () => {
    for (const t of toolTable.filter((m) => m.name in zhDescriptions || m.name.startsWith('be-'))) {
      if (!(t.name in zhDescriptions) && !t.descriptionZh) assert.fail(`${t.name} has no zh description`);
      if (t.example) assert.ok(z.object(t.inputSchema).safeParse(t.example).success, `${t.name} example is valid`);
      const listing = toolListing(t, t.name, 'en');
      assert.equal(listing.inputSchema.type, 'object');
      assert.equal((listing.inputSchema as Record<string, unknown>).$schema, undefined);
    }
    for (const name of Object.keys(zhDescriptions)) assert.ok(toolTable.some((t) => t.name === name), `${name} exists`);
  });

  it('descriptions state the line grammar exactly', () => {
    const d = (n: string) => toolTable.find((t) => t.name === n)!.description;
    // stated once, in be-read; the others name the form they take
    assert.match(d('be-read'), /path, path:N, path:S-E or path:ALL \(1-based, inclusive; all tools\)/);
    assert.equal(toolTable.filter((t) => /1-based/.test(t.description)).length, 1);
    assert.match(d('be-replace'), /lines S-E/);
    assert.match(d('be-insert'), /after line N \(path:N; path:0 = top\)/);
    assert.match(d('be-delete'), /Delete lines.*chip:\/\//);
    assert.match(d('be-insert-chip'), /after line N of to \(path:N\)/);
  });
});
