/**
 * The landed-edit log's appender (landedLog.ts): one descriptor kept open between appends, and no line lost when the
 * log at the name is replaced (a trim here or in another process), removed, or grows past its bound.
 */
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { LANDED_LOG, LandedLogAppender, type LandedLine } from '../../../src/core/history/node/landedLog';

const line = (id: string): LandedLine => ({ ws: 'w', id, seq: 1, file: '/x/a.ts', tool: 'be-insert', t: 1 });
const ids = (p: string) => fs.readFileSync(p, 'utf8').split('\n').filter(Boolean).map((l) => (JSON.parse(l) as { id: string }).id);
const posix = process.platform !== 'win32';

describe('core/history: the landed-edit log appender', () => {
  let dir: string;
  let log: string;
  let appender: LandedLogAppender;
  beforeEach(() => {
    dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'be-landed-')));
    log = path.join(dir, LANDED_LOG);
    appender = new LandedLogAppender(dir);
  });
  afterEach(async () => {
    await appender.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('appends in order through one open of the log (a write and a stat each after it), private', async () => {
    const opens: string[] = [];
    const open = fs.promises.open;
    fs.promises.open = ((p: fs.PathLike, ...rest: unknown[]) => (opens.push(String(p)), (open as (...a: unknown[]) => unknown)(p, ...rest))) as typeof open;
    try {
      await Promise.all(Array.from({ length: 20 }, (_, i) => appender.append([line(`e${i}`)])));
    } finally {
      fs.promises.open = open;
    }
    assert.deepEqual(ids(log), Array.from({ length: 20 }, (_, i) => `e${i}`));
    assert.equal(opens.length, posix ? 1 : 20);
    if (posix) assert.equal(fs.statSync(log).mode & 0o777, 0o600);
  });

  it('a log replaced at its name (another process trimmed it) or removed: the next line lands in the log now there', async () => {
    await appender.append([line('a')]);
    fs.writeFileSync(`${log}.new`, `${JSON.stringify(line('kept'))}\n`);
    fs.renameSync(`${log}.new`, log);
    await appender.append([line('b')]);
    assert.deepEqual(ids(log), ['kept', 'b']);
    fs.rmSync(log);
    await appender.append([line('c')]);
    assert.deepEqual(ids(log), ['c']);
  });

  it('past its bound it is trimmed to its last lines, and appends go on into the trimmed log', async () => {
    const many = Array.from({ length: 3000 }, (_, i) => line(`m${i}`));
    await appender.append(many);
    await appender.append([line('after')]);
    const kept = ids(log);
    assert.ok(fs.statSync(log).size < 256 * 1024, String(fs.statSync(log).size));
    assert.equal(kept.at(-1), 'after');
    assert.equal(kept.at(-2), 'm2999');
  });

  it('a link or a folder at the log\'s name is refused, each time (nothing kept open), and never followed', async function () {
    if (!posix) this.skip();
    const outside = path.join(dir, 'outside.txt');
    fs.writeFileSync(outside, '');
    fs.symlinkSync(outside, log);
    await assert.rejects(appender.append([line('x')]));
    await assert.rejects(appender.append([line('y')]));
    assert.equal(fs.readFileSync(outside, 'utf8'), '');
    fs.rmSync(log);
    fs.mkdirSync(log);
    await assert.rejects(appender.append([line('z')]));
    fs.rmdirSync(log);
    await appender.append([line('ok')]);
    assert.deepEqual(ids(log), ['ok']);
  });

  it('close lets the descriptor go; a later append opens the log again', async function () {
    if (process.platform !== 'linux') this.skip();
    const openFds = () => fs.readdirSync('/proc/self/fd').filter((fd) => {
      try {
        return fs.readlinkSync(`/proc/self/fd/${fd}`) === log;
      } catch {
        return false;
      }
    }).length;
    await appender.append([line('a')]);
    assert.equal(openFds(), 1);
    await appender.close();
    assert.equal(openFds(), 0);
    await appender.append([line('b')]);
    assert.deepEqual(ids(log), ['a', 'b']);
  });
});
