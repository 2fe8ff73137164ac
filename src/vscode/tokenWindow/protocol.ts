/**
 * The Token Window's postMessage protocol, both directions. Pure data: the webview script
 * (media/tokenWindow/main.js) mirrors these shapes.
 */
import type { MemoryStats, MessageKind, Priority } from '../../core/memory/types';
import type { SessionInfo } from '../../core/memory/node/registry';

export interface MessageView {
  id: string;
  kind: MessageKind;
  priority: Priority;
  pinned: boolean;
  tokens: number;
  time: number;
  /** First ~120 characters, one line. */
  head: string;
  refs: string[];
  tool?: string;
  status?: 'ok' | 'error';
  pairId?: string;
}

export interface FingerprintView {
  id: string;
  text: string;
  evictedAt: number;
}

export interface ChartPoint {
  t: number;
  used: number;
  /** Messages evicted by this change (eviction mark on the chart). */
  evicted: number;
}

/** Host → webview: the whole state of one session (on ready, on session switch). */
export interface InitMessage {
  type: 'init';
  sessionId: string | undefined;
  sessions: SessionInfo[];
  stats: MemoryStats | undefined;
  messages: MessageView[];
  summary: string;
  fingerprints: FingerprintView[];
  chart: ChartPoint[];
  now: number;
}

/** Host → webview: one change of the shown session, as a delta. */
export interface DeltaMessage {
  type: 'delta';
  sessionId: string;
  added?: MessageView[];
  evicted?: string[];
  updated?: MessageView[];
  fingerprints?: FingerprintView[];
  summary?: string;
  cleared?: boolean;
  stats: MemoryStats;
  point: ChartPoint;
  now: number;
}

/** Host → webview: the session list changed. */
export interface SessionsMessage {
  type: 'sessions';
  sessions: SessionInfo[];
  sessionId: string | undefined;
}

/** Host → webview: an action failed (shown inline, not as a modal). */
export interface ErrorMessage {
  type: 'error';
  message: string;
}

/** One @better-edit turn as the Token Window lists it: the prompt really sent against the model's budget. */
export interface TurnView {
  turn: number;
  model: string;
  query: string;
  /** Largest prompt of the turn's requests (our exact count; the model's when it counted). */
  peakTokens: number;
  limit: number;
  maxInputTokens: number;
  reserveTokens: number;
  requests: number;
  entered: number;
  enteredTokens: number;
  slidOut: { id: string; kind: string; tokens: number; reason: string }[];
  recalled: string[];
  error?: string;
  done: boolean;
}

/** Host → webview: the chat turns of the shown session (participant sessions only). */
export interface TurnsMessage {
  type: 'turns';
  sessionId: string;
  turns: TurnView[];
}

export type HostToWebview = InitMessage | DeltaMessage | SessionsMessage | ErrorMessage | TurnsMessage;

export type WebviewToHost =
  | { type: 'ready' }
  | { type: 'selectSession'; sessionId: string }
  | { type: 'pin' | 'unpin' | 'evict'; id: string }
  | { type: 'setPriority'; id: string; priority: Priority }
  | { type: 'setBudget'; maxTokens: number };
