/**
 * Hostile input against the real stdio server: after every case the server still answers a ping,
 * no file is partially written (bytes compared) and every error says what was wrong.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { DEFAULT_MAX_ARG_BYTES } from '../../src/mcp/server';
import {
  call,
  callError,
  chipIdIn,
  httpSetup,
  RawStdio,
  stdioClient,
  textOf,
  tmpWorkspace,
  type Connected,
  type Workspace,
} from './helpers';

const MiB = 1024 * 1024;

/** A content of exactly `bytes` bytes made of 64-byte lines. */
function bigContent(bytes: number): string {
  const line = 'abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ.\n';
  return line.repeat(Math.floor(bytes / line.length)) + 'x'.repeat(bytes % line.length);
}

describe('mcp hostile input (stdio, dist/cli.js)', function () {
  this.timeout(180000);
  let ws: Workspace;
  let c: Connected;
  let client: Client;
  let outside: string;

  before(async () => {
    ws = await tmpWorkspace();
    outside = path.join(path.dirname(ws.root), 'outside.txt');
    await fs.writeFile(outside, 'secret outside the root\n');
    c = await stdioClient(ws);
    client = c.client;
  });
  after(async () => {
    await c.close();
    await ws.dispose();
  });
  afterEach(async function () {
    // the server survives every case
    await client.ping();
    assert.equal((await fs.readFile(outside)).toString(), 'secret outside the root\n', 'outside file untouched');
  });

  /** Runs a failing call and checks the file it targets kept every byte. */
  async function failsUntouched(rel: string, tool: string, args: unknown, expect: RegExp): Promise<string> {
    const before = await ws.read(rel).catch(() => undefined);
    const text = await callError(client, tool, args);
    assert.match(text, expect);
    const afterBytes = await ws.read(rel).catch(() => undefined);
    assert.deepEqual(afterBytes, before, `${rel} unchanged after failed ${tool}`);
    return text;
  }

  it('wrong types: each names the argument and the expected type', async () => {
    await ws.write('t.txt', 'a\nb\nc\n');
    await failsUntouched('t.txt', 'be-read', { file: 123 }, /file: Invalid input: expected string, received number/);
    await failsUntouched('t.txt', 'be-func-range', { file: 't.txt', line: '2' }, /line: Invalid input: expected number, received string/);
    await failsUntouched('t.txt', 'be-func-range', { file: 't.txt', line: 0 }, /line: Too small: expected number to be >=1/);
    await failsUntouched('t.txt', 'be-func-range', { file: 't.txt', line: 1.5 }, /line: Invalid input: expected int, received number/);
    await failsUntouched('t.txt', 'be-replace', { file: 't.txt:1', content: null }, /content: Invalid input: expected string, received null/);
    await failsUntouched('t.txt', 'be-insert', { file: 't.txt:1', content: ['a'] }, /content: Invalid input: expected string, received array/);
    await failsUntouched('t.txt', 'be-read', { file: 't.txt', target: 'main' }, /target: Invalid input: expected object, received string/);
    await failsUntouched('t.txt', 'be-read', { file: 't.txt', target: { kind: 'regex', value: 'x' } }, /target\.kind: Invalid option: expected one of "line"\|"function"\|"marker"\|"tag"/);
    await failsUntouched('t.txt', 'be-trx', { action: 'undo' }, /action: Invalid option: expected one of "commit"\|"rollback"\|"status"/);
    await failsUntouched('t.txt', 'be-replace', { file: 't.txt:1', content: 'x', format: 'html' }, /format: Invalid option/);
  });

  it('unknown arguments are refused, so a typo cannot turn a preview into a write', async () => {
    const text = await failsUntouched('typo.txt', 'be-write', { file: 'typo.txt', content: 'x\n', preveiw: true }, /Unknown argument\(s\): preveiw; accepted: file, content, preview, brief/);
    assert.match(text, /^be-write: invalid arguments:/);
  });

  it("upstream's hidden old_text alias of be-replace is honoured (a mismatch is refused)", async () => {
    await ws.write('alias.txt', 'one\ntwo\n');
    await failsUntouched('alias.txt', 'be-replace', { file: 'alias.txt:1', old_text: 'not one\n', content: 'uno\n' }, /old|match/i);
    await call(client, 'be-replace', { file: 'alias.txt:1', old_text: 'one\n', content: 'uno\n' });
    assert.equal((await ws.read('alias.txt')).toString(), 'uno\ntwo\n');
  });

  it('malformed arguments: not an object, or no arguments at all', async () => {
    const raw = new RawStdio(ws);
    try {
      await raw.initialize();
      // the middleware sees even this call: a tool error (with the expected shape), not a bare JSON-RPC error
      const r = await raw.request(1, 'tools/call', { name: 'be-read', arguments: 'a.txt:1' });
      assert.equal(r.id, 1);
      assert.equal(r.result.isError, true);
      assert.match(r.result.content[0].text, /be-read: arguments must be a JSON object of named arguments, got string\. Example: \{"file"/);
      const arr = await raw.request(5, 'tools/call', { name: 'be-write', arguments: ['some/file/with/a/much/longer/name.txt', 'content that is worth keeping'] });
      assert.match(arr.result.content[0].text, /got an array/);
      assert.ok(chipIdIn(arr.result.content[0].text), 'saved as a chip');
      const r2 = await raw.request(2, 'tools/call', { name: 'be-read' });
      assert.equal(r2.result.isError, true);
      assert.match(r2.result.content[0].text, /file: Invalid input: expected string, received undefined \(missing\)/);
      const r3 = await raw.request(3, 'tools/call', { arguments: {} });
      assert.equal(r3.error.code, -32602);
      assert.match(r3.error.message, /tools\/call needs params\.name, a tool name string; available: be-read/);
      assert.deepEqual(await raw.request(4, 'ping'), { jsonrpc: '2.0', id: 4, result: {} });
    } finally {
      await raw.close();
    }
  });

  it('ranges out of bounds and malformed ranges are refused with the valid range', async () => {
    await ws.write('r.txt', 'one\ntwo\nthree\n');
    await failsUntouched('r.txt', 'be-replace', { file: 'r.txt:4', content: 'x\n' }, /\b1\.\.3\b|1-3|\(1\.\.3\)/);
    await failsUntouched('r.txt', 'be-replace', { file: 'r.txt:2-9', content: 'x\n' }, /3/);
    await failsUntouched('r.txt', 'be-replace', { file: 'r.txt:3-2', content: 'x\n' }, /end.*start|start.*end/i);
    await failsUntouched('r.txt', 'be-replace', { file: 'r.txt:0', content: 'x\n' }, /range|line/i);
    await failsUntouched('r.txt', 'be-delete', { file: 'r.txt:99999999999999999999' }, /range|line|number/i);
    await failsUntouched('r.txt', 'be-insert', { file: 'r.txt:4', content: 'x\n' }, /0\.\.3|0-3/);
    await failsUntouched('r.txt', 'be-insert', { file: 'r.txt:1-2', content: 'x\n' }, /single line|one line/i);
    await failsUntouched('r.txt', 'be-replace', { file: 'r.txt', content: 'x\n' }, /range/i);
    await failsUntouched('r.txt', 'be-replace', { file: 'r.txt:abc', content: 'x\n' }, /abc|range|line/i);
    await failsUntouched('r.txt', 'be-func-range', { file: 'r.txt', line: 50 }, /50/);
  });

  it('NUL bytes: a NUL in content is written exactly or refused clearly; a file with NUL is refused as binary', async () => {
    const r = (await client.callTool({ name: 'be-write', arguments: { file: 'nul.txt', content: 'a\u0000b\n' } })) as CallToolResult;
    if (r.isError) {
      assert.match(textOf(r), /NUL|binary/i);
      await assert.rejects(ws.read('nul.txt'));
    } else {
      assert.deepEqual(await ws.read('nul.txt'), Buffer.from('a\u0000b\n'));
    }
    await ws.write('bin.dat', Buffer.from([0x61, 0x0a, 0x00, 0x01, 0x02, 0x0a]));
    await failsUntouched('bin.dat', 'be-read', { file: 'bin.dat' }, /binary.*NUL byte at offset 2/);
    await failsUntouched('bin.dat', 'be-replace', { file: 'bin.dat:1', content: 'b\n' }, /binary/);
    await failsUntouched('bin.dat', 'be-delete', { file: 'bin.dat:1' }, /binary/);
  });

  it('invalid UTF-8 (Latin-1) files are read decoded and edited in their own bytes; what Latin-1 lacks is refused', async () => {
    await ws.write('latin1.txt', Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a, 0x78, 0x0a]));
    const r = await call(client, 'be-read', { file: 'latin1.txt' });
    assert.equal(r.encoding, 'windows-1252');
    assert.match(r.content, /caf\u00e9/);
    await call(client, 'be-replace', { file: 'latin1.txt:2', content: 'y\u00e8\n' });
    assert.deepEqual(await ws.read('latin1.txt'), Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a, 0x79, 0xe8, 0x0a]));
    await failsUntouched('latin1.txt', 'be-insert', { file: 'latin1.txt:0', content: '\u4e2d\n' }, /cannot be written in windows-1252/);
  });

  it('CRLF and BOM files keep their line endings and BOM through edits', async () => {
    await ws.write('crlf.txt', 'a\r\nb\r\nc\r\n');
    await call(client, 'be-replace', { file: 'crlf.txt:2', content: 'B\n' });
    await call(client, 'be-insert', { file: 'crlf.txt:3', content: 'd\n' });
    assert.equal((await ws.read('crlf.txt')).toString(), 'a\r\nB\r\nc\r\nd\r\n');
    await ws.write('bom.txt', '\ufeffline1\nline2\n');
    await call(client, 'be-replace', { file: 'bom.txt:1', content: 'first\n' });
    assert.deepEqual(await ws.read('bom.txt'), Buffer.from('\ufefffirst\nline2\n'));
    const r = await call(client, 'be-read', { file: 'bom.txt' });
    assert.equal(r.bom, true);
    assert.match(r.content, /^1\tfirst\n2\tline2$/);
  });

  it('symlinks pointing out of the roots are refused for reads and writes', async () => {
    await fs.symlink(outside, ws.file('link.txt'));
    await fs.symlink(path.dirname(ws.root), ws.file('updir'));
    await failsUntouched('link.txt', 'be-read', { file: 'link.txt' }, /outside the allowed roots.*resolves to/);
    await failsUntouched('link.txt', 'be-write', { file: 'link.txt', content: 'pwned\n' }, /outside the allowed roots/);
    await failsUntouched('link.txt', 'be-replace', { file: 'link.txt:1', content: 'pwned\n' }, /outside the allowed roots/);
    await failsUntouched('updir/outside.txt', 'be-delete', { file: 'updir/outside.txt:1' }, /outside the allowed roots/);
    await failsUntouched('updir/new.txt', 'be-write', { file: 'updir/new.txt', content: 'x\n' }, /outside the allowed roots/);
    await assert.rejects(fs.stat(path.join(path.dirname(ws.root), 'new.txt')));
  });

  it('paths with .. escaping the root, absolute paths outside it, and file:// outside it are refused', async () => {
    await failsUntouched('../outside.txt', 'be-read', { file: '../outside.txt' }, /outside the allowed roots/);
    await failsUntouched('../outside.txt', 'be-write', { file: 'sub/../../outside.txt', content: 'x\n' }, /outside the allowed roots/);
    await failsUntouched('../outside.txt', 'be-delete', { file: `${outside}:1` }, /outside the allowed roots/);
    await failsUntouched('../outside.txt', 'be-replace', { file: `file://${outside}:1`, content: 'x\n' }, /outside the allowed roots/);
    // an in-root name starting with ".." is not an escape (upstream flaw)
    await call(client, 'be-write', { file: '..foo.txt', content: 'fine\n' });
    assert.equal((await ws.read('..foo.txt')).toString(), 'fine\n');
  });

  it('be-insert-chip from a file:// outside the roots is refused (no unsandboxed read)', async () => {
    await ws.write('target.txt', 'x\n');
    const text = await failsUntouched('target.txt', 'be-insert-chip', { from: `file://${outside}`, to: 'target.txt:1' }, /outside the allowed roots/);
    assert.doesNotMatch(text, /secret outside the root/);
    await failsUntouched('target.txt', 'be-insert-chip', { from: 'file:///etc/passwd', to: 'target.txt:0' }, /outside the allowed roots/);
    await failsUntouched('target.txt', 'be-insert-chip', { from: 'chip://ffffff', to: 'target.txt:0' }, /ffffff.*not found|not found.*ffffff/);
    await failsUntouched('target.txt', 'be-insert-chip', { from: 'http://x/y', to: 'target.txt:0' }, /from|not found/);
  });

  it('an unreadable file gets a clear error (skipped when running as root, where modes do not apply)', async function () {
    if (process.getuid?.() === 0) this.skip();
    await ws.write('secret.txt', 's\n');
    await fs.chmod(ws.file('secret.txt'), 0o000);
    try {
      const text = await callError(client, 'be-read', { file: 'secret.txt' });
      assert.match(text, /permission|EACCES/i);
    } finally {
      await fs.chmod(ws.file('secret.txt'), 0o644);
    }
  });

  it('a directory given as a file is refused clearly', async () => {
    await fs.mkdir(ws.file('adir'), { recursive: true });
    const text = await callError(client, 'be-read', { file: 'adir' });
    assert.match(text, /directory/);
  });

  it('a 16 MiB content is written whole over stdio', async () => {
    const content = bigContent(16 * MiB);
    assert.equal(Buffer.byteLength(content), DEFAULT_MAX_ARG_BYTES);
    const r = await call(client, 'be-write', { file: 'big16.txt', content, brief: true });
    assert.equal(r.status, 'ok');
    const bytes = await ws.read('big16.txt');
    assert.equal(bytes.length, 16 * MiB);
    assert.ok(bytes.equals(Buffer.from(content)));
  });

  it('a 40 MiB content gets a clean size error, no file, a small chip, and the server stays up', async () => {
    await ws.write('keep.txt', 'keep\n');
    const content = bigContent(40 * MiB);
    const text = await failsUntouched('keep.txt', 'be-replace', { file: 'keep.txt:1', content }, /argument "content" is 41943040 bytes \(40\.0 MiB\); the limit is 16777216 bytes/);
    assert.match(text, /Split the change/);
    const id = chipIdIn(text);
    assert.ok(id, 'the failed call is still saved, truncated');
    const chip = await call(client, 'be-chip', { action: 'get', id });
    assert.ok(chip.chip.args.content.length <= 16 * 1024);
    assert.deepEqual(chip.chip.args._truncated, { content: 40 * MiB });
    const w = await callError(client, 'be-write', { file: 'huge.txt', content });
    assert.match(w, /too large|the limit is/);
    await assert.rejects(ws.read('huge.txt'));
    const st = await fs.stat(ws.chipDir);
    assert.ok(st.isDirectory());
    let total = 0;
    for (const f of await fs.readdir(ws.chipDir)) total += (await fs.stat(path.join(ws.chipDir, f))).size;
    assert.ok(total < 1 * MiB, `chip dir holds ${total} bytes`);
  });
});

describe('mcp hostile input over HTTP', function () {
  this.timeout(180000);
  it('16 MiB works, 40 MiB gets the per-argument error, the session keeps working', async () => {
    const ws = await tmpWorkspace();
    const h = await httpSetup(ws);
    try {
      const c = await h.connect();
      const content16 = bigContent(16 * MiB);
      await call(c.client, 'be-write', { file: 'big16.txt', content: content16, brief: true });
      assert.ok((await ws.read('big16.txt')).equals(Buffer.from(content16)));
      const text = await callError(c.client, 'be-write', { file: 'big40.txt', content: bigContent(40 * MiB) });
      assert.match(text, /argument "content" is 41943040 bytes/);
      await assert.rejects(ws.read('big40.txt'));
      await c.client.ping();
      await c.close();
    } finally {
      await h.host.close();
      await ws.dispose();
    }
  });
});
