/**
 * Composes the core for a host that edits files on disk (the stdio CLI, tests, benches).
 * The VS Code host composes its own (a FileStore over documents) and passes the same ServerDeps shape.
 */
import * as path from 'node:path';
import { ChipStore } from '../core/chips/node/store';
import { ChipSigner } from '../core/chips/node/integrity';
import type { Clock } from '../core/clock';
import { DEFAULT_LIMITS, EditService, type EditLimits } from '../core/edits/service';
import { ApplyJournal } from '../core/edits/apply/node/journal';
import { BatchEditor } from '../core/edits/apply/service';
import type { FileStore } from '../core/files/fileStore';
import { NodeFileStore } from '../core/files/nodeFileStore';
import { EncodingFileStore, type EncodingResolver } from '../core/files/encodingFileStore';
import { NotifyingFileStore } from '../core/files/notifyingFileStore';
import { Sandbox } from '../core/files/sandbox';
import { HistoryStore, workspaceHistoryDir } from '../core/history/node/store';
import { EditAuthors } from '../core/history/author';
import { ContextService, type ContextSettings } from '../core/context/node/service';
import type { SymbolProvider } from '../core/context/types';
import { treeSitterSymbols } from '../core/context/structure';
import { OutlinePool } from '../core/context/node/outlinePool';
import { RecordsPool } from '../core/context/node/recordsPool';
import { grammarsBeside, TreeSitterParsers } from '../core/context/node/treeSitter';
import { RootWatcher } from '../core/context/node/rootWatcher';
import { getTokenizer } from '../core/memory/node/tokenizer';
import type { ChipFormat } from '../core/chips/types';
import type { MemoryPort, RecallPort, ServerDeps } from './deps';

export interface ServicesOptions {
  /** Absolute, real directories; relative tool paths are taken from the first. */
  roots: string[];
  /** Absolute: one per workspace from the CLI (workspaceChipDir()), one for all windows in VS Code (globalStorage/chips). */
  chipDir: string;
  /** Absolute directory for be-trx snapshots. */
  historyDir: string;
  /** Globs (gitignore syntax) of `.git` paths the tools may write anyway (default none: `.git` is refused). */
  allowWrite?: readonly string[];
  /** Absolute directory of the be-apply journal (default: beside the history folder, `<historyDir>-journal`). */
  journalDir?: string;
  files?: FileStore;
  /**
   * The raw disk store under `files` (no decoding, no editor buffers), for crash recovery of be-apply batches.
   * Default: `files` when the default disk store is used, else a NodeFileStore on `lockDir`.
   */
  diskFiles?: FileStore;
  /**
   * The configured encoding of a path (CLI --encoding rules): legacy encodings are decoded for the tools and written
   * back in their own bytes by the default store. Ignored when `files` is given (the host wraps its own).
   */
  encodingFor?: EncodingResolver;
  /**
   * Given: the default disk store locks edits across processes (a lock file beside each edited file) and clears
   * dead owners' locks left in this folder of earlier versions (core/files/lockDir.ts). Without it, edits lock
   * per process only.
   */
  lockDir?: string;
  clock?: Clock;
  chipCapacity?: number;
  chipTtlMs?: number;
  chipThresholdBytes?: number;
  /** Read every chip at composition (default true); false: at first use, or `chips.warm()` (the stdio CLI, at idle). */
  scanChipsAtOpen?: boolean;
  /**
   * The key that signs chips (core/chips/node/integrity.ts), e.g. from VS Code's SecretStorage. Default: a 0600 key
   * file beside the chip directory (chipKeyFile()), created on first use.
   */
  chipKey?: Uint8Array;
  /** Where the chip key file is (default chipKeyFile(chipDir)); the CLI keeps one per user in its cache folder. */
  chipKeyPath?: string;
  limits?: Partial<EditLimits>;
  lang?: 'en' | 'zh';
  log?: (message: string) => void;
  /**
   * Context modes (be-read `mode`, be-overview, betools:// resources). Default: a ContextService with the
   * settings the VS Code host uses and a recursive file watcher on each root. `false` leaves deps.context unset
   * (a host that composes its own).
   */
  context?: false | ContextOptions;
  /** The sessions' ChatMemory (be-memory, be-overview pin); absent: those say there is none. */
  memory?: MemoryPort;
  /** The archive of evicted messages (be-memory recall). */
  recall?: RecallPort;
  /** be-insert-chip's format when a call names none (default raw). */
  chipFormat?: () => ChipFormat;
}

