/**
 * The chips composer: the Chips tree and its view (badge, filter message), chip previews (chip:// documents), and
 * the chip store's own folder watch, so chips other windows and the stdio CLI save show up. Follows the store
 * across recompositions.
 */
import * as vscode from 'vscode';
import { CHIP_SCHEME, ChipContentProvider } from '../chipPreview';
import { ChipTreeProvider } from '../chipTree';
import type { Workspace } from './workspace';
import type { Shell } from './shell';

export function composeChips(shell: Shell, workspace: Workspace): ChipTreeProvider {
  const tree = new ChipTreeProvider(workspace.current().chips);
  const view = vscode.window.createTreeView('betterEditTools.chips', { treeDataProvider: tree, showCollapseAll: false });
  // Other windows and the stdio CLI write into the same folder: the store watches it and reports 'reloaded'.
  let watch = workspace.current().chips.watch();
  const preview = new ChipContentProvider(() => workspace.current().chips);
  shell.own(
    tree,
    view,
    { dispose: () => watch.dispose() },
    preview,
    vscode.workspace.registerTextDocumentContentProvider(CHIP_SCHEME, preview),
    workspace.onDidRecompose((c) => {
      watch.dispose();
      watch = c.chips.watch();
      tree.setSource(c.chips);
    }),
    tree.onDidChangeCount((n) => {
      view.badge = n > 0 ? { value: n, tooltip: vscode.l10n.t('{0} chips', n) } : undefined;
    }),
    tree.onDidChangeFilter((f) => {
      view.message = f ? vscode.l10n.t('Filtered by "{0}" — use the filter button to clear.', f) : undefined;
    }),
  );
  tree.refresh();
  return tree;
}
