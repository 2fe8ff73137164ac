import { strict as assert } from 'node:assert';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ChatMemory } from '../../../src/core/memory/chatMemory';
import { TurnLog, turnsFileName } from '../../../src/core/memory/node/turnLog';
import { memoryDeps } from './memoryDeps';

describe('core/memory TurnLog', () => {
  it('prune drops the turns and files of sessions the registry no longer holds, and keeps the live ones', async () => {
    const dir = path.join(await fs.mkdtemp(path.join(os.tmpdir(), 'bet-turns-')), 'turns');
    try {
      const log = await TurnLog.open(dir);
      for (const id of ['s1', 's2', 's3']) log.begin(id, new ChatMemory({}, memoryDeps), 'model', `query of ${id}`, Date.now()).finish();
      await log.flush();
      assert.deepEqual((await fs.readdir(dir)).sort(), ['s1', 's2', 's3'].map(turnsFileName).sort());
      await log.prune(['s2']);
      assert.deepEqual(await fs.readdir(dir), [turnsFileName('s2')]);
      assert.deepEqual(log.sessionIds(), ['s2']);
      const reopened = await TurnLog.open(dir);
      assert.deepEqual(reopened.sessionIds(), ['s2'], 'a restart sees only what was kept');
    } finally {
      await fs.rm(path.dirname(dir), { recursive: true, force: true });
    }
  });
});
