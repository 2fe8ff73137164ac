/**
 * Composes the core for a host that edits files on disk (the stdio CLI, tests, benches).
 * The VS Code host composes its own (a FileStore over documents) and passes the same ServerDeps shape.
 */
import * as path from 'node:path';
import { ChipStore } from '../core/chips/store';
import type { Clock } from '../core/clock';
import { EditService, type EditLimits } from '../core/edits/service';
import type { FileStore } from '../core/files/fileStore';
import { NodeFileStore } from '../core/files/nodeFileStore';
import { Sandbox } from '../core/files/sandbox';
import { HistoryStore, workspaceHistoryDir } from '../core/history/store';
import type { ServerDeps } from './deps';

export interface ServicesOptions {
  /** Absolute, real directories; relative tool paths are taken from the first. */
  roots: string[];
  /** Absolute; use workspaceChipDir() so workspaces are not mixed. */
  chipDir: string;
  /** Absolute directory for be-trx snapshots. */
  historyDir: string;
  files?: FileStore;
  clock?: Clock;
  chipCapacity?: number;
  chipTtlMs?: number;
  chipThresholdBytes?: number;
  limits?: Partial<EditLimits>;
  lang?: 'en' | 'zh';
  log?: (message: string) => void;
}

export interface Services {
  deps: ServerDeps;
  sandbox: Sandbox;
  files: FileStore;
  chips: ChipStore;
  history: HistoryStore;
  edits: EditService;
  close(): Promise<void>;
}

/** `<cache>/better-edit-tools-mcp/history/<workspace key>`, next to the chips directory. */
export function defaultHistoryDir(chipBase: string, roots: readonly string[]): string {
  return workspaceHistoryDir(path.join(path.dirname(chipBase), 'history'), roots);
}

export async function createServices(opts: ServicesOptions): Promise<Services> {
  const sandbox = new Sandbox(opts.roots);
  const files = opts.files ?? new NodeFileStore();
  const chips = await ChipStore.open({
    dir: opts.chipDir,
    capacity: opts.chipCapacity,
    ttlMs: opts.chipTtlMs,
    thresholdBytes: opts.chipThresholdBytes,
    clock: opts.clock,
    log: opts.log,
  });
  const history = await HistoryStore.open({ dir: opts.historyDir, files, clock: opts.clock, log: opts.log });
  const edits = new EditService({
    files,
    sandbox,
    chips,
    history,
    clock: opts.clock,
    lang: opts.lang,
    limits: opts.limits,
  });
  return {
    deps: { edits, chips },
    sandbox,
    files,
    chips,
    history,
    edits,
    close: async () => {},
  };
}
