/** The built-in-tools peer of bench:context (bench/context/builtin.ts): ripgrep's output, cat -n windows, exact edits. */
import assert from 'node:assert/strict';
import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { builtinServer } from '../../bench/context/builtin';

const textOf = (r: { content?: { type: string; text?: string }[] }) => (r.content ?? []).map((p) => p.text ?? '').join('');

describe('bench/context built-in tools (the peer without MCP)', () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'bench-builtin-'));
    mkdirSync(join(root, 'src'));
    writeFileSync(join(root, 'src/a.rb'), 'def parse\n  raise "bad Token"\nend\n');
    writeFileSync(join(root, 'src/b.rb'), Array.from({ length: 300 }, (_, i) => `line ${i + 1}${i === 199 ? ' token' : ''}`).join('\n') + '\n');
    writeFileSync(join(root, 'README.md'), 'token\n');
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it("Grep: ripgrep's path:line:text and path:count, glob and path filters, case as asked; every reply is metered", async () => {
    const s = builtinServer(root);
    const { result: content } = await s.call('Grep', { pattern: 'token', glob: '**/*.rb', case_insensitive: true }, 'grep');
    assert.equal(textOf(content), 'src/a.rb:2:  raise "bad Token"\nsrc/b.rb:200:line 200 token');
    const { result: count } = await s.call('Grep', { pattern: 'token', output_mode: 'count' }, 'count');
    assert.equal(textOf(count), 'README.md:1\nsrc/b.rb:1');
    const { result: inFile } = await s.call('Grep', { pattern: 'line 1\\d\\b', path: 'src/b.rb', head_limit: 3 }, 'limited');
    assert.equal(textOf(inFile), 'src/b.rb:10:line 10\nsrc/b.rb:11:line 11\nsrc/b.rb:12:line 12\n[7 more matching lines not shown]');
    const calls = s.take();
    assert.equal(calls.length, 3);
    assert.ok(calls.every((c) => c.replyTokens > 0) && s.catalogTokens > 100);
  });

  it('Read: cat -n lines from offset, limit lines; Edit: an exact string found once, refused otherwise', async () => {
    const s = builtinServer(root);
    const { result } = await s.call('Read', { file_path: 'src/b.rb', offset: 199, limit: 2 }, 'read');
    assert.equal(textOf(result), '   199\tline 199\n   200\tline 200 token');
    const { result: twice } = await s.call('Edit', { file_path: 'src/b.rb', old_string: 'line 1', new_string: 'x' }, 'edit');
    assert.equal(twice.isError, true);
    assert.match(textOf(twice), /found \d+ times/);
    const { result: once } = await s.call('Edit', { file_path: 'src/a.rb', old_string: '  raise "bad Token"', new_string: '  raise "bad token"' }, 'edit');
    assert.equal(once.isError, undefined);
    assert.match(textOf(once), /src\/a\.rb has been updated/);
    assert.match(textOf(once), / {5}2\t {2}raise "bad token"$/);
    assert.equal(readFileSync(join(root, 'src/a.rb'), 'utf8'), 'def parse\n  raise "bad token"\nend\n');
  });
});
