import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Clock } from '../../../src/core/clock';

const made: string[] = [];

/** A new folder under the system's temp folder (its real path), removed by removeTempDirs. */
export async function tempDir(prefix = 'bet-chips-'): Promise<string> {
  const dir = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), prefix)));
  made.push(dir);
  return dir;
}

/** Removes the folders tempDir made (an afterEach of each file that uses it: a test run leaves nothing in /tmp). */
export async function removeTempDirs(): Promise<void> {
  await Promise.all(made.splice(0).map((d) => fs.rm(d, { recursive: true, force: true })));
}

export class FakeClock implements Clock {
  constructor(public ms = Date.UTC(2026, 0, 2, 3, 4, 5)) {}
  now(): number {
    return this.ms;
  }
  advance(ms: number): void {
    this.ms += ms;
  }
}
