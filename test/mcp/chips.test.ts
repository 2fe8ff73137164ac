/** Chips through the call middleware: failed calls are saved and named in the error; be-delete round-trips. */
import assert from 'node:assert/strict';
import { call, callError, callProtocolError, chipIdIn, memoryClient, stdioClient, tmpWorkspace, type Connected, type Workspace } from './helpers';
import type { ChipFormat } from '../../src/core/chips/types';

describe('mcp chips through the middleware', function () {
  this.timeout(60000);
  let ws: Workspace;
  let c: Connected;

  beforeEach(async () => {
    ws = await tmpWorkspace();
    c = await memoryClient(ws);
    await ws.write('a.go', 'package main\n\nfunc a() {\n}\n');
  });
  afterEach(async () => {
    await c.close();
    await ws.dispose();
  });

  it('a failed call with a bad range names its chip; be-chip get and be-insert-chip list show it', async () => {
    const args = { file: 'a.go:40-50', content: 'func replacement() {\n  return\n}\n' };
    const text = await callError(c.client, 'be-replace', args);
    assert.match(text, /out of range|range/i);
    const id = chipIdIn(text);
    assert.ok(id, text);
    const got = await call(c.client, 'be-chip', { action: 'get', id: `chip://${id}` });
    assert.equal(got.chip.tool, 'be-replace');
    assert.deepEqual(got.chip.args, args);
    assert.equal(got.chip.err_msg, text.split('\narguments saved as')[0]);
    assert.equal(got.text, args.content);
    const list = await call(c.client, 'be-insert-chip', {});
    assert.ok(list.chips.includes(id));
    // the saved content can be put where it was meant to go
    await call(c.client, 'be-insert-chip', { from: `chip://${id}`, to: 'a.go:4' });
    assert.equal((await ws.read('a.go')).toString(), 'package main\n\nfunc a() {\n}\n' + args.content);
  });

  it('a schema failure (wrong type) is saved, and the error says path, expected type, grammar and an example', async () => {
    const text = await callError(c.client, 'be-insert', { file: 'a.go:1', content: 12345678, note: 'x'.repeat(40) });
    assert.match(text, /be-insert: invalid arguments: content: Invalid input: expected string, received number/);
    assert.match(text, /Unknown argument\(s\): note/);
    assert.match(text, /Expected file: "path:N" inserts after line N; "path:0" inserts at the top\./);
    assert.match(text, /Example: \{"file":"src\/main.go:10"/);
    const id = chipIdIn(text)!;
    const got = await call(c.client, 'be-chip', { action: 'get', id });
    assert.equal(got.chip.args.content, 12345678);
  });

  it('a missing field is reported as missing; a failed read-only call saves no chip, a failed edit does', async () => {
    const text = await callError(c.client, 'be-func-range', { file: 'some/long/path/to/a/deeply/nested/module/main.go' });
    assert.match(text, /line: Invalid input: expected number, received undefined \(missing\)/);
    assert.equal(chipIdIn(text), undefined, text);
    const edit = await callError(c.client, 'be-insert', { file: 'some/long/path/to/a/deeply/nested/module/main.go' });
    assert.match(edit, /content: Invalid input: expected string, received undefined \(missing\)/);
    assert.ok(chipIdIn(edit), edit);
  });

  it('arguments of 50 bytes or less are not saved (upstream threshold), and the text says nothing about a chip', async () => {
    const text = await callError(c.client, 'be-read', { file: 'nope.go' });
    assert.match(text, /nope\.go/);
    assert.equal(chipIdIn(text), undefined);
  });

  it('an unknown tool is JSON-RPC error -32602 (MCP 2025-11-25) that says which tools exist and keeps the arguments', async () => {
    const content = 'work worth keeping, long enough to pass the chip threshold of fifty characters\n';
    const message = await callProtocolError(c.client, 'be-frobnicate', { file: 'a.go', content });
    assert.match(message, /^MCP error -32602: unknown tool: be-frobnicate; available: be-read, be-replace, .*be-chip/);
    const id = chipIdIn(message);
    assert.ok(id, `the arguments are kept as a chip: ${message}`);
    const chip = await call(c.client, 'be-chip', { action: 'get', id });
    assert.equal(chip.chip.args.content, content);
  });

  it('be-delete then be-insert-chip restores the file byte for byte (several shapes)', async () => {
    const cases: { name: string; bytes: string; range: string; at: number }[] = [
      { name: 'lf.txt', bytes: 'a\nb\nc\nd\n', range: '2-3', at: 1 },
      { name: 'crlf.txt', bytes: 'a\r\nb\r\nc\r\n', range: '1', at: 0 },
      { name: 'nofinal.txt', bytes: 'a\nb\nc', range: '3', at: 2 },
      { name: 'bom.txt', bytes: '\ufeffx\ny\nz\n', range: '1-2', at: 0 },
      { name: 'all.txt', bytes: 'p\nq\n', range: 'ALL', at: 0 },
      { name: 'unicode.txt', bytes: 'α\n\t日本\n😀 \n', range: '2', at: 1 },
    ];
    for (const k of cases) {
      const original = Buffer.from(k.bytes, 'utf8');
      await ws.write(k.name, original);
      const del = await call(c.client, 'be-delete', { file: `${k.name}:${k.range}` });
      assert.ok(del.chip_id, `${k.name}: ${JSON.stringify(del)}`);
      assert.ok(del.warnings.some((w: string) => w.includes(`chip://${del.chip_id}`)));
      await call(c.client, 'be-insert-chip', { from: `chip://${del.chip_id}`, to: `${k.name}:${k.at}` });
      assert.deepEqual(await ws.read(k.name), original, k.name);
    }
  });

  it('be-chip delete and clear', async () => {
    await ws.write('b.txt', 'one\ntwo\n');
    const d1 = await call(c.client, 'be-delete', { file: 'b.txt:1' });
    const d2 = await call(c.client, 'be-delete', { file: 'b.txt:1' });
    assert.deepEqual(await call(c.client, 'be-chip', { action: 'delete', id: d1.chip_id }), { status: 'ok', deleted: d1.chip_id });
    const gone = await callError(c.client, 'be-chip', { action: 'get', id: d1.chip_id });
    assert.match(gone, new RegExp(`chip ${d1.chip_id} not found; existing chips: .*${d2.chip_id}`));
    const cleared = await call(c.client, 'be-chip', { action: 'clear' });
    assert.ok(cleared.cleared >= 1);
    assert.deepEqual((await call(c.client, 'be-insert-chip', {})).chips, []);
    assert.match(await callError(c.client, 'be-chip', { action: 'get' }), /missing id/);
  });
});

describe('mcp chips over stdio', function () {
  this.timeout(60000);
  it('a failed call names a chip that a later process can read (chips persist in --chip-dir)', async () => {
    const ws = await tmpWorkspace();
    try {
      await ws.write('a.txt', 'x\n');
      let c = await stdioClient(ws);
      const text = await callError(c.client, 'be-insert', { file: 'a.txt:99', content: 'something long enough to be saved\n' });
      const id = chipIdIn(text)!;
      assert.ok(id, text);
      await c.close();
      c = await stdioClient(ws);
      const got = await call(c.client, 'be-chip', { action: 'get', id });
      assert.equal(got.text, 'something long enough to be saved\n');
      await c.close();
    } finally {
      await ws.dispose();
    }
  });
});

describe('be-insert-chip follows the host\'s default format (VS Code: chips.replayFormat)', function () {
  this.timeout(60000);
  it('a call without format uses the host setting, read at each call; an explicit format wins', async () => {
    const ws = await tmpWorkspace();
    let setting: unknown = 'annotated';
    const c = await memoryClient(ws, {}, { chipFormat: () => setting as ChipFormat });
    try {
      await ws.write('a.ts', 'one\ntwo\nthree\n');
      const del = await call(c.client, 'be-delete', { file: 'a.ts:2' });
      const annotated = await call(c.client, 'be-insert-chip', { from: `chip://${del.chip_id}`, to: 'a.ts:0' });
      assert.equal(annotated.format, 'annotated');
      assert.match(String(await ws.read('a.ts')), new RegExp(`^// Chip ${del.chip_id} from tool "be-delete" at .*\\ntwo\\none\\nthree\\n$`));
      await ws.write('a.ts', 'one\nthree\n');
      const raw = await call(c.client, 'be-insert-chip', { from: `chip://${del.chip_id}`, to: 'a.ts:1', format: 'raw' });
      assert.equal(raw.format, 'raw');
      assert.equal(String(await ws.read('a.ts')), 'one\ntwo\nthree\n');
      setting = 'no-such-format'; // a hand-edited setting: raw, not an error
      await ws.write('a.ts', 'one\nthree\n');
      assert.equal((await call(c.client, 'be-insert-chip', { from: `chip://${del.chip_id}`, to: 'a.ts:1' })).format, 'raw');
    } finally {
      await c.close();
      await ws.dispose();
    }
  });
});
