/**
 * Whether the server has a tool call in flight, as a CallObserver: background work (the tokenizer's ranks, the
 * memory's records) waits for `whenIdle` between its slices, so a call is never slowed down by slices taking turns
 * with its own steps.
 */
import type { CallObserver } from './types';

export interface IdleGate extends CallObserver {
  /** Resolves at once when no call is in flight, else when the last one in flight has answered. */
  whenIdle(): Promise<void>;
}

export function idleGate(): IdleGate {
  let inFlight = 0;
  let waiters: (() => void)[] = [];
  return {
    onToolCall() {
      inFlight++;
    },
    onToolResult() {
      inFlight = Math.max(0, inFlight - 1);
      if (inFlight > 0) return;
      const ready = waiters;
      waiters = [];
      // after the response went out (the SDK sends it right after the result is reported)
      setImmediate(() => ready.forEach((r) => r()));
    },
    whenIdle() {
      return inFlight === 0 ? Promise.resolve() : new Promise<void>((resolve) => waiters.push(resolve));
    },
  };
}
