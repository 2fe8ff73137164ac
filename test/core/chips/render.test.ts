import * as assert from 'node:assert/strict';
import { commentSyntax, renderChip } from '../../../src/core/chips/render';
import { defaultChipDir } from '../../../src/core/files/statePaths';
import type { ChipRecord } from '../../../src/core/chips/types';

const base = (over: Partial<ChipRecord>): ChipRecord => ({
  id: 'a3f7b2',
  tool: 'be-delete',
  args: {},
  created_at: 1767323045,
  seq: 1,
  created_ms: 1767323045000,
  size: 0,
  preview: '',
  ...over,
});

describe('renderChip', () => {
  const deleted = base({ args: { _content: 'func demo() {\r\n\t"ü" <b>\n}' }, file: '/w/a.go', range: { start: 4, end: 6 } });

  it('raw gives the original text byte for byte', () => {
    assert.equal(renderChip(deleted, 'raw', 'go'), 'func demo() {\r\n\t"ü" <b>\n}');
    const failed = base({ tool: 'be-write', args: { file: '/w/b.py', content: 'x = 1\n' }, err_msg: 'boom' });
    assert.equal(renderChip(failed, 'raw', 'python'), 'x = 1\n');
  });

  it('raw falls back to the pretty-printed arguments when there is no text', () => {
    const failed = base({ tool: 'be-replace', args: { file: '/w/a.go:1-2', old: 'a', new: 'b' }, err_msg: 'mismatch' });
    assert.equal(renderChip(failed, 'raw', 'go'), JSON.stringify(failed.args, null, 2));
  });

  it('annotated puts one header line in the language\'s comment syntax before the text', () => {
    const cases: [string, string, string][] = [
      ['go', '// ', ''],
      ['typescript', '// ', ''],
      ['rust', '// ', ''],
      ['python', '# ', ''],
      ['shellscript', '# ', ''],
      ['yaml', '# ', ''],
      ['dockerfile', '# ', ''],
      ['sql', '-- ', ''],
      ['lua', '-- ', ''],
      ['haskell', '-- ', ''],
      ['html', '<!-- ', ' -->'],
      ['markdown', '<!-- ', ' -->'],
      ['vue', '<!-- ', ' -->'],
      ['css', '/* ', ' */'],
    ];
    for (const [lang, open, close] of cases) {
      const out = renderChip(deleted, 'annotated', lang);
      const [header, ...rest] = out.split('\n');
      assert.ok(header!.startsWith(open) && header!.endsWith(close), `${lang}: ${header}`);
      assert.match(header!, /Chip a3f7b2 from tool "be-delete" at 2026-01-02T03:04:05Z \(\/w\/a\.go:4-6\)/);
      assert.equal(rest.join('\n'), 'func demo() {\r\n\t"ü" <b>\n}', lang);
    }
  });

  it('json keeps upstream\'s header and dump, in the target\'s comment syntax', () => {
    assert.equal(
      renderChip(deleted, 'json', 'go'),
      `// Chip a3f7b2 from tool "be-delete"\n// Original arguments:\n${JSON.stringify(deleted.args, null, 2)}`,
    );
    assert.ok(renderChip(deleted, 'json', 'python').startsWith('# Chip a3f7b2 from tool "be-delete"\n# Original arguments:\n{'));
    assert.ok(renderChip(deleted, 'json', 'html').startsWith('<!-- Chip a3f7b2 from tool "be-delete" -->\n<!-- Original arguments: -->\n'));
  });

  it('does not let a header close its comment early', () => {
    const chip = base({ tool: 'evil */ x', args: { _content: 'a' } });
    const header = renderChip(chip, 'annotated', 'css').split('\n')[0]!;
    assert.equal(header.indexOf('*/'), header.length - 2);
  });

  it('commentSyntax defaults to // for unknown languages', () => {
    assert.deepEqual(commentSyntax('brainfuck'), { open: '// ', close: '' });
    assert.deepEqual(commentSyntax('Python'), { open: '# ', close: '' });
  });
});

describe('defaultChipDir', () => {
  it('follows upstream: LOCALAPPDATA on Windows, XDG_CACHE_HOME or ~/.cache elsewhere', () => {
    assert.equal(
      defaultChipDir({ LOCALAPPDATA: 'C:\\Users\\me\\AppData\\Local' }, 'win32', 'C:\\Users\\me'),
      'C:\\Users\\me\\AppData\\Local\\better-edit-tools-mcp\\chips',
    );
    assert.equal(defaultChipDir({ XDG_CACHE_HOME: '/xdg' }, 'linux', '/home/me'), '/xdg/better-edit-tools-mcp/chips');
    assert.equal(defaultChipDir({ XDG_CACHE_HOME: 'relative' }, 'linux', '/home/me'), '/home/me/.cache/better-edit-tools-mcp/chips');
    assert.equal(defaultChipDir({}, 'darwin', '/Users/me'), '/Users/me/.cache/better-edit-tools-mcp/chips');
    assert.equal(defaultChipDir({}, 'linux', ''), '/tmp/better-edit-tools-mcp-chips');
  });
});
