/**
 * What the MCP layer needs from core, as typed ports: the real EditService, ChipStore, ContextService and
 * MemoryRegistry satisfy them structurally, and each host (src/mcp/services.ts, src/vscode/compose.ts, src/cli)
 * builds one ServerDeps and never changes it afterwards. A port a host does not provide is absent; a tool checks
 * for it (`if (!services.memory)`) and says what is missing.
 */
import type {
  BalanceArgs,
  DeleteArgs,
  InsertArgs,
  InsertChipArgs,
  LineArgs,
  ReadArgs,
  ReplaceArgs,
  TrxArgs,
  WriteArgs,
} from '../core/edits/types';
import type { BalanceReport } from '../core/edits/balance';
import type { ApplyArgs } from '../core/edits/apply/service';
import type { ChipFormat, ChipSink } from '../core/chips/types';
import type { ContextReply, ContextSettings, OverviewReply, ReadRequest, StructureReply } from '../core/context/node/service';
import type { EditAuthor } from '../core/history/author';
import type { ChatMemory } from '../core/memory/chatMemory';
import type { RecalledMessage } from '../core/memory/node/recallStore';

export interface EditsPort {
  read(args: ReadArgs): Promise<object>;
  replace(args: ReplaceArgs): Promise<object>;
  insert(args: InsertArgs): Promise<object>;
  delete(args: DeleteArgs): Promise<object>;
  write(args: WriteArgs): Promise<object>;
  funcRange(args: LineArgs): Promise<object>;
  tagRange(args: LineArgs): Promise<object>;
  balance(args: BalanceArgs): Promise<BalanceReport>;
  insertChip(args: InsertChipArgs): Promise<object>;
  trx(args: TrxArgs): Promise<object>;
}

/** The chip store as the middleware and be-chip see it (ChipStore implements it). */
export interface ChipsPort extends ChipSink {
  clear?(): Promise<unknown>;
}

/** be-apply's batches (core/edits/apply/service.ts BatchEditor). */
export interface ApplyPort {
  apply(args: ApplyArgs): Promise<object>;
}

/** Context modes: be-read's pages and structure, be-overview, the betools:// resources (ContextService). */
export interface ContextPort {
  readonly settings: Pick<ContextSettings, 'pageTokens' | 'overviewBudget'>;
  readonly tokenizer: { count(text: string): number; ready?(): Promise<void> };
  read(req: ReadRequest): Promise<ContextReply>;
  overview(args: { path?: string; budget?: number; query?: string }): Promise<OverviewReply>;
  structure(file: string): Promise<StructureReply>;
}

/** The per-session ChatMemory of be-memory and be-overview's pinned index (MemoryRegistry). */
export interface MemoryPort {
  get(sessionId: string): ChatMemory;
}

/** The archive of evicted messages, for be-memory recall (RecallStore). */
export interface RecallPort {
  recall(sessionId: string, id: string): Promise<RecalledMessage | undefined>;
}

/** Runs a tool handler as its session, so edits record who made them (EditAuthors). */
export interface AuthorsPort {
  run<T>(author: EditAuthor, fn: () => Promise<T>): Promise<T>;
}

export interface ServerDeps {
  readonly edits: EditsPort;
  readonly chips: ChipsPort;
  /** Absent: be-apply explains that each file takes its own edit. */
  readonly apply?: ApplyPort;
  /** Absent: be-read pages as upstream does, be-overview and the resources are unavailable. */
  readonly context?: ContextPort;
  /** Absent (`--no-memory`): be-memory and be-overview `pin` explain that there is no chat memory. */
  readonly memory?: MemoryPort;
  /** Absent: be-memory recall reads only messages still in the window. */
  readonly recall?: RecallPort;
  readonly authors?: AuthorsPort;
  /**
   * The format of a be-insert-chip call that names none (VS Code: the `betterEditTools.chips.replayFormat` setting,
   * read at each call so a change applies at once). Absent: raw.
   */
  readonly chipFormat?: () => ChipFormat;
}