export interface ContextOptions {
  settings?: Partial<ContextSettings>;
  /** Symbols for languages without a tree-sitter grammar (VS Code: the document symbol providers). */
  fallbackSymbols?: SymbolProvider;
  /**
   * Watch the roots (src/core/context/node/rootWatcher.ts: the walker's skip lists and .gitignore rules) and tell the
   * context service which paths changed, so a warm overview re-reads only those instead of stat-ing every file.
   * Default true. When watching fails (ENOSPC: out of inotify watches), overviews fall back to mtime checks.
   */
  watch?: boolean;
}


export interface Services {
  deps: ServerDeps;
  sandbox: Sandbox;
  /** The store every tool writes through; it announces each path written or removed. */
  files: NotifyingFileStore;
  chips: ChipStore;
  history: HistoryStore;
  edits: EditService;
  apply: BatchEditor;
  /** Undefined when created with `context: false`. */
  context?: ContextService;
  /** True while a file watcher feeds the context service (false: overviews check mtimes). */
  watching: boolean;
  /** The watcher, once the first overview started it (undefined before, or with `watch: false`). */
  watcher?: RootWatcher;
  close(): Promise<void>;
}

/** `<cache>/better-edit-tools-mcp/history/<workspace key>`, next to the chips directory. */
export function defaultHistoryDir(chipBase: string, roots: readonly string[]): string {
  return workspaceHistoryDir(path.join(path.dirname(chipBase), 'history'), roots);
}

/**
 * `<chip dir>/../chip-hmac.key`: for a chip dir that is one workspace's folder inside our own state folder
 * (`…/chips/<workspace key>`, VS Code's `globalStorage/chips`). A chip dir chosen by the user has no parent of
 * ours: the CLI passes `chipKeyPath` (userChipKeyFile) instead.
 */
export function chipKeyFile(chipDir: string): string {
  return path.join(path.dirname(chipDir), 'chip-hmac.key');
}

/** `<cache>/better-edit-tools-mcp/chips/chip-hmac.key`: the CLI's one key per user, whatever --chip-dir says. */
export function userChipKeyFile(chipBase: string): string {
  return path.join(chipBase, 'chip-hmac.key');
}

