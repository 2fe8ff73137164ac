/** Time as a port, so stores and memory can be tested with a fake clock. */
export interface Clock {
  now(): number; // milliseconds since the epoch
}
export const systemClock: Clock = { now: () => Date.now() };
