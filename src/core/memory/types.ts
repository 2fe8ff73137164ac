/** The ChatMemory vocabulary: messages, fingerprints of what was evicted, stats and change events. */

export type MessageKind = 'user_query' | 'tool_call' | 'tool_result' | 'assistant_code' | 'assistant' | 'system' | 'note';
export type Priority = 'high' | 'medium' | 'low';
export type Role = 'system' | 'user' | 'assistant' | 'tool';

export const MESSAGE_KINDS: readonly MessageKind[] = ['user_query', 'tool_call', 'tool_result', 'assistant_code', 'assistant', 'system', 'note'];
export const PRIORITIES: readonly Priority[] = ['high', 'medium', 'low'];

/** A file (and optionally a 1-based inclusive line range) a message refers to. `all` = the `:ALL` form. */
export interface FileReference {
  path: string;
  start?: number;
  end?: number;
  all?: boolean;
}

export interface MemoryMessage {
  readonly id: string;
  /** Insertion order; ids are names, seq is what ordering uses. */
  readonly seq: number;
  role: Role;
  kind: MessageKind;
  priority: Priority;
  group?: string;
  readonly content: string;
  /** Exact token count of `content`, counted once on entry. */
  readonly tokens: number;
  readonly time: number;
  references: FileReference[];
  /** A tool_call's tool_result and vice versa: the two leave the window together. */
  pairId?: string;
  /** Tool name for tool_call / tool_result. */
  tool?: string;
  /** For tool results: whether the call failed. */
  status?: 'ok' | 'error';
  pinned: boolean;
}

export interface NewMessage {
  id?: string;
  role?: Role;
  kind: MessageKind;
  priority?: Priority;
  group?: string;
  content: string;
  references?: FileReference[];
  pairId?: string;
  tool?: string;
  status?: 'ok' | 'error';
  pinned?: boolean;
  /** Pre-counted tokens (e.g. counted asynchronously); otherwise the memory counts `content`. */
  tokens?: number;
  /** When it happened, if before it is added (a call recorded after its reply went out); never later than now. */
  time?: number;
}

/** What remains of an evicted message: structured facts that a summary cannot garble (ARCHITECTURE.md, ChatMemory M4). */
export interface Fingerprint {
  id: string;
  kind: MessageKind;
  priority: Priority;
  tool?: string;
  files: FileReference[];
  status?: 'ok' | 'error';
  /** Key identifiers found in the content (declared names, frequent code identifiers). */
  identifiers: string[];
  tokens: number;
  time: number;
  evictedAt: number;
  /** First words of the content. */
  head: string;
}

export interface MemoryStats {
  maxTokens: number;
  reserveTokens: number;
  /** maxTokens − reserveTokens: what history + summary may use. */
  usableTokens: number;
  /** Visible message tokens + summary tokens. */
  usedTokens: number;
  messageTokens: number;
  summaryTokens: number;
  /** usedTokens / usableTokens. */
  fill: number;
  messages: number;
  byPriority: Record<Priority, number>;
  byKind: Record<MessageKind, number>;
  /** Tokens of messages that are never evicted automatically (pinned or high priority). */
  protectedTokens: number;
  pinnedMessages: number;
  evictions: number;
  evictedTokens: number;
  /** Visible tokens exceed the usable budget because protected + recent messages alone do not fit. */
  overflow: boolean;
  warnings: string[];
}

/** One change, as a delta: enough for a view to update without asking for the whole state. */
export interface MemoryChange {
  added?: MemoryMessage[];
  /** Ids that left the window (automatic slide or explicit evict). */
  evicted?: string[];
  /** Fingerprints of the evicted ids. */
  fingerprints?: Fingerprint[];
  /** Messages whose pin or priority changed. */
  updated?: MemoryMessage[];
  budgetChanged?: boolean;
  summaryChanged?: boolean;
  cleared?: boolean;
  stats: MemoryStats;
}
