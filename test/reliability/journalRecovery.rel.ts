/**
 * be-apply recovery against untrusted state and a shared history folder, with real processes (dist/cli.js):
 * - planted journals whose temps and targets point outside the roots: 0 reads or deletions outside;
 * - a batcher killed with -9 mid-batch (its locks, temps and journal left as a dead owner leaves them), then the
 *   server of another root and the server of the batch's root start on the same `--history-dir`: the other root
 *   leaves the journal alone, the owning root finishes the batch when every staged temp survived, undoes it
 *   otherwise; 0 half-applied batches;
 * - FIFOs in the journal folder, the history folder and the code cache: initialize + a tool call still answer.
 */
import { strict as assert } from 'node:assert';
import { execFile, execFileSync, spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { buildSync } from 'esbuild';
import { tempBaseName, tempOwner } from '../../src/core/files/tempFiles';
import { sha256Hex } from '../../src/core/util/sha256';
import { figure } from './figures';

const REPO = path.resolve(__dirname, '..', '..');
const CLI = path.join(REPO, 'dist', 'cli.js');
const msg = (o: object) => `${JSON.stringify({ jsonrpc: '2.0', ...o })}\n`;

/** Starts the CLI, sends initialize + a be-read call, and resolves with the ms until the call's reply. */
function serve(root: string, historyDir: string, cache: string, file: string, limitMs = 20_000): Promise<number> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const p = spawn(process.execPath, [CLI, '--root', root, '--history-dir', historyDir], { env: { ...process.env, XDG_CACHE_HOME: cache }, stdio: ['pipe', 'pipe', 'ignore'] });
    let out = '';
    let ms: number | undefined;
    const timer = setTimeout(() => p.kill('SIGKILL'), limitMs);
    p.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (ms === undefined && /"id":2[,}]/.test(out)) {
        ms = performance.now() - t0;
        p.stdin.end();
      }
    });
    p.on('exit', () => {
      clearTimeout(timer);
      if (ms === undefined) reject(new Error(`no reply to the tool call within ${limitMs} ms: ${out.slice(0, 500)}`));
      else resolve(ms);
    });
    p.stdin.write(
      msg({ id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'rel', version: '1' } } }) +
        msg({ method: 'notifications/initialized' }) +
        msg({ id: 2, method: 'tools/call', params: { name: 'be-read', arguments: { file } } }),
    );
  });
}

function exited(cp: ChildProcess): Promise<void> {
  return new Promise((resolve) => (cp.exitCode !== null || cp.signalCode !== null ? resolve() : cp.once('exit', () => resolve())));
}