export async function createServices(opts: ServicesOptions): Promise<Services> {
  const sandbox = new Sandbox(opts.roots, { allowWrite: opts.allowWrite });
  const journal = new ApplyJournal(opts.journalDir ?? `${opts.historyDir}-journal`);
  // a dead writer's temps that a journal names are kept for the recovery that finishes its batch
  const disk = opts.diskFiles ?? new NodeFileStore({ lockDir: opts.lockDir, keepTempsOf: (o) => journal.hasJournalOf(o) });
  const files = new NotifyingFileStore(opts.files ?? new EncodingFileStore(disk, opts.encodingFor), (e) =>
    opts.log?.(`a listener of file changes failed: ${e instanceof Error ? e.message : String(e)}`),
  );
  // be-apply batches a crashed server left half done: finished or undone before anything else edits
  await journal
    .recover({ files: disk, sandbox, log: opts.log })
    .then((r) => (r.completed + r.undone > 0 ? opts.log?.(`be-apply recovery: ${r.completed} batch(es) completed, ${r.undone} undone`) : undefined))
    .catch((e: unknown) => opts.log?.(`be-apply recovery failed: ${(e as Error).message}`));
  // locks and temp files left by crashed servers (bounded work; a failure only leaves them for the next writer)
  await files.recover?.().catch((e: unknown) => opts.log?.(`recovering after crashed writers failed: ${(e as Error).message}`));
  const chips = await ChipStore.open({
    dir: opts.chipDir,
    capacity: opts.chipCapacity,
    ttlMs: opts.chipTtlMs,
    thresholdBytes: opts.chipThresholdBytes,
    scanAtOpen: opts.scanChipsAtOpen,
    clock: opts.clock,
    log: opts.log,
    signer: opts.chipKey ? ChipSigner.fromKey(opts.chipKey) : await ChipSigner.fromKeyFile(opts.chipKeyPath ?? chipKeyFile(opts.chipDir)),
  });
  const authors = new EditAuthors();
  // the grammars in `wasm/` beside the bundle (or node_modules, run from source), shared by structure and function ranges
  const parsers = new TreeSitterParsers(grammarsBeside(__dirname));
  // Outlines and function ranges parse on worker threads: a big file's parse never holds the event loop.
  const outlines = new OutlinePool({ grammarsDir: __dirname });
  // a cold overview of many files describes them on this thread and one worker at once (started on first use)
  const describer = new RecordsPool();
  // its workers start on the first outline, once an overview has answered, or at the stdio CLI's first idle moment
  // (ContextService.warmOutlines): never at composition, where every window of the extension host would pay for
  // workers it may never use, and where they slowed the CLI's first answers
  const history = await HistoryStore.open({ dir: opts.historyDir, files, sandbox, clock: opts.clock, log: opts.log, authors });
  const edits = new EditService({
    files,
    sandbox,
    chips,
    history,
    clock: opts.clock,
    lang: opts.lang,
    limits: opts.limits,
    // Function ranges from tree-sitter where a grammar is bundled (unless context modes are off).
    symbols: opts.context === false ? undefined : treeSitterSymbols(outlines),
  });
  const apply = new BatchEditor({
    files,
    sandbox,
    journal,
    viewed: edits.viewed,
    history,
    lang: opts.lang,
    maxFileBytes: { ...DEFAULT_LIMITS, ...opts.limits }.maxFileBytes,
    maxAnalyzeBytes: { ...DEFAULT_LIMITS, ...opts.limits }.maxAnalyzeBytes,
  });
  let context: ContextService | undefined;
  let watcher: RootWatcher | undefined;
  let closed = false;
  if (opts.context !== false) {
    const co = opts.context ?? {};
    context = new ContextService({
      sandbox,
      files,
      fallbackSymbols: co.fallbackSymbols,
      settings: co.settings,
      viewed: edits.viewed,
      editedIndex: edits.editedIndex,
      tokenizer: getTokenizer(),
      parsers,
      outlines,
      describer,
    });
    // Every write through the store (whichever argument named the file) reaches the next overview at once,
    // before the tool returns, without waiting for a watcher's event (or when there is none).
    const ctx = context;
    files.onDidChange((change) => ctx.invalidate(change.path));
    // Started with the first overview (the cold walk), not at startup: a server that only edits pays nothing.
    if (co.watch !== false) {
      ctx.whenFirstMapped(() => {
        if (!closed) watcher = new RootWatcher(sandbox.roots, ctx, opts.log);
      });
    }
  }
  const deps: ServerDeps = { edits, chips, apply, authors, context, memory: opts.memory, recall: opts.recall, chipFormat: opts.chipFormat };
  return {
    deps,
    sandbox,
    files,
    chips,
    history,
    edits,
    apply,
    context,
    get watching() {
      return watcher?.watching === true && context?.watched === true;
    },
    get watcher() {
      return watcher;
    },
    close: async () => {
      closed = true;
      await watcher?.close();
      context?.setWatched(false);
      await Promise.all([outlines.close(), describer.close()]);
      await history.close();
    },
  };
}
