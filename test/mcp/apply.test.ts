/** be-apply through the real SDK client and the built stdio CLI: a plain array schema, one batch, one rollback step. */
import { strict as assert } from 'node:assert';
import { createHash } from 'node:crypto';
import { call, callError, stdioClient, tmpWorkspace, type Connected, type Workspace } from './helpers';

describe('mcp be-apply (stdio CLI, SDK client)', function () {
  this.timeout(60_000);
  let ws: Workspace;
  let c: Connected;
  before(async () => {
    ws = await tmpWorkspace();
    c = await stdioClient(ws, ['--no-memory']);
  });
  after(async () => {
    await c?.close();
    await ws?.dispose();
  });

  it('lists edits as a plain array of objects (no JSON inside a string)', async () => {
    const { tools } = await c.client.listTools();
    const t = tools.find((x) => x.name === 'be-apply');
    assert.ok(t, 'be-apply is listed');
    const edits = (t.inputSchema.properties as Record<string, any>).edits;
    assert.equal(edits.type, 'array');
    assert.equal(edits.items.type, 'object');
    assert.ok(t.description!.length < 300, 'a short description');
  });

  it('applies a batch over two files, reports each read-back hash, and be-trx rollback step 1 undoes it whole', async () => {
    await ws.write('a.ts', 'const a = 1;\nconst b = 2;\n');
    await ws.write('b.ts', 'export {};\n');
    const r = await call(c.client, 'be-apply', {
      edits: [
        { file: 'a.ts:2', content: 'const b = 3;\n' },
        { file: 'b.ts:0', op: 'insert', content: '// top\n' },
      ],
    });
    assert.equal(r.files, 2);
    for (const f of r.results) assert.equal(f.sha256, createHash('sha256').update(await ws.read(f.file)).digest('hex').slice(0, 16));
    assert.equal((await ws.read('b.ts')).toString(), '// top\nexport {};\n');
    const rb = await call(c.client, 'be-trx', { action: 'rollback', step: 1 });
    assert.equal(rb.rolled_back, 2);
    assert.equal((await ws.read('a.ts')).toString(), 'const a = 1;\nconst b = 2;\n');
    assert.equal((await ws.read('b.ts')).toString(), 'export {};\n');
  });

  it('a bad edit anywhere in the batch is a clear error and nothing is written', async () => {
    await ws.write('c.ts', 'one\n');
    const err = await callError(c.client, 'be-apply', { edits: [{ file: 'c.ts:1', content: 'ONE\n' }, { file: 'c.ts:5', content: 'x' }] });
    assert.match(err, /edit 2/);
    assert.equal((await ws.read('c.ts')).toString(), 'one\n');
  });
});

describe('mcp legacy encodings (stdio CLI with --encoding)', function () {
  this.timeout(60_000);
  it('a configured Shift_JIS file and a guessed GBK file are read decoded and edited in their own bytes', async () => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const iconv = require('iconv-lite') as typeof import('iconv-lite');
    const ws = await tmpWorkspace();
    const c = await stdioClient(ws, ['--no-memory', '--encoding', '*.sjis=shift_jis']);
    try {
      await ws.write('a.sjis', iconv.encode('abc\n', 'shift_jis'));
      await ws.write('b.c', iconv.encode('// 中文注释，这是一个函数\r\nint x;\r\n', 'gbk'));
      const read = await call(c.client, 'be-read', { file: 'b.c', mode: 'full' });
      assert.equal(read.encoding, 'gbk');
      await call(c.client, 'be-apply', { edits: [{ file: 'a.sjis:1', content: '日本\n' }, { file: 'b.c:2', content: 'int y; // 改\n' }] });
      assert.ok((await ws.read('a.sjis')).equals(iconv.encode('日本\n', 'shift_jis')));
      assert.ok((await ws.read('b.c')).equals(iconv.encode('// 中文注释，这是一个函数\r\nint y; // 改\r\n', 'gbk')));
    } finally {
      await c.close();
      await ws.dispose();
    }
  });
});