describe('reliability: be-apply journal recovery (untrusted state, shared history folder, FIFOs)', function () {
  this.timeout(240_000);
  let tmp: string;
  before(async () => {
    await new Promise<void>((resolve, reject) => execFile(process.execPath, ['esbuild.mjs', 'cli'], { cwd: REPO }, (err) => (err ? reject(err) : resolve())));
    tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'bet-journal-rel-')));
  });
  after(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it('planted journals pointing outside the roots: 0 reads or deletions outside', async () => {
    const ws = path.join(tmp, 'p-ws');
    const out = path.join(tmp, 'p-outside');
    const cache = path.join(tmp, 'p-cache');
    const history = path.join(tmp, 'p-history');
    const jdir = `${history}-journal`;
    for (const d of [ws, out, cache, jdir]) fs.mkdirSync(d, { recursive: true });
    const owner = { pid: 999_999, start: 1 }; // no such process: a dead owner
    const outsideFiles: Record<string, string> = {};
    const planted: object[][] = [];
    for (let i = 0; i < 6; i++) {
      const secret = path.join(out, `secret${i}.txt`);
      const text = `OUTSIDE-${i}-${'s'.repeat(40)}\n`;
      fs.writeFileSync(secret, text);
      outsideFiles[secret] = text;
      const target = path.join(ws, `t${i}.txt`);
      fs.writeFileSync(target, `inside ${i}\n`);
      const link = path.join(ws, tempBaseName(`t${i}.txt`, owner));
      if (i % 2 === 1) fs.symlinkSync(secret, link);
      const e = (tgt: string, temp: string) => ({
        target: tgt,
        temp,
        before_sha256: sha256Hex(fs.readFileSync(tgt)),
        after_sha256: sha256Hex(Buffer.from(text)),
        offset: 0,
        inserted_length: text.length,
        removed_b64: fs.readFileSync(tgt).toString('base64'),
      });
      // a temp outside, a link in our temp form, and a target outside
      planted.push([i % 2 === 0 ? e(target, secret) : e(target, link)]);
      planted.push([e(secret, path.join(out, tempBaseName(`secret${i}.txt`, owner)))]);
    }
    planted.forEach((files, k) => {
      const id = k.toString(16).padStart(12, '0');
      fs.writeFileSync(path.join(jdir, `apply-${id}.json`), JSON.stringify({ v: 1, id, owner, created_ms: Date.now(), files }));
    });
    fs.writeFileSync(path.join(ws, 'r.txt'), 'r\n');
    await serve(ws, history, cache, path.join(ws, 'r.txt'));
    let outsideChanged = 0;
    for (const [f, text] of Object.entries(outsideFiles)) if (!fs.existsSync(f) || fs.readFileSync(f, 'utf8') !== text) outsideChanged++;
    let leaked = 0;
    for (const n of fs.readdirSync(ws)) {
      const p = path.join(ws, n);
      if (fs.lstatSync(p).isFile() && fs.readFileSync(p, 'utf8').includes('OUTSIDE-')) leaked++;
    }
    figure('journal: outside files read into the workspace or deleted (planted journals)', `${outsideChanged + leaked} of ${planted.length}`, '0');
    assert.equal(outsideChanged, 0);
    assert.equal(leaked, 0);
  });

  it('kill -9 mid-batch with a shared history folder: the other root leaves it, the owner finishes or undoes; 0 half-applied', async () => {
    const FILES = 6;
    const ROUNDS = 6;
    const cache = path.join(tmp, 'k-cache');
    const history = path.join(tmp, 'shared-history');
    const jdir = `${history}-journal`;
    const wsA = path.join(tmp, 'k-wsA');
    const wsB = path.join(tmp, 'k-wsB');
    for (const d of [cache, wsA, wsB]) fs.mkdirSync(d, { recursive: true });
    fs.writeFileSync(path.join(wsB, 'b.txt'), 'b\n');
    const src = (p: string) => JSON.stringify(path.join(REPO, 'src', p));
    const entry = path.join(tmp, 'halfbatch.ts');
    // the steps of a be-apply commit (locks held, temps staged, journal written, k renames), then it waits to be killed
    fs.writeFileSync(
      entry,
      `import * as os from 'node:os';
       import { ApplyJournal } from ${src('core/edits/apply/node/journal')};
       import { withLocks } from ${src('core/edits/apply/locks')};
       import { NodeFileStore } from ${src('core/files/nodeFileStore')};
       import { defaultLockDir } from ${src('core/files/lockDir')};
       import * as fs from 'node:fs';
       const [ws, journalDir, n, k, gen] = process.argv.slice(2);
       (async () => {
         const files = new NodeFileStore({ lockDir: defaultLockDir(process.env, process.platform, os.homedir()) });
         const paths = Array.from({ length: Number(n) }, (_, i) => ws + '/f' + i + '.txt');
         await withLocks(files, paths, async () => {
           const intent = await new ApplyJournal(journalDir).intend(paths);
           const staged = [];
           for (const [i, p] of paths.entries()) staged.push(await files.stage(p, [Buffer.from('gen ' + gen + '\\n')], { expectedContent: fs.readFileSync(p), stageAs: intent.temps[i] }));
           await intent.begin(staged);
           for (let i = 0; i < Number(k); i++) await staged[i].commit();
           process.stdout.write('ready\\n');
           await new Promise(() => setInterval(() => undefined, 1000));
         });
       })();`,
    );
    const bundle = path.join(tmp, 'halfbatch.cjs');
    buildSync({ entryPoints: [entry], bundle: true, platform: 'node', format: 'cjs', outfile: bundle, logLevel: 'error', preserveSymlinks: true });
    const gens = () => Array.from({ length: FILES }, (_, i) => fs.readFileSync(path.join(wsA, `f${i}.txt`), 'utf8'));
    let halfBefore = 0;
    let halfAfter = 0;
    let leftByOther = 0;
    let completed = 0;
    let completable = 0;
    let undone = 0;
    for (let r = 1; r <= ROUNDS; r++) {
      for (let i = 0; i < FILES; i++) fs.writeFileSync(path.join(wsA, `f${i}.txt`), `gen ${r - 1}\n`);
      const k = 1 + (r % (FILES - 1));
      const cp = spawn(process.execPath, [bundle, wsA, jdir, String(FILES), String(k), String(r)], { env: { ...process.env, XDG_CACHE_HOME: cache }, stdio: ['ignore', 'pipe', 'inherit'] });
      await new Promise<void>((resolve) => cp.stdout!.once('data', () => resolve()));
      cp.kill('SIGKILL');
      await exited(cp);
      if (new Set(gens()).size > 1) halfBefore++;
      const dropTemp = r % 3 === 0; // one staged temp lost: the batch can only be undone
      if (dropTemp) {
        const t = fs.readdirSync(wsA).find((n) => tempOwner(n));
        if (t) fs.unlinkSync(path.join(wsA, t));
      } else completable++;
      const journals = () => fs.readdirSync(jdir).filter((n) => n.startsWith('apply-')).length;
      await serve(wsB, history, cache, path.join(wsB, 'b.txt'));
      if (journals() === 1 && new Set(gens()).size > 1) leftByOther++;
      await serve(wsA, history, cache, path.join(wsA, 'f0.txt'));
      const g = gens();
      if (new Set(g).size > 1) halfAfter++;
      else if (g[0] === `gen ${r}\n`) completed++;
      else undone++;
      assert.equal(journals(), 0, 'the owning root recovered the journal');
    }
    figure('journal: batches half-applied after the kill (before recovery)', `${halfBefore} of ${ROUNDS}`, 'measured');
    figure('journal: journals of another root left in place by its server', `${leftByOther} of ${ROUNDS}`, `${ROUNDS}`);
    figure('journal: half-applied batches after recovery (shared history folder)', `${halfAfter} of ${ROUNDS}`, '0');
    figure('journal: batches finished when every staged temp survived', `${completed} of ${completable}`, `${completable}`);
    figure('journal: batches undone when a staged temp was lost', `${undone} of ${ROUNDS - completable}`, `${ROUNDS - completable}`);
    assert.equal(halfAfter, 0);
    assert.equal(leftByOther, ROUNDS);
    assert.equal(completed, completable);
    assert.equal(undone, ROUNDS - completable);
  });

  it('FIFOs in the journal folder, the history folder and the code cache: startup answers', async function () {
    if (process.platform === 'win32') this.skip();
    const ws = path.join(tmp, 'f-ws');
    const cache = path.join(tmp, 'f-cache');
    const history = path.join(tmp, 'f-history');
    fs.mkdirSync(ws);
    fs.writeFileSync(path.join(ws, 'a.txt'), 'a\n');
    await serve(ws, history, cache, path.join(ws, 'a.txt')); // creates the folders and the code cache
    await new Promise((r) => setTimeout(r, 300));
    const codeCache = path.join(cache, 'better-edit-tools-mcp', 'code-cache');
    const fifos: string[] = [path.join(`${history}-journal`, 'apply-0123456789ab.json'), path.join(history, 'snap-000000000001-abcdef.json')];
    fs.mkdirSync(`${history}-journal`, { recursive: true });
    fs.mkdirSync(history, { recursive: true });
    if (fs.existsSync(codeCache)) {
      for (const n of fs.readdirSync(codeCache)) {
        fs.rmSync(path.join(codeCache, n));
        fifos.push(path.join(codeCache, n));
      }
    }
    for (const f of fifos) execFileSync('mkfifo', [f]);
    const ms = await serve(ws, history, cache, path.join(ws, 'a.txt'), 10_000);
    figure('journal: FIFOs planted in state folders (journal, history, code cache)', fifos.length, '>= 3');
    figure('journal: spawn to a tool-call reply with those FIFOs (ms)', ms.toFixed(0), '< 5000');
    assert.ok(fifos.length >= 3, `code cache files found: ${fifos.length - 2}`);
    assert.ok(ms < 5000);
  });
});
