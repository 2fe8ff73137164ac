/**
 * be-read with a context mode reads the file once: the page the agent sees and its viewed_code_id come from the
 * same bytes. When they came from two reads, a write between them gave an id for bytes the agent never saw, and
 * an edit made with that id on what the agent saw landed on the wrong lines.
 */
import { strict as assert } from 'node:assert';
import { promises as fs } from 'node:fs';
import type { FileContent, FileStore, ReadOptions } from '../../../src/core/files/fileStore';
import { NodeFileStore } from '../../../src/core/files/nodeFileStore';
import { createServices, type Services } from '../../../src/mcp/services';
import { tmpWorkspace, type Workspace } from '../../mcp/helpers';

/** The real disk store, counting reads and stats of each path; `afterRead` runs once a read has returned its bytes. */
class CountingStore implements FileStore {
  readonly reads = new Map<string, number>();
  readonly stats = new Map<string, number>();
  afterRead?: (abs: string) => Promise<void>;
  constructor(private readonly disk: FileStore = new NodeFileStore()) {}
  async read(abs: string, opts?: ReadOptions): Promise<FileContent> {
    this.reads.set(abs, (this.reads.get(abs) ?? 0) + 1);
    const content = await this.disk.read(abs, opts);
    const hook = this.afterRead;
    this.afterRead = undefined;
    await hook?.(abs);
    return content;
  }
  stat(abs: string) {
    this.stats.set(abs, (this.stats.get(abs) ?? 0) + 1);
    return this.disk.stat(abs);
  }
  write: FileStore['write'] = (abs, bytes, opts) => this.disk.write(abs, bytes, opts);
  remove: FileStore['remove'] = (abs) => this.disk.remove(abs);
}

describe('context full read: one read gives the page and its viewed_code_id', () => {
  let ws: Workspace;
  let store: CountingStore;
  let services: Services;

  beforeEach(async () => {
    ws = await tmpWorkspace();
    store = new CountingStore();
    services = await createServices({ roots: [ws.root], chipDir: ws.chipDir, historyDir: ws.historyDir, files: store, context: { watch: false } });
  });
  afterEach(async () => {
    await services.close();
    await ws.dispose();
  });

  it('a write just after the page was read makes an edit with its id a conflict, not an edit of lines never seen', async () => {
    const file = ws.file('src/a.ts');
    await ws.write('src/a.ts', 'const alpha = 1;\nconst beta = 2;\nconst gamma = 3;\n');
    // Another writer inserts a line at the top right after the context service has read the file.
    store.afterRead = async (abs) => {
      if (abs === file) await fs.writeFile(file, '// inserted by another writer\nconst alpha = 1;\nconst beta = 2;\nconst gamma = 3;\n');
    };
    const page = (await services.context!.read({ file: 'src/a.ts', mode: 'full' })) as { content: string; viewed_code_id?: string };
    assert.equal(page.content, '1\tconst alpha = 1;\n2\tconst beta = 2;\n3\tconst gamma = 3;', 'the page shows the bytes as read');
    assert.match(String(page.viewed_code_id), /^w\d+$/);
    // The agent replaces line 2, which it saw as `const beta = 2;`: the file changed above it since, so the id must refuse.
    await assert.rejects(
      services.edits.replace({ file: 'src/a.ts:2', content: 'const beta = 20;', viewed_code_id: page.viewed_code_id }),
      (e: Error & { code?: string }) => (assert.equal(e.code, 'conflict', e.message), true),
    );
    assert.equal(await fs.readFile(file, 'utf8'), '// inserted by another writer\nconst alpha = 1;\nconst beta = 2;\nconst gamma = 3;\n', 'nothing was edited');
  });

  it('the id of a page is the id be-read issues for the same lines of the same bytes (eol, bom, encoding alike)', async () => {
    await ws.write('src/crlf.ts', Buffer.from('\ufeffone\r\ntwo\r\nthree\r\n', 'utf8'));
    const page = (await services.context!.read({ file: 'src/crlf.ts:2-3', mode: 'full' })) as unknown as Record<string, unknown>;
    const upstream = (await services.edits.read({ file: 'src/crlf.ts:2-3', brief: true })) as unknown as unknown as Record<string, unknown>;
    for (const k of ['viewed_code_id', 'eol', 'bom', 'final_newline', 'status', 'file', 'start', 'end', 'total']) assert.deepEqual(page[k], upstream[k], k);
    assert.equal(page.content, '2\ttwo\n3\tthree');
    // and the id works for an edit of what was shown
    await services.edits.replace({ file: 'src/crlf.ts:3', content: 'THREE', viewed_code_id: String(page.viewed_code_id) });
    assert.equal(await fs.readFile(ws.file('src/crlf.ts'), 'utf8'), '\ufeffone\r\ntwo\r\nTHREE\r\n');
  });

  it('a full-mode read reads the file once, stats it once and resolves its path once', async () => {
    const file = ws.file('src/b.ts');
    await ws.write('src/b.ts', 'export const b = 1;\n');
    let resolves = 0;
    const sandbox = services.sandbox;
    const resolve = sandbox.resolve.bind(sandbox);
    sandbox.resolve = (input: string) => (resolves++, resolve(input));
    for (const mode of ['full', 'auto'] as const) {
      store.reads.clear();
      store.stats.clear();
      resolves = 0;
      const page = (await services.context!.read({ file: 'src/b.ts', mode })) as { mode: string; viewed_code_id?: string };
      assert.equal(page.mode, 'full');
      assert.ok(page.viewed_code_id);
      assert.deepEqual([...store.reads], [[file, 1]], `${mode}: reads`);
      assert.deepEqual([...store.stats], [[file, 1]], `${mode}: stats`);
      assert.equal(resolves, 1, `${mode}: path resolutions`);
    }
  });

  it('structure and full pages show what the FileStore holds (an editor buffer), not the disk', async () => {
    const file = ws.file('src/open.ts');
    await ws.write('src/open.ts', 'export function onDisk(): number {\n  return 1;\n}\n');
    const buffer = Buffer.from('export function inTheEditor(): number {\n  return 2;\n}\n');
    const disk = store.read.bind(store);
    store.read = async (abs, opts) => (abs === file ? { ...(await disk(abs, opts)), bytes: buffer } : disk(abs, opts));
    const outline = (await services.context!.structure('src/open.ts')).outline;
    assert.match(outline, /inTheEditor/);
    assert.doesNotMatch(outline, /onDisk/);
    const page = (await services.context!.read({ file: 'src/open.ts', mode: 'full' })) as { content: string };
    assert.match(page.content, /^1\texport function inTheEditor/);
  });
});
