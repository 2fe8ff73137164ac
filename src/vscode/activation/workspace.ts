/**
 * The workspace composer: the core composed for the open folders (compose.ts), recomposed when the folders, the
 * chip settings or allowWrite change (one recomposition at a time), and VS Code's file watcher and unsaved buffers
 * feeding the context service's invalidation.
 */
import * as vscode from 'vscode';
import { isOwnTransientPath } from '../../core/files/ownNames';
import { compose, type Composition } from '../compose';
import { allowWriteSetting, contextSettings } from '../settings';
import type { SettingsRouter } from './settings';
import { workspaceRoots, type Shell } from './shell';

export interface Workspace {
  current(): Composition;
  roots(): string[];
  /** After a recomposition, with the new composition (the old one is closed after the listeners ran). */
  readonly onDidRecompose: vscode.Event<Composition>;
  recompose(why: string): Promise<void>;
  close(): Promise<void>;
}

export interface WorkspaceOptions {
  /** The open folders on disk (default: vscode.workspace.workspaceFolders). */
  roots?: () => string[];
  /** The core composition (default compose.ts; a test gives a smaller one). */
  compose?: typeof compose;
}

export async function composeWorkspace(shell: Shell, settings: SettingsRouter, o: WorkspaceOptions = {}): Promise<Workspace> {
  const readRoots = o.roots ?? workspaceRoots;
  const composeCore = o.compose ?? compose;
  let roots = readRoots();
  let current: Composition | undefined; // the watcher may fire before the first composition is done
  // VS Code's file watcher tells the context service which paths changed, so a warm overview does not stat every file.
  const invalidate = (uri: vscode.Uri) => {
    // an edit's lock and staged temp beside the file are never a change (the rename is reported under the real name)
    if (uri.scheme === 'file' && !isOwnTransientPath(uri.fsPath)) current?.context?.invalidate(uri.fsPath);
  };
  const fileWatcher = vscode.workspace.createFileSystemWatcher('**/*');
  shell.own(
    fileWatcher,
    fileWatcher.onDidChange(invalidate),
    fileWatcher.onDidCreate(invalidate),
    fileWatcher.onDidDelete(invalidate),
    // The overview describes unsaved buffers (VscodeFileStore.unsaved), which the disk watcher never sees change.
    vscode.workspace.onDidChangeTextDocument((e) => invalidate(e.document.uri)),
    vscode.workspace.onDidCloseTextDocument((doc) => invalidate(doc.uri)),
  );
  const composeNow = () => {
    const c = shell.config();
    return composeCore({
      roots, storageDir: shell.storageDir, capacity: c.capacity, ttlDays: c.ttlDays, thresholdBytes: c.threshold,
      saveAfterEdit: () => shell.config().saveAfterEdit, lang: shell.lang, log: shell.log,
      context: contextSettings(shell.setting), watched: true, allowWrite: allowWriteSetting(shell.setting),
    });
  };
  current = await composeNow();
  const recomposed = new vscode.EventEmitter<Composition>();
  let recomposing = Promise.resolve();
  const recompose = (why: string) => {
    recomposing = recomposing.then(async () => {
      const old = current!;
      roots = readRoots();
      current = await composeNow();
      recomposed.fire(current);
      await old.close();
      shell.log.info(`${why}: roots ${roots.join(', ') || '(none)'}`);
    }).catch((err) => shell.log.error(`recomposition failed: ${String(err)}`));
    return recomposing;
  };
  shell.own(
    recomposed,
    vscode.workspace.onDidChangeWorkspaceFolders(() => void recompose('workspace folders changed')),
    settings.on('betterEditTools.chips', () => recompose('chip settings changed')),
    settings.on('betterEditTools.allowWrite', () => recompose('allowWrite changed')),
    settings.on('betterEditTools.context', () => {
      current?.context?.updateSettings(contextSettings(shell.setting));
      shell.log.info(`context settings: ${JSON.stringify(contextSettings(shell.setting))}`);
    }),
  );
  return {
    current: () => current!,
    roots: () => roots,
    onDidRecompose: recomposed.event,
    recompose,
    close: async () => {
      await recomposing;
      await current?.close();
    },
  };
}
