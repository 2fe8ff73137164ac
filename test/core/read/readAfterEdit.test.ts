/**
 * A read of the bytes an edit just wrote takes the line index that edit derived (editedIndex.ts indexFor, through
 * the read module's cache) and leaves it for the next edit; other bytes, even at the same size, are scanned. Seen
 * from outside: the scans of the file's bytes for line ends, and what the read and the edits show.
 */
import { strict as assert } from 'node:assert';
import { createServices, type Services } from '../../../src/mcp/services';
import { tmpWorkspace, type Workspace as McpWorkspace } from '../../mcp/helpers';
import { bigText, countLineScans, line, LINES } from './lineScans';

describe('core/read: a read of the bytes an edit just wrote uses its index too, and leaves it for the next edit', () => {
  let ws: McpWorkspace;
  let services: Services;
  let scans: ReturnType<typeof countLineScans>;

  beforeEach(async () => {
    ws = await tmpWorkspace();
    const text = bigText();
    await ws.write('big.ts', text);
    services = await createServices({ roots: [ws.root], chipDir: ws.chipDir, historyDir: ws.historyDir });
    scans = countLineScans(Buffer.byteLength(text));
  });
  afterEach(async () => {
    scans.restore();
    await services.close();
    await ws.dispose();
  });

  const edit = (i: number, tag: string) => services.edits.replace({ file: `big.ts:${i}`, content: `${line(i).slice(0, -4)}${tag}` });
  const read = async (from: number, to: number) => (await services.context!.read({ file: `big.ts:${from}-${to}`, mode: 'full' })) as unknown as { content: string };

  it('edit, read, edit: only the first edit scans the file; the read shows the edited line', async () => {
    await edit(4000, '//aa');
    scans.count = 0;
    const page = await read(3999, 4001);
    assert.ok(scans.count < 10, `the read uses the edit's index (${scans.count} indexOf calls)`);
    assert.match(page.content, new RegExp(`4000.*${line(4000).slice(0, -4).replace(/[()]/g, '.')}//aa`));
    await edit(4001, '//bb');
    assert.ok(scans.count < 20, `the next edit too: the read left the index (${scans.count} indexOf calls)`);
    assert.equal((await ws.read('big.ts')).toString().split('\n')[4000], `${line(4001).slice(0, -4)}//bb`);
  });

  it('a read of bytes another writer changed (same size) scans them', async () => {
    await edit(4000, '//aa');
    const lines = (await ws.read('big.ts')).toString().split('\n');
    lines[9] += 'x';
    lines[10] = lines[10].slice(1);
    await ws.write('big.ts', lines.join('\n'));
    scans.count = 0;
    const page = await read(11, 11);
    assert.ok(scans.count >= LINES, `scanned (${scans.count} indexOf calls)`);
    assert.match(page.content, new RegExp(lines[10].replace(/[()]/g, '.')));
  });
});
