/** The one folder watcher (src/core/files/dirWatch.ts), on a real temp folder: debounced, filtered, closed by dispose. */
import assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { watchDir } from '../../../src/core/files/dirWatch';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Resolves when `cond()` holds, polling; fails after `ms`. */
async function until(cond: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('timed out');
    await sleep(10);
  }
}

describe('core/files/dirWatch', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'be-dirwatch-'));
  });
  afterEach(() => fs.rm(dir, { recursive: true, force: true }));

  it('a burst of writes is one call after the quiet time', async () => {
    let calls = 0;
    const w = watchDir(dir, () => calls++, { debounceMs: 80 });
    try {
      for (let i = 0; i < 5; i++) await fs.writeFile(path.join(dir, `f${i}`), 'x');
      await until(() => calls > 0);
      await sleep(250);
      assert.equal(calls, 1);
    } finally {
      w.dispose();
    }
  });

  it('names the filter refuses wake nobody; accepted ones do', async () => {
    let calls = 0;
    const w = watchDir(dir, () => calls++, { debounceMs: 30, accept: (n) => n.endsWith('.json') });
    try {
      await fs.writeFile(path.join(dir, 'x.tmp'), 'x');
      await fs.writeFile(path.join(dir, '.lock'), 'x');
      await sleep(200);
      assert.equal(calls, 0);
      await fs.writeFile(path.join(dir, 'c.json'), '{}');
      await until(() => calls === 1);
    } finally {
      w.dispose();
    }
  });

  it('after dispose no call comes, even for an event already debouncing', async () => {
    let calls = 0;
    const w = watchDir(dir, () => calls++, { debounceMs: 100 });
    await fs.writeFile(path.join(dir, 'a'), 'x');
    await sleep(20);
    w.dispose();
    await fs.writeFile(path.join(dir, 'b'), 'x');
    await sleep(300);
    assert.equal(calls, 0);
  });

  it('a folder that cannot be watched is reported, not thrown, and the handle disposes', () => {
    const errors: string[] = [];
    const w = watchDir(path.join(dir, 'missing'), () => undefined, { onError: (m) => errors.push(m) });
    assert.equal(errors.length, 1);
    assert.match(errors[0]!, /cannot watch .*missing/);
    w.dispose();
  });
});
