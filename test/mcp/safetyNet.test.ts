/**
 * The safety net through a real SDK client: removed text survives any number of failed calls, failed reads
 * save nothing, error texts stay small whatever the arguments, content that is not Unicode is refused, and the
 * stdio server starts past a FIFO in its chip or memory directory.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { workspaceKey } from '../../src/core/files/workspaceKey';
import { buildCli, call, callError, callProtocolError, chipIdIn, memoryClient, stdioClient, tmpWorkspace, type Workspace } from './helpers';

const posix = process.platform !== 'win32';

describe('mcp safety net (in-process SDK client)', function () {
  this.timeout(120_000);
  let ws: Workspace;
  let c: Awaited<ReturnType<typeof memoryClient>>;

  beforeEach(async () => {
    ws = await tmpWorkspace();
    await ws.write('a.txt', 'one\ntwo\nthree\n');
    c = await memoryClient(ws);
  });
  afterEach(async () => {
    await c.close();
    await ws.dispose();
  });

  it('the chip of deleted text survives 120 failed calls of every kind and can be inserted back', async () => {
    const del = await call(c.client, 'be-delete', { file: 'a.txt:2' });
    const longPath = `no/such/dir/${'x'.repeat(80)}.txt`;
    const failing: [string, Record<string, unknown>][] = [
      ['be-read', { file: `${longPath}:1` }],
      ['be-func-range', { file: longPath, line: 3 }],
      ['be-tag-range', { file: longPath, line: 3 }],
      ['be-balance', { file: longPath }],
      ['be-replace', { file: 'a.txt:40-50', content: 'replacement that does not fit anywhere\n' }],
      ['be-insert', { file: 'a.txt:99', content: 'an insertion far past the end of the file\n' }],
      ['be-write', { file: longPath, content: 'x', preveiw: true }],
      ['be-delete', { file: 'a.txt:77-88', extra_argument_name_that_is_long: true }],
      ['be-frobnicate', { file: longPath }],
      ['be-trx', { action: 'status', step: 'not a number at all, not at all' }],
      ['be-chip', { action: 'get', id: 'ffffff', padding: 'p'.repeat(60) }],
    ];
    let edits = 0;
    for (let round = 0; round < 11; round++) {
      for (const [tool, args] of failing) {
        const text = tool === 'be-frobnicate' ? await callProtocolError(c.client, tool, args) : await callError(c.client, tool, args);
        const readOnly = ['be-read', 'be-func-range', 'be-tag-range', 'be-balance', 'be-trx', 'be-chip'].includes(tool);
        if (readOnly) assert.equal(chipIdIn(text), undefined, `${tool} saved a chip: ${text}`);
        else {
          assert.ok(chipIdIn(text), `${tool} saved no chip: ${text}`);
          edits++;
        }
      }
    }
    assert.ok(edits >= 50);
    const chips = await c.services.chips.list();
    assert.ok(chips.some((ch) => ch.id === del.chip_id), 'the deleted-text chip was evicted');
    assert.ok(chips.length <= 31);
    await call(c.client, 'be-insert-chip', { from: `chip://${del.chip_id}`, to: 'a.txt:1' });
    assert.equal((await ws.read('a.txt')).toString(), 'one\ntwo\nthree\n');
  });

  it('a 4 MiB path gives an error of a few KB and a chip of a few KB (it was twice and three times the path)', async () => {
    const file = `${'deep/'.repeat(800 * 1024)}x.txt`;
    const readErr = await callError(c.client, 'be-read', { file: `${file}:1` });
    assert.ok(readErr.length < 5000, `be-read error is ${readErr.length} chars`);
    assert.match(readErr, /more chars\)/);
    assert.match(readErr, /argument "file" is 4096007 characters long .*a path is at most 4096 bytes/);
    // under the path limit, the core's own messages quote the path (twice): the middleware cuts each quote
    const flat = `${'n'.repeat(4000)}.txt`;
    const flatErr = await callError(c.client, 'be-read', { file: `${flat}:1` });
    assert.ok(flatErr.length < 3000, `be-read error is ${flatErr.length} chars`);
    assert.ok(!flatErr.includes(flat), 'the path is not quoted whole');
    assert.match(flatErr, /n+… \(\d+ more chars\)/);
    const content = 'the agent\'s work, kept whole\n'.repeat(1000);
    const writeErr = await callError(c.client, 'be-replace', { file: `${file}:1`, content });
    assert.ok(writeErr.length < 5000, `be-replace error is ${writeErr.length} chars`);
    const id = chipIdIn(writeErr)!;
    assert.ok(id, writeErr);
    const chipFile = path.join(ws.chipDir, `chip-${id}.json`);
    const size = (await fs.stat(chipFile)).size;
    assert.ok(size < content.length + 10_000, `chip file is ${size} bytes`);
    const got = await call(c.client, 'be-chip', { action: 'get', id });
    assert.equal(got.text, content, 'content is kept whole');
    assert.ok(got.chip.args.file.length < 300);
    // an unknown tool with a 1 MiB name: short error, short chip tool name
    const name = `be-${'z'.repeat(1024 * 1024)}`;
    const unknown = await callProtocolError(c.client, name, { file: 'a.txt', content: 'work that is long enough to be kept' });
    assert.ok(unknown.length < 3000, `${unknown.length} chars`);
    const chip = await call(c.client, 'be-chip', { action: 'get', id: chipIdIn(unknown)! });
    assert.ok(chip.chip.tool.length < 300);
  });

  it('content with a lone surrogate is refused, nothing written, the content kept in a chip', async () => {
    const content = 'good line\nbad \ud83d half\n';
    const err = await callError(c.client, 'be-write', { file: 'new.txt', content });
    assert.match(err, /argument "content" is not valid Unicode: a lone surrogate U\+D83D at character 14 \(line 2\)/);
    await assert.rejects(fs.access(ws.file('new.txt')), 'no file was created');
    const replaceErr = await callError(c.client, 'be-replace', { file: 'a.txt:1', content: '\udc00 low half first, and long enough' });
    assert.match(replaceErr, /lone surrogate U\+DC00/);
    assert.equal((await ws.read('a.txt')).toString(), 'one\ntwo\nthree\n');
    const id = chipIdIn(err)!;
    assert.equal((await call(c.client, 'be-chip', { action: 'get', id })).text, content);
    // a real U+FFFD and surrogate pairs are text like any other
    await call(c.client, 'be-write', { file: 'ok.txt', content: 'emoji 😀 replacement \ufffd\n' });
    assert.equal((await ws.read('ok.txt')).toString(), 'emoji 😀 replacement \ufffd\n');
  });
});

describe('mcp safety net (stdio CLI)', function () {
  this.timeout(60_000);

  it('starts past a FIFO in the chip directory and in the memory directory, warns, and keeps working', async function () {
    if (!posix) this.skip();
    const ws = await tmpWorkspace();
    try {
      const memoryDir = path.join(ws.cache, 'better-edit-tools-mcp', 'memory', workspaceKey([ws.root]));
      await fs.mkdir(ws.chipDir, { recursive: true });
      await fs.mkdir(memoryDir, { recursive: true });
      execFileSync('mkfifo', [path.join(ws.chipDir, 'chip-abcdef.json'), path.join(ws.chipDir, '.seq'), path.join(memoryDir, 'c3RkaW8.memory.json')]);
      await fs.mkdir(path.join(ws.chipDir, '.lock'));
      await ws.write('a.txt', 'one\ntwo\n');
      await buildCli();
      const started = Date.now();
      const c = await stdioClient(ws);
      try {
        const startMs = Date.now() - started;
        assert.ok(startMs < 5000, `start took ${startMs} ms`);
        const del = await call(c.client, 'be-delete', { file: 'a.txt:1' });
        assert.ok(del.chip_id);
        assert.ok((await call(c.client, 'be-insert-chip', {})).chips.includes(del.chip_id));
        assert.match(c.stderr(), /chip-abcdef\.json: it is a FIFO \(named pipe\), not a regular file; it was not opened/);
        // the saved sessions are read at the first quiet moment after the calls (the CLI's first call does not wait)
        for (let i = 0; i < 100 && !/c3RkaW8\.memory\.json: it is a FIFO/.test(c.stderr()); i++) await new Promise((r) => setTimeout(r, 50));
        assert.match(c.stderr(), /c3RkaW8\.memory\.json: it is a FIFO/);
        assert.match(c.stderr(), /removed a directory found at the lock path/);
      } finally {
        await c.close();
      }
    } finally {
      await ws.dispose();
    }
  });
});
