/**
 * What every composer of activate() gets: the extension context, its log, the settings, and where state lives.
 * Each composer (this folder) registers one concern and pushes what it made into the context's subscriptions.
 */
import * as vscode from 'vscode';
import type { Lang } from '../../core/lang';
import type { SettingGetter } from '../settings';
import type { SaveAfterEdit } from '../vscodeFileStore';

export interface ExtensionConfig {
  serverEnabled: boolean;
  capacity: number;
  ttlDays: number;
  threshold: number;
  replayFormat: 'raw' | 'annotated' | 'json';
  saveAfterEdit: SaveAfterEdit;
}

export interface Shell {
  context: vscode.ExtensionContext;
  log: vscode.LogOutputChannel;
  version: string;
  lang: Lang;
  /** `betterEditTools.<key>`, read now. */
  setting: SettingGetter;
  config(): ExtensionConfig;
  /** globalStorage: chips, history, memory, the CLI launcher. */
  storageDir: string;
  /** Disposed with the extension. */
  own(...disposables: vscode.Disposable[]): void;
}

export function readConfig(get: SettingGetter): ExtensionConfig {
  return {
    serverEnabled: get<boolean>('server.enabled', true),
    capacity: get<number>('chips.capacity', 30),
    ttlDays: get<number>('chips.ttlDays', 0),
    threshold: get<number>('chips.threshold', 50),
    replayFormat: get<'raw' | 'annotated' | 'json'>('chips.replayFormat', 'raw'),
    saveAfterEdit: get<SaveAfterEdit>('saveAfterEdit', 'whenNotDirty'),
  };
}

export function createShell(context: vscode.ExtensionContext, log: vscode.LogOutputChannel): Shell {
  const setting: SettingGetter = (key, fallback) => vscode.workspace.getConfiguration('betterEditTools').get(key, fallback);
  return {
    context,
    log,
    version: String(context.extension.packageJSON.version),
    lang: vscode.env.language.startsWith('zh') ? 'zh' : 'en',
    setting,
    config: () => readConfig(setting),
    storageDir: context.globalStorageUri.fsPath,
    own: (...d) => void context.subscriptions.push(...d),
  };
}

/** The open folders on disk (a virtual workspace's folders have no root the tools could edit in). */
export function workspaceRoots(): string[] {
  return (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file').map((f) => f.uri.fsPath);
}
