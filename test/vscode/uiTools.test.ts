/** The UI's tool calls go through the MCP server's middleware, as an agent's do (not a second, laxer path). */
import assert from 'node:assert/strict';
import { promises as fs, realpathSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createServices, type Services } from '../../src/mcp/services';
import { ToolCallError, UiTools } from '../../src/vscode/uiTools';

describe('vscode/uiTools: commands call the tools through the MCP server', function () {
  this.timeout(30000);
  let base: string;
  let root: string;
  let svc: Services;
  let ui: UiTools;
  beforeEach(async () => {
    base = realpathSync(await fs.mkdtemp(path.join(os.tmpdir(), 'ui-tools-')));
    root = path.join(base, 'ws');
    await fs.mkdir(path.join(root, 'src'), { recursive: true });
    await fs.writeFile(path.join(root, 'src/a.ts'), 'export const a = 1;\nexport const b = 2;\n');
    // As in VS Code: the host reports changes itself (no watcher of ours), so only invalidations refresh the overview.
    svc = await createServices({ roots: [root], chipDir: path.join(base, 'chips'), historyDir: path.join(base, 'history'), context: { watch: false } });
    svc.context!.setWatched(true);
    ui = new UiTools(svc.deps);
  });
  afterEach(async () => {
    await ui.dispose();
    await svc.close();
    await fs.rm(base, { recursive: true, force: true });
  });

  it('a successful call returns the result object, and a write refreshes the overview', async () => {
    const before = await svc.context!.overview({});
    const del = await ui.call('be-delete', { file: 'src/a.ts:2' });
    assert.equal(typeof del.chip_id, 'string');
    const ins = await ui.call('be-insert-chip', { from: `chip://${del.chip_id}`, to: 'src/a.ts:0' });
    assert.equal(ins.source, `chip://${del.chip_id}`);
    assert.equal(await fs.readFile(path.join(root, 'src/a.ts'), 'utf8'), 'export const b = 2;\nexport const a = 1;\n');
    await ui.call('be-insert', { file: 'src/a.ts:2', content: 'export const c = 3;' });
    const after = await svc.context!.overview({});
    assert.equal(after.lines, before.lines + 1, 'the server invalidated the written file (the handler alone does not)');
  });

  it('strict arguments: an unknown argument is refused, and the failed call is kept as a chip', async () => {
    const big = 'export function lost(): string {\n  return "this text must not be lost";\n}\n';
    await assert.rejects(ui.call('be-insert', { file: 'src/a.ts:1', content: big, contnet: 'typo' }), (e: unknown) => {
      assert.ok(e instanceof ToolCallError);
      assert.match(e.message, /contnet/);
      assert.match(e.message, /arguments saved as chip:\/\/[0-9a-f]{6}/);
      return true;
    });
    const chips = await svc.chips.list();
    assert.equal(chips.length, 1);
    assert.equal(chips[0]!.args.content, big);
    assert.equal(await fs.readFile(path.join(root, 'src/a.ts'), 'utf8'), 'export const a = 1;\nexport const b = 2;\n', 'nothing written');
  });
});
