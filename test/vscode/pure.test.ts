// The extension's pure helpers (no vscode import): text affixes for minimal WorkspaceEdits, client configs, chip lists.
import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { commonAffixes } from '../../src/vscode/commonAffixes';
import { claudeCodeCommand, mcpServersJson, shellQuote, stdioLaunch } from '../../src/vscode/clientConfig';
import { matchesFilter, newestFirst } from '../../src/vscode/chipSource';
import { chipPreviewName, chipTargetPath } from '../../src/vscode/chipPreviewName';
import { relativeTime } from '../../src/vscode/relativeTime';
import type { ChipRecord } from '../../src/core/chips/types';

function applyAffixEdit(a: string, b: string): string {
  const { prefix, suffix } = commonAffixes(a, b);
  return a.slice(0, prefix) + b.slice(prefix, b.length - suffix) + a.slice(a.length - suffix);
}

describe('vscode/commonAffixes', () => {
  it('replacing the middle of a by the middle of b gives b (property)', () => {
    fc.assert(fc.property(fc.string({ unit: 'grapheme' }), fc.string({ unit: 'grapheme' }), (a, b) => applyAffixEdit(a, b) === b));
    const eolText = fc.array(fc.constantFrom('a', 'b', '\r\n', '\n', '\r', '😀'), { maxLength: 30 }).map((x) => x.join(''));
    fc.assert(fc.property(eolText, eolText, (a, b) => applyAffixEdit(a, b) === b));
  });

  it('never splits a CRLF or a surrogate pair (property)', () => {
    const text = fc.array(fc.constantFrom('x', '\r\n', '😀', 'y'), { maxLength: 20 }).map((x) => x.join(''));
    fc.assert(fc.property(text, text, (a, b) => {
      const { prefix, suffix } = commonAffixes(a, b);
      const cuts = [prefix, a.length - suffix];
      return cuts.every((i) => !(a[i - 1] === '\r' && a[i] === '\n') && !(a.charCodeAt(i) >= 0xdc00 && a.charCodeAt(i) <= 0xdfff));
    }));
  });

  it('keeps an unchanged head and tail out of the edit', () => {
    assert.deepEqual(commonAffixes('a\nb\nc\n', 'a\nX\nc\n'), { prefix: 2, suffix: 3 });
    assert.deepEqual(commonAffixes('same', 'same'), { prefix: 4, suffix: 0 });
  });
});

describe('vscode/clientConfig', () => {
  const launch = stdioLaunch('/ext/dist/cli.js', ['/w/a', "/w/it's b"]);
  it('passes every root as --root', () => {
    assert.deepEqual(launch, { command: 'node', args: ['/ext/dist/cli.js', '--root', '/w/a', '--root', "/w/it's b"] });
  });
  it('Claude Code: options before the name, the command after --, shell-quoted', () => {
    assert.equal(claudeCodeCommand(launch),
      `claude mcp add --transport stdio better-edit-tools -- node /ext/dist/cli.js --root /w/a --root '/w/it'\\''s b'`);
    assert.equal(shellQuote('a b'), "'a b'");
  });
  it('adds --chip-dir so the client\'s chips show in the VS Code view', () => {
    assert.deepEqual(stdioLaunch('/c.js', ['/w'], { chipDir: '/g/chips' }).args, ['/c.js', '--root', '/w', '--chip-dir', '/g/chips']);
  });
  it('Cursor / Claude Desktop: mcpServers JSON', () => {
    assert.deepEqual(JSON.parse(mcpServersJson(launch)), { mcpServers: { 'better-edit-tools': { command: 'node', args: launch.args } } });
  });
});

describe('vscode/chip lists', () => {
  const chip = (seq: number, extra: Partial<ChipRecord> = {}): ChipRecord => ({
    id: `c${seq}`.padEnd(6, '0'), tool: 'be-delete', args: { _content: `text ${seq}` }, created_at: seq, seq,
    created_ms: seq * 1000, size: 6, preview: `text ${seq}`, ...extra,
  });
  it('newest first by seq', () => {
    assert.deepEqual(newestFirst([chip(1), chip(3), chip(2)]).map((c) => c.seq), [3, 2, 1]);
  });
  it('filters on preview, tool, file, error and text, case-insensitively', () => {
    const c = chip(1, { file: '/w/Main.go', err_msg: 'Range 9-12 out of bounds' });
    for (const f of ['main.GO', 'be-del', 'out of', 'TEXT 1', '']) assert.ok(matchesFilter(c, f, 'body'), f);
    assert.ok(matchesFilter(c, 'BODY', 'the body'));
    assert.ok(!matchesFilter(c, 'nothing-like-this', 'body'));
  });
  it('relative time', () => {
    assert.equal(relativeTime(0, 10_000), 'just now');
    assert.equal(relativeTime(0, 5 * 60_000), '5 min ago');
    assert.equal(relativeTime(0, 3 * 3600_000), '3 h ago');
    assert.equal(relativeTime(0, 4 * 86400_000), '4 d ago');
  });
});

describe('vscode/chip preview names (the language of the preview document)', () => {
  const chip = (args: Record<string, unknown>, file?: string) => ({ id: 'a1b2c3', args, file });
  it('text meant for a file takes its name, whether the call gave the path absolute or relative', () => {
    assert.equal(chipPreviewName(chip({ _content: 'x' }, '/ws/src/greet.ts'), true), 'greet.ts');
    assert.equal(chipPreviewName(chip({ file: 'src/greet.ts:3-5', content: 'export const x = 1;' }), true), 'greet.ts');
    assert.equal(chipPreviewName(chip({ file: 'src/math.py:ALL', content: 'def f(): pass' }), true), 'math.py');
    assert.equal(chipPreviewName(chip({ file: 'Makefile:2', content: 'all:' }), true), 'Makefile');
    assert.equal(chipPreviewName(chip({ from: 'chip://ffffff', to: 'file:///ws/lib/a.go:10', content: 'x' }), true), 'a.go');
  });
  it('text with no known file is plain text, never JSON; arguments without text are JSON', () => {
    assert.equal(chipPreviewName(chip({ content: 'function f() {' }), true), 'chip-a1b2c3.txt');
    assert.equal(chipPreviewName(chip({ file: '', content: 'x' }), true), 'chip-a1b2c3.txt');
    assert.equal(chipPreviewName(chip({ file: 'src/greet.ts:900-905', range: 'x' }), false), 'chip-a1b2c3.json');
  });
  it('chipTargetPath strips the range and the file:// prefix', () => {
    assert.equal(chipTargetPath(chip({ file: 'src/a.ts:1-2' })), 'src/a.ts');
    assert.equal(chipTargetPath(chip({ file: 'file:///ws/a.ts:ALL' })), '/ws/a.ts');
    assert.equal(chipTargetPath(chip({}, '/ws/b.ts')), '/ws/b.ts');
    assert.equal(chipTargetPath(chip({})), undefined);
  });
});
