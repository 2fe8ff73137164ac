/**
 * The overview describes what the FileStore holds: in VS Code an editor's unsaved buffer, not the disk. It still
 * leaves out whatever the disk says is not a regular file inside the root (a link out, a FIFO), buffer or not.
 */
import { strict as assert } from 'node:assert';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { FileContent, FileStore, ReadOptions } from '../../../src/core/files/fileStore';
import { NodeFileStore } from '../../../src/core/files/nodeFileStore';
import { createServices, type Services } from '../../../src/mcp/services';
import { tmpWorkspace, type Workspace } from '../../mcp/helpers';

/** The disk store plus an editor's unsaved buffers, keyed by absolute path (as VscodeFileStore serves them). */
class BufferedStore implements FileStore {
  readonly buffers = new Map<string, Buffer>();
  private readonly disk = new NodeFileStore();
  async read(abs: string, opts?: ReadOptions): Promise<FileContent> {
    const content = await this.disk.read(abs, opts);
    const buffer = this.buffers.get(abs);
    return buffer ? { ...content, bytes: buffer } : content;
  }
  unsaved(abs: string): Buffer | undefined {
    return this.buffers.get(abs);
  }
  stat: FileStore['stat'] = (abs) => this.disk.stat(abs);
  write: FileStore['write'] = (abs, bytes, opts) => this.disk.write(abs, bytes, opts);
  remove: FileStore['remove'] = (abs) => this.disk.remove(abs);
}

describe('context overview reads through the FileStore (unsaved editor buffers)', () => {
  let ws: Workspace;
  let store: BufferedStore;
  let services: Services;

  beforeEach(async () => {
    ws = await tmpWorkspace();
    store = new BufferedStore();
    services = await createServices({ roots: [ws.root], chipDir: ws.chipDir, historyDir: ws.historyDir, files: store, context: { watch: false } });
  });
  afterEach(async () => {
    await services.close();
    await ws.dispose();
  });

  it("shows the names of a file's unsaved buffer, not those on disk, and follows the buffer when it changes", async () => {
    const file = ws.file('src/open.ts');
    await ws.write('src/open.ts', 'export function savedOnDisk(): number {\n  return 1;\n}\n');
    await ws.write('src/other.ts', 'import { typedInTheEditor } from "./open";\nexport const x = typedInTheEditor();\n');
    store.buffers.set(file, Buffer.from('export function typedInTheEditor(): number {\n  return 2;\n}\n'));
    const first = await services.context!.overview({ budget: 4000 });
    assert.match(first.overview, /typedInTheEditor/);
    assert.doesNotMatch(first.overview, /savedOnDisk/);
    // the user types on (the disk stays as it was): the host invalidates the path, the next overview has it
    store.buffers.set(file, Buffer.from('export function typedLater(): number {\n  return 3;\n}\n'));
    services.context!.invalidate(file);
    const second = await services.context!.overview({ budget: 4000 });
    assert.match(second.overview, /typedLater/);
    assert.doesNotMatch(second.overview, /savedOnDisk/);
  });

  it('leaves out a file whose folder became a link out of the root, even when the store holds a buffer for it', async function () {
    if (process.platform === 'win32') this.skip();
    const outside = await fs.mkdtemp(path.join(path.dirname(ws.root), 'outside-'));
    try {
      await fs.writeFile(path.join(outside, 'a.ts'), 'export function outsideSecret(): void {}\n');
      await ws.write('src/in.ts', 'export function insideName(): void {}\n');
      await ws.write('src/sub/a.ts', 'export function insideOne(): void {}\n');
      assert.match((await services.context!.overview({ budget: 4000 })).overview, /insideOne/);
      // watched: the invalidated path is looked at alone, and its lstat follows the folder link to a regular file
      services.context!.repoMapFor(ws.root).setWatched(true);
      await fs.rm(ws.file('src/sub'), { recursive: true });
      await fs.symlink(outside, ws.file('src/sub'));
      const file = ws.file('src/sub/a.ts');
      store.buffers.set(file, Buffer.from('export function bufferOfALink(): void {}\n'));
      services.context!.invalidate(file);
      const o = await services.context!.overview({ budget: 4000 });
      assert.match(o.overview, /insideName/);
      assert.doesNotMatch(o.overview, /outsideSecret|bufferOfALink|insideOne/);
    } finally {
      await fs.rm(outside, { recursive: true, force: true });
    }
  });
});
