/**
 * Whether the server has a tool call in flight, as a CallObserver: background work (the tokenizer's ranks, the
 * memory's records) waits for `whenIdle` between its slices, so a call is never slowed down by slices taking turns
 * with its own steps. With `quietMs`, idle also means no call for that long: an agent's calls come in bursts (a read,
 * then its edits), and a slice started in the gap between two of them delays the second one.
 */
import type { CallObserver } from './types';

export interface IdleGate extends CallObserver {
  /** Resolves when no call is in flight (and none ended within `quietMs`), at once if that holds now. */
  whenIdle(): Promise<void>;
  /** Counts as a call in flight until the returned function is called (the server's own start-up). */
  hold(): () => void;
}

export interface IdleGateOptions {
  /** How long after the last call (or hold) ended the gate stays closed; default 0. */
  quietMs?: number;
}

export function idleGate(opts: IdleGateOptions = {}): IdleGate {
  const quietMs = opts.quietMs ?? 0;
  let inFlight = 0;
  let lastEnd = -Infinity;
  let waiters: (() => void)[] = [];
  const begin = () => {
    inFlight++;
  };
  const end = () => {
    inFlight = Math.max(0, inFlight - 1);
    if (inFlight > 0) return;
    lastEnd = performance.now();
    const ready = waiters;
    waiters = [];
    // after the response went out (the SDK sends it right after the result is reported)
    setImmediate(() => ready.forEach((r) => r()));
  };
  return {
    onToolCall: begin,
    onToolResult: end,
    hold() {
      begin();
      let released = false;
      return () => {
        if (released) return;
        released = true;
        end();
      };
    },
    whenIdle() {
      return new Promise<void>((resolve) => {
        const check = () => {
          if (inFlight > 0) return void waiters.push(check);
          const left = lastEnd + quietMs - performance.now();
          if (left > 0) setTimeout(check, left).unref();
          else resolve();
        };
        check();
      });
    },
  };
}
