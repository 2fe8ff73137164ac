import { strict as assert } from 'node:assert';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { writeFileAtomic } from '../../../src/core/files/atomicWrite';
import { createStateDir } from '../../../src/core/files/stateDir';
import { stateTempPath, tempOwner } from '../../../src/core/files/tempFiles';
import { ToolError } from '../../../src/core/errors';

describe('core/files state directories and state files', () => {
  let tmp: string;
  beforeEach(async () => {
    tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'bet-statedir-'));
  });
  afterEach(async () => {
    await fs.rm(tmp, { recursive: true, force: true });
  });

  it('creates a missing state directory private (0700), and refuses a relative one with what was expected', async () => {
    const dir = path.join(tmp, 'a', 'chips');
    await createStateDir(dir, 'chip');
    if (process.platform !== 'win32') assert.equal((await fs.stat(dir)).mode & 0o777, 0o700);
    await assert.rejects(createStateDir('rel/chips', 'chip'), (e: unknown) => e instanceof ToolError && e.code === 'invalid_argument' && /chip directory must be an absolute path/.test(e.message));
    await fs.writeFile(path.join(tmp, 'file'), 'x');
    await assert.rejects(createStateDir(path.join(tmp, 'file', 'sub'), 'snapshot'), (e: unknown) => e instanceof ToolError && e.code === 'io' && /Cannot create the snapshot directory/.test(e.message));
  });

  it('an atomic state write lands whole, 0600, and leaves no temp; state temps keep the .tmp- form the stores sweep', async () => {
    const file = path.join(tmp, 'chip-abc.json');
    await writeFileAtomic(file, '{"a":1}', { mode: 0o600, fsync: true });
    assert.equal(await fs.readFile(file, 'utf8'), '{"a":1}');
    if (process.platform !== 'win32') assert.equal((await fs.stat(file)).mode & 0o777, 0o600);
    assert.deepEqual(await fs.readdir(tmp), ['chip-abc.json']);
    const t = path.basename(stateTempPath(file));
    assert.match(t, /^\.tmp-chip-abc\.json\.\d+\.[0-9a-f]{8}$/);
    assert.equal(tempOwner(t), undefined); // not a workspace temp: the workspace sweep leaves it alone
  });
});
