// The Agent Edits gutter's lines (src/vscode/agentEdits/gutter.ts) over a real edit history: edits made through the
// tools are marked where they stand now; a revert (be-trx) takes its edit's mark away and is not marked itself.
import assert from 'node:assert/strict';
import { promises as fs, realpathSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { currentSpans } from '../../src/core/history/review';
import { reviewList } from '../../src/core/history/reviewList';
import { createServices, type Services } from '../../src/mcp/services';
import { documentSpans, gutterLines } from '../../src/vscode/agentEdits/gutter';
import { UiTools } from '../../src/vscode/uiTools';

describe('vscode/agentEdits/gutter: the lines agents changed, over a real history', function () {
  this.timeout(30000);
  let base: string;
  let file: string;
  let svc: Services;
  let ui: UiTools;
  beforeEach(async () => {
    base = realpathSync(await fs.mkdtemp(path.join(os.tmpdir(), 'agent-gutter-')));
    await fs.mkdir(path.join(base, 'ws'));
    file = path.join(base, 'ws', 'g.txt');
    await fs.writeFile(file, ['one', 'two', 'three', 'four', 'five', 'six'].join('\n') + '\n');
    svc = await createServices({ roots: [path.join(base, 'ws')], chipDir: path.join(base, 'chips'), historyDir: path.join(base, 'history'), context: { watch: false } });
    ui = new UiTools(svc.deps);
  });
  afterEach(async () => {
    await ui.dispose();
    await svc.close();
    await fs.rm(base, { recursive: true, force: true });
  });

  const marked = async () => {
    const history = svc.history!;
    const bytes = await fs.readFile(file);
    const [spans, items] = await Promise.all([history.withQueue(async (q) => currentSpans(q, file, bytes)), history.withQueue(reviewList)]);
    return { lines: gutterLines(spans, items).map((l) => `${l.start + 1}-${l.end + 1}`).sort(), items };
  };

  it('marks replaced and inserted lines (not a pure deletion); a revert removes its edit\'s mark and adds none', async () => {
    await ui.call('be-replace', { file: 'g.txt:2', content: 'TWO' });
    await ui.call('be-insert', { file: 'g.txt:4', content: 'four-a\nfour-b' });
    await ui.call('be-delete', { file: 'g.txt:7' });
    let now = await marked();
    assert.deepEqual(now.lines, ['2-2', '5-6']);
    const replace = now.items.find((i) => i.tool === 'be-replace')!;
    await ui.call('be-trx', { action: 'revert', id: replace.id });
    now = await marked();
    assert.ok(now.items.some((i) => i.tool === 'be-trx'), 'the revert is recorded');
    assert.deepEqual(now.lines, ['5-6'], 'line 2 is the original again: not marked');
    const insert = now.items.find((i) => i.tool === 'be-insert')!;
    await ui.call('be-trx', { action: 'keep', id: insert.id });
    assert.deepEqual((await marked()).lines, [], 'a kept edit is no longer marked');
  });

  it('marks a UTF-8 file with a BOM from its editor text, which has no BOM', async () => {
    await fs.writeFile(file, '\ufeffone\ntwo\nthree\n');
    await ui.call('be-replace', { file: 'g.txt:2', content: 'TWO' });
    const history = svc.history!;
    const text = (await fs.readFile(file, 'utf8')).replace(/^\ufeff/, ''); // what vscode.TextDocument.getText() gives
    const spans = await documentSpans((bytes) => history.withQueue(async (q) => currentSpans(q, file, bytes)), text);
    const items = await history.withQueue(reviewList);
    assert.deepEqual(gutterLines(spans, items).map((l) => `${l.start + 1}-${l.end + 1}`), ['2-2']);
  });
});
