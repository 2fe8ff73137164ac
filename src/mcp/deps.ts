/**
 * What the MCP layer needs from core, as structural ports: the real EditService / ChipStore satisfy them,
 * and the VS Code host can compose its own (different FileStore) without touching this layer.
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
import type { ChipSink } from '../core/chips/types';

export interface EditsPort {
  read(args: ReadArgs): Promise<object>;
  replace(args: ReplaceArgs): Promise<object>;
  insert(args: InsertArgs): Promise<object>;
  delete(args: DeleteArgs): Promise<object>;
  write(args: WriteArgs): Promise<object>;
  funcRange(args: LineArgs): Promise<object>;
  tagRange(args: LineArgs): Promise<object>;
  balance(args: BalanceArgs): Promise<object>;
  insertChip(args: InsertChipArgs): Promise<object>;
  trx(args: TrxArgs): Promise<object>;
}

/** The chip store as the middleware and be-chip see it (ChipStore implements it). */
export interface ChipsPort extends ChipSink {
  clear?(): Promise<unknown>;
}

export interface ServerDeps {
  edits: EditsPort;
  chips: ChipsPort;
  /** Other helpers add their services here (context, memory); tool modules read what they need. */
  [service: string]: unknown;
}
