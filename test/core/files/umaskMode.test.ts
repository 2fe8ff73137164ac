import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

const REPO = path.resolve(__dirname, '../../..');

/** Runs `body` in a fresh process (the umask is read once per process) under `umask`. */
function underUmask(umask: string, body: string): void {
  const script = `
    const { NodeFileStore } = require(${JSON.stringify(path.join(REPO, 'src/core/files/nodeFileStore.ts'))});
    const { writeFileAtomic } = require(${JSON.stringify(path.join(REPO, 'src/core/files/atomicWrite.ts'))});
    (async () => { ${body} })().catch((e) => { console.error(e); process.exit(1); });`;
  const r = spawnSync('sh', ['-c', `umask ${umask} && exec "$0" --require tsx/cjs -e "$1"`, process.execPath, script], { cwd: REPO, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
}

// The edit's temp is created with the file's mode and chmod'ed only when the umask narrows it; state files
// (snapshots, chips) likewise: whatever the umask, the mode comes out exact.
describe('core/files modes under a narrowing umask', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'be-umask-')));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  for (const umask of ['022', '077', '277']) {
    it(`umask ${umask}: an edited file keeps its mode, a state file gets the one asked`, function () {
      this.timeout(30_000);
      const f = path.join(dir, 'a.txt');
      fs.writeFileSync(f, 'old\n');
      fs.chmodSync(f, 0o664);
      const state = path.join(dir, 'state.json');
      underUmask(umask, `
        await new NodeFileStore().write(${JSON.stringify(f)}, Buffer.from('new\\n'));
        await writeFileAtomic(${JSON.stringify(state)}, '{}', { mode: 0o600, fsync: false });`);
      assert.equal(fs.readFileSync(f, 'utf8'), 'new\n');
      assert.equal(fs.statSync(f).mode & 0o7777, 0o664);
      assert.equal(fs.statSync(state).mode & 0o7777, 0o600);
    });
  }
});
