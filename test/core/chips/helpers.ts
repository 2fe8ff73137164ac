import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Clock } from '../../../src/core/clock';

export async function tempDir(prefix = 'bet-chips-'): Promise<string> {
  return fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), prefix)));
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
