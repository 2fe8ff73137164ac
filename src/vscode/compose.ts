/**
 * Composes the core for the extension host with src/mcp/services.ts, giving it the VS Code FileStore
 * (WorkspaceEdit for files open in an editor, atomic disk writes otherwise) and directories under globalStorage.
 * Recomposed when the workspace folders or chip settings change; MCP sessions see the current composition
 * through a stable facade.
 */
import * as os from 'node:os';
import * as path from 'node:path';
import { ChipStore } from '../core/chips/node/store';
import type { ContextService } from '../core/context/node/service';
import { ToolError } from '../core/errors';
import { defaultLockDir } from '../core/files/lockDir';
import { NodeFileStore } from '../core/files/nodeFileStore';
import { workspaceHistoryDir, type HistoryStore } from '../core/history/node/store';
import type { ChipFormat } from '../core/chips/types';
import type { EditsPort, MemoryPort, RecallPort, ServerDeps } from '../mcp/deps';
import { chipKeyFile, createServices } from '../mcp/services';
import { ChipSigner } from '../core/chips/node/integrity';
import type { LogOutputChannel } from 'vscode';
import { DocumentSymbolProvider } from './documentSymbols';
import type { ContextModeSettings } from './settings';
import { VscodeFileStore, vscodeEncodingFor, type SaveAfterEdit } from './vscodeFileStore';
import { EncodingFileStore } from '../core/files/encodingFileStore';
import type { Lang } from '../core/lang';

export interface ComposeOptions {
  roots: string[];
  storageDir: string; // context.globalStorageUri.fsPath
  /** The lock folder of earlier versions, cleaned at start (locks now live beside the files, core/files/lockDir.ts). */
  lockDir?: string;
  capacity: number;
  ttlDays: number;
  thresholdBytes: number;
  saveAfterEdit(): SaveAfterEdit;
  /** Tool descriptions and messages: 'zh' when VS Code runs in Chinese. */
  lang: Lang;
  log: LogOutputChannel;
  /** be-read's default mode, the auto threshold, page and overview budgets (settings `betterEditTools.context.*`). */
  context?: ContextModeSettings;
  /** The host feeds ContextService.invalidate from VS Code's file watcher: no watcher of our own, no mtime sweep. */
  watched?: boolean;
  /** `.git` paths the tools may write anyway (setting `betterEditTools.allowWrite`); none by default. */
  allowWrite?: readonly string[];
}

export interface Composition {
  deps: ServerDeps;
  chips: ChipStore;
  /** Undefined with no folder open. */
  context?: ContextService;
  /** The edit history (the Agent Edits view); undefined with no folder open. */
  history?: HistoryStore;
  close(): Promise<void>;
}

/** Chips live in one directory for all windows of the user; the store is safe to share between processes. */
export function chipDirOf(storageDir: string): string {
  return path.join(storageDir, 'chips');
}

/** Edits with no folder open: every call explains how to recover instead of guessing a root. */
const NO_FOLDER = new Proxy({} as EditsPort, {
  get: () => async () => {
    throw new ToolError('outside_roots', 'No folder is open in VS Code, so there is no root to edit in. Ask the user to open a folder (File > Open Folder) and retry.');
  },
});

export async function compose(o: ComposeOptions): Promise<Composition> {
  const chipOptions = {
    chipCapacity: o.capacity,
    chipTtlMs: o.ttlDays > 0 ? o.ttlDays * 24 * 3600 * 1000 : undefined,
    chipThresholdBytes: o.thresholdBytes,
  };
  const warn = (m: string) => o.log.warn(m);
  if (o.roots.length === 0) {
    const signer = await ChipSigner.fromKeyFile(chipKeyFile(chipDirOf(o.storageDir))); // the same key as with a folder open
    const chips = await ChipStore.open({ dir: chipDirOf(o.storageDir), capacity: chipOptions.chipCapacity, ttlMs: chipOptions.chipTtlMs, thresholdBytes: chipOptions.chipThresholdBytes, log: warn, signer });
    return { deps: { edits: NO_FOLDER, chips }, chips, close: async () => undefined };
  }
  // edit locks shared with stdio servers of this user (another agent's CLI may edit the same files)
  const disk = new NodeFileStore({ lockDir: o.lockDir ?? defaultLockDir(process.env, process.platform, os.homedir()) });
  // legacy encodings decoded for the tools, written back in their own bytes (an open document's encoding wins)
  const files = new VscodeFileStore(new EncodingFileStore(disk, vscodeEncodingFor), { saveAfterEdit: o.saveAfterEdit, log: o.log });
  const services = await createServices({
    roots: o.roots,
    chipDir: chipDirOf(o.storageDir),
    historyDir: workspaceHistoryDir(path.join(o.storageDir, 'history'), o.roots),
    allowWrite: o.allowWrite,
    files,
    diskFiles: disk,
    ...chipOptions,
    lang: o.lang,
    log: warn,
    // Context modes (be-overview, structure): tree-sitter where a grammar is bundled, VS Code's own document symbol
    // providers (whatever language extensions are installed) for the rest. VS Code's watcher replaces fs.watch.
    context: { settings: o.context, fallbackSymbols: new DocumentSymbolProvider(), watch: !o.watched },
  });
  // createServices composed the context service (context modes are on unless `context: false`).
  const context = services.context!;
  // VS Code's file watcher invalidates changed paths: warm overviews skip the mtime sweep of every file.
  if (o.watched) context.setWatched(true);
  return { deps: services.deps, chips: services.chips, context, history: services.history, close: () => services.close() };
}

/** What outlives a recomposition: the host's own, given to every composition's sessions alike. */
export interface HostPorts {
  memory?: MemoryPort;
  recall?: RecallPort;
  chipFormat?: () => ChipFormat;
}

/**
 * The ServerDeps every session gets, built once: the composed ports read the current composition at each use
 * (sessions outlive a recomposition), the host's ports are its own for the extension's lifetime.
 */
export function liveDeps(current: () => Composition, host: HostPorts): ServerDeps {
  return {
    get edits() {
      return current().deps.edits;
    },
    get chips() {
      return current().deps.chips;
    },
    get apply() {
      return current().deps.apply;
    },
    get context() {
      return current().deps.context;
    },
    get authors() {
      return current().deps.authors;
    },
    memory: host.memory,
    recall: host.recall,
    chipFormat: host.chipFormat,
  };
}
