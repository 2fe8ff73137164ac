/**
 * be-apply recovery with journals as untrusted input (real files in temp dirs): planted journals naming files or
 * temps outside the roots read and remove nothing there, another root's journal is left in place for its own
 * server, a FIFO or a malformed journal never blocks or throws, a batch whose staged temps survived is finished, and
 * one killed while staging leaves no temp its staging journal does not name.
 */
import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { ApplyJournal } from '../../../src/core/edits/apply/node/journal';
import { isOwnTemp, parseJournal } from '../../../src/core/edits/apply/node/journalFormat';
import { NodeFileStore } from '../../../src/core/files/nodeFileStore';
import { currentOwner } from '../../../src/core/files/processIdentity';
import { Sandbox } from '../../../src/core/files/sandbox';
import { tempBaseName } from '../../../src/core/files/tempFiles';

const sha = (b: string | Uint8Array) => createHash('sha256').update(b).digest('hex');
const dead = async () => false;

describe('core/edits/apply journal recovery: journals are untrusted input', () => {
  let base: string;
  let root: string;
  let outside: string;
  let jdir: string;
  let files: NodeFileStore;
  let sandbox: Sandbox;
  let journal: ApplyJournal;
  const owner = currentOwner();

  beforeEach(async () => {
    base = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'bet-journal-')));
    root = path.join(base, 'ws');
    outside = path.join(base, 'outside');
    jdir = path.join(base, 'journal');
    await fs.mkdir(root);
    await fs.mkdir(outside);
    files = new NodeFileStore({ lockDir: path.join(base, 'locks') });
    sandbox = new Sandbox([root]);
    journal = new ApplyJournal(jdir);
  });
  afterEach(() => fs.rm(base, { recursive: true, force: true }));

  async function plant(entries: object[], id = 'abcdef012345'): Promise<string> {
    await fs.mkdir(jdir, { recursive: true });
    const file = path.join(jdir, `apply-${id}.json`);
    await fs.writeFile(file, JSON.stringify({ v: 1, id, owner, created_ms: Date.now(), files: entries }));
    return file;
  }
  const entry = (target: string, before: string | null, after: string, temp?: string) => ({
    target,
    ...(temp ? { temp } : {}),
    before_sha256: before === null ? null : sha(before),
    after_sha256: sha(after),
    offset: 0,
    inserted_length: after.length,
    removed_b64: Buffer.from(before ?? '').toString('base64'),
  });

  it('a temp outside the target folder, or a link in our temp-name form, is neither read nor removed', async () => {
    const secret = path.join(outside, 'secret.txt');
    await fs.writeFile(secret, 'SECRET\n');
    const target = path.join(root, 'a.txt');
    await fs.writeFile(target, 'a\n');
    const link = path.join(root, tempBaseName('b.txt', owner));
    await fs.symlink(secret, link);
    await fs.writeFile(path.join(root, 'b.txt'), 'b\n');
    const file = await plant([entry(target, 'a\n', 'SECRET\n', secret), entry(path.join(root, 'b.txt'), 'b\n', 'SECRET\n', link)]);
    const r = await journal.recover({ files, sandbox, isAlive: dead });
    assert.equal(r.completed, 0);
    assert.equal(await fs.readFile(secret, 'utf8'), 'SECRET\n', 'the outside file is still there, unchanged');
    assert.equal(await fs.readFile(target, 'utf8'), 'a\n');
    assert.equal(await fs.readFile(path.join(root, 'b.txt'), 'utf8'), 'b\n', 'no outside bytes copied in');
    assert.ok((await fs.lstat(link)).isSymbolicLink(), 'a link that is not our temp is left alone');
    await assert.rejects(fs.access(file), 'the journal of this root is handled (removed)');
  });

  it('a journal naming a file outside the roots is another root’s: left in place, nothing touched', async () => {
    const other = path.join(outside, 'x.txt');
    await fs.writeFile(other, 'x\n');
    const temp = path.join(outside, tempBaseName('x.txt', owner));
    await fs.writeFile(temp, 'X\n');
    const file = await plant([entry(other, 'x\n', 'X\n', temp)]);
    const logs: string[] = [];
    await journal.recover({ files, sandbox, isAlive: dead, log: (m) => logs.push(m) });
    await fs.access(file); // still there for the server of that root
    assert.equal(await fs.readFile(other, 'utf8'), 'x\n');
    assert.equal(await fs.readFile(temp, 'utf8'), 'X\n');
    assert.match(logs.join('\n'), /left for the server of its root/);
    // the server of that root finishes it
    const r = await journal.recover({ files, sandbox: new Sandbox([outside]), isAlive: dead });
    assert.equal(r.completed, 1);
    assert.equal(await fs.readFile(other, 'utf8'), 'X\n');
    await assert.rejects(fs.access(file));
    await assert.rejects(fs.access(temp));
  });

  it('malformed journals are left in place and never throw', async () => {
    await fs.mkdir(jdir, { recursive: true });
    const bodies = ['{', '[]', '{"v":1}', JSON.stringify({ v: 1, id: 'abcdef012345', owner: { pid: 'x' }, files: [] })];
    for (const [i, b] of bodies.entries()) await fs.writeFile(path.join(jdir, `apply-00000000000${i}.json`), b);
    await plant([{ target: 'relative.txt', after_sha256: sha('') }], '0000000000ff');
    const r = await journal.recover({ files, sandbox, isAlive: dead });
    assert.deepEqual(r, { completed: 0, undone: 0, skipped: [] });
    assert.equal((await fs.readdir(jdir)).length, bodies.length + 1);
  });

  it('a FIFO as a journal is not opened: recovery returns at once', async function () {
    if (process.platform === 'win32') this.skip();
    await fs.mkdir(jdir, { recursive: true });
    execFileSync('mkfifo', [path.join(jdir, 'apply-0123456789ab.json')]);
    const t0 = performance.now();
    await journal.recover({ files, sandbox, isAlive: dead });
    assert.ok(performance.now() - t0 < 2000);
  });

  it('finishes a batch whose staged temps all survived (renames after the first never ran)', async () => {
    const names = ['a.txt', 'b.txt', 'c.txt'];
    for (const n of names) await fs.writeFile(path.join(root, n), `${n} old\n`);
    const intent = await journal.intend(names.map((n) => path.join(root, n)));
    const staged = [];
    for (const [i, n] of names.entries()) {
      staged.push(await files.stage(path.join(root, n), [Buffer.from(`${n} new\n`)], { expectedContent: Buffer.from(`${n} old\n`), stageAs: intent.temps[i] }));
    }
    await intent.begin(staged);
    await staged[0].commit(); // the process dies here
    const r = await journal.recover({ files, sandbox, isAlive: dead });
    assert.equal(r.completed, 1);
    for (const n of names) assert.equal(await fs.readFile(path.join(root, n), 'utf8'), `${n} new\n`);
    assert.deepEqual((await fs.readdir(root)).sort(), names, 'no temp left');
    // the dead process's descriptors, closed as the kernel closes a killed process's (else GC closes them, with a warning)
    await Promise.all(staged.slice(1).map((s) => s.discard()));
  });

  it('a batch killed while staging: its staging journal names every temp before it exists; the next start removes them and nothing else', async () => {
    const names = ['a.txt', 'b.txt', 'c.txt'];
    for (const n of names) await fs.writeFile(path.join(root, n), `${n} old\n`);
    const intent = await journal.intend(names.map((n) => path.join(root, n)));
    const [journalName] = await fs.readdir(jdir);
    const named = JSON.parse(await fs.readFile(path.join(jdir, journalName), 'utf8')) as { files: { temp: string }[] };
    assert.deepEqual(named.files.map((f) => f.temp), intent.temps, 'named before any temp exists');
    assert.deepEqual((await fs.readdir(root)).sort(), names);
    // two of three staged, then the process dies
    const staged = [];
    for (const i of [0, 1]) staged.push(await files.stage(path.join(root, names[i]), [Buffer.from('new\n')], { expectedContent: Buffer.from(`${names[i]} old\n`), stageAs: intent.temps[i] }));
    assert.equal((await fs.readdir(root)).length, 5);
    // a planted staging journal naming a temp of our form in another folder: never removed
    const foreign = path.join(outside, tempBaseName('x.txt', owner));
    await fs.writeFile(foreign, 'keep');
    await fs.writeFile(path.join(jdir, 'apply-0000000000aa.json'), JSON.stringify({ v: 1, id: '0000000000aa', owner, created_ms: 1, staging: true, files: [{ target: path.join(root, 'x.txt'), temp: foreign }] }));
    const r = await journal.recover({ files, sandbox, isAlive: dead });
    assert.equal(r.undone, 2);
    assert.deepEqual((await fs.readdir(root)).sort(), names, 'no temp left');
    for (const n of names) assert.equal(await fs.readFile(path.join(root, n), 'utf8'), `${n} old\n`, 'no file touched');
    assert.equal(await fs.readFile(foreign, 'utf8'), 'keep');
    assert.deepEqual(await fs.readdir(jdir), []);
    await Promise.all(staged.map((s) => s.discard())); // the dead process's descriptors (see above)
  });

  it('a staged write goes only to a temp name of this process for its own target (stageAs)', async () => {
    const t = path.join(root, 'a.txt');
    await fs.writeFile(t, 'old\n');
    const opts = { expectedContent: Buffer.from('old\n') };
    for (const bad of [path.join(root, 'a.txt'), path.join(root, tempBaseName('b.txt')), path.join(outside, tempBaseName('a.txt')), path.join(root, tempBaseName('a.txt', { pid: owner.pid + 1, start: owner.start }))]) {
      await assert.rejects(files.stage(t, [Buffer.from('new\n')], { ...opts, stageAs: bad }), /not a temp name of this process/, bad);
    }
    const good = path.join(root, tempBaseName('a.txt'));
    const staged = await files.stage(t, [Buffer.from('new\n')], { ...opts, stageAs: good });
    assert.equal(staged.tempPath, good);
    await staged.commit();
    assert.equal(await fs.readFile(t, 'utf8'), 'new\n');
  });

  it('isOwnTemp: only the owner’s temp-name form for that target, in its folder', () => {
    const t = path.join(root, 'a.txt');
    assert.ok(isOwnTemp(t, path.join(root, tempBaseName('a.txt', owner)), owner));
    assert.ok(!isOwnTemp(t, path.join(outside, tempBaseName('a.txt', owner)), owner));
    assert.ok(!isOwnTemp(t, path.join(root, tempBaseName('b.txt', owner)), owner));
    assert.ok(!isOwnTemp(t, path.join(root, tempBaseName('a.txt', { pid: owner.pid + 1, start: owner.start })), owner));
    assert.ok(!isOwnTemp(t, path.join(root, 'a.txt'), owner));
    assert.equal(typeof parseJournal('{"v":1,"id":"abcdef012345"}', 'apply-abcdef012345.json'), 'string');
  });
});
