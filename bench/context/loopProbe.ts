/**
 * The longest event-loop block while some work runs, from a 5 ms timer on the same loop: the longest gap between
 * two ticks beyond the interval (`wallMs`). On a shared, loaded machine a gap also holds the time the OS ran other
 * processes instead of this one, which no code of ours can shorten; so each gap is also measured in the main
 * thread's own CPU time (Linux: /proc/self/task/<pid>/stat, 10 ms resolution), and `blockMs` is the longest gap
 * counted as the smaller of the two: the time the loop was really busy. Elsewhere blockMs is wallMs.
 */
import { readFileSync } from 'node:fs';

const TICK_MS = 5;
const STAT = `/proc/self/task/${process.pid}/stat`;
const TICK_TO_MS = 10; // USER_HZ is 100 on Linux

/** The main thread's user + system CPU in ms, or undefined where /proc does not say. */
function mainThreadCpuMs(): number | undefined {
  try {
    const stat = readFileSync(STAT, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * TICK_TO_MS;
  } catch {
    return undefined;
  }
}

export interface LoopBlock {
  /** The longest gap, in the loop's busy time (see the module comment). */
  blockMs: number;
  /** The longest gap in wall time. */
  wallMs: number;
}

export function loopProbe(): { stop(): LoopBlock } {
  let last = performance.now();
  let lastCpu = mainThreadCpuMs();
  let wallMs = 0;
  let blockMs = 0;
  const sample = () => {
    const now = performance.now();
    const cpu = mainThreadCpuMs();
    const gap = Math.max(0, now - last - TICK_MS);
    // CPU ticks are 10 ms: one tick of slack either way
    const busy = cpu === undefined || lastCpu === undefined ? gap : Math.min(gap, Math.max(0, cpu - lastCpu - TICK_TO_MS));
    wallMs = Math.max(wallMs, gap);
    blockMs = Math.max(blockMs, busy);
    last = now;
    lastCpu = cpu;
  };
  const timer = setInterval(sample, TICK_MS);
  return {
    stop(): LoopBlock {
      clearInterval(timer);
      sample(); // a block still running when the work returned counts too
      return { blockMs, wallMs };
    },
  };
}
