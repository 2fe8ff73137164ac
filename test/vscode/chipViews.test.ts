/**
 * The Chips tree and the status bar (src/vscode/chipTree.ts, statusBar.ts) through the vscode double, over a real
 * chip store in a temp folder: newest first, the filter, tree items as the menus expect them, the count in the
 * status bar with the server's state.
 */
import { double } from './double/install';
import assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { ChipStore } from '../../src/core/chips/node/store';
import { ChipTreeProvider } from '../../src/vscode/chipTree';
import { StatusBar } from '../../src/vscode/statusBar';

describe('vscode/chipTree and statusBar (through the vscode double)', () => {
  let dir: string;
  let chips: ChipStore;
  beforeEach(async () => {
    double.reset();
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'bet-chipviews-'));
    chips = await ChipStore.open({ dir, thresholdBytes: 0 });
  });
  afterEach(() => fs.rm(dir, { recursive: true, force: true }));

  it('lists chips newest first, filters them, and counts them on every store change', async () => {
    const tree = new ChipTreeProvider(chips, () => Date.now());
    const counts: number[] = [];
    tree.onDidChangeCount((n) => counts.push(n));
    await chips.saveContent('be-delete', 'const alpha = 1;\n', { file: '/ws/a.ts', range: { start: 3, end: 3 } });
    await chips.saveFailedCall('be-replace', { file: '/ws/b.ts:9-9', content: 'beta\n' }, 'line 9 is past the end');
    await new Promise((r) => setTimeout(r, 20));
    const all = await tree.getChildren();
    assert.deepEqual(all.map((c) => c.tool), ['be-replace', 'be-delete']);
    assert.equal(counts.at(-1), 2);
    tree.setFilter('alpha');
    assert.deepEqual((await tree.getChildren()).map((c) => c.tool), ['be-delete']);
    assert.ok(double.recorded.executed.some((e) => e.command === 'setContext' && e.args[1] === true));
    const failed = tree.getTreeItem(all[0]!);
    assert.equal(failed.contextValue, 'chip.failed', 'the Replay menu shows for failed calls only');
    assert.match(String(failed.description), /be-replace · .* · b\.ts/);
    const deleted = tree.getTreeItem(all[1]!);
    assert.equal(deleted.contextValue, 'chip');
    assert.match(String(deleted.description), /a\.ts:3-3/);
    assert.deepEqual((deleted.command as { command: string }).command, 'betterEditTools.chips.preview');
    await chips.delete(all[0]!.id);
    await new Promise((r) => setTimeout(r, 20));
    assert.equal(counts.at(-1), 1);
    tree.dispose();
  });

  it('the status bar shows the server state and the chip count, red on error', () => {
    const bar = new StatusBar();
    const item = double.recorded.statusBarItems[0]!;
    assert.equal(item.visible, true);
    assert.equal(item.command, 'betterEditTools.showActions');
    bar.setChipCount(3);
    assert.equal(item.text, '$(circle-outline) BE $(symbol-snippet) 3');
    bar.setState({ kind: 'running', handle: { url: 'http://127.0.0.1:1/mcp', port: 1, token: 't', close: () => undefined }, since: 0 });
    assert.match(String(item.tooltip), /running on http:\/\/127\.0\.0\.1:1\/mcp/);
    bar.setState({ kind: 'error', message: 'EADDRINUSE' });
    assert.match(item.text, /^\$\(error\)/);
    assert.equal((item.backgroundColor as vscode.ThemeColor).id, 'statusBarItem.errorBackground');
    bar.dispose();
    assert.equal(item.visible, false);
  });
});
