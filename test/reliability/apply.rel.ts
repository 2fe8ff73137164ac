/**
 * be-apply under kill -9: a real child process applies batches over five files in a loop (each batch moves every
 * file to the next generation) and is killed at a random moment; the next start (createServices, the real
 * start-up path) must leave every file at one generation: all old or all new, never a mix, no temp, no journal.
 */
import { strict as assert } from 'node:assert';
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { buildSync } from 'esbuild';
import { tempOwner } from '../../src/core/files/tempFiles';
import { NodeFileStore } from '../../src/core/files/nodeFileStore';
import { createServices } from '../../src/mcp/services';
import * as iconv from 'iconv-lite';
import { decodeLossless, detectEncoding, encodeEdited } from '../../src/core/text/encoding';
import { nodeTextCodec as codec } from '../../src/core/text/node/codec';
import { figure } from './figures';

const REPO = path.resolve(__dirname, '..', '..');
const FILES = 5;
const KILLS = 60;

function exited(cp: ChildProcess): Promise<void> {
  return new Promise((resolve) => (cp.exitCode !== null || cp.signalCode !== null ? resolve() : cp.once('exit', () => resolve())));
}

describe('reliability: be-apply batches under kill -9', function () {
  this.timeout(240_000);

  it(`${KILLS} kills of a process mid-batch: after the next start every file is at one generation`, async () => {
    const tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'bet-apply-rel-')));
    const ws = path.join(tmp, 'ws');
    const cache = path.join(tmp, 'cache');
    fs.mkdirSync(ws);
    fs.mkdirSync(cache);
    const historyDir = path.join(cache, 'history');
    const lockDir = path.join(cache, 'locks');
    const payload = 'x'.repeat(120) + '\n';
    const body = payload.repeat(2000); // ~240 KB a file: staging and renames take a measurable time
    for (let i = 0; i < FILES; i++) fs.writeFileSync(path.join(ws, `f${i}.txt`), `gen 0\n${body}`);

    const entry = path.join(tmp, 'batcher.ts');
    const src = (p: string) => JSON.stringify(path.join(REPO, 'src', p));
    fs.writeFileSync(
      entry,
      `import * as fs from 'node:fs';
       import { ApplyJournal } from ${src('core/edits/apply/node/journal')};
       import { BatchEditor } from ${src('core/edits/apply/service')};
       import { ViewedCodeRegistry } from ${src('core/edits/viewedCode')};
       import { NodeFileStore } from ${src('core/files/nodeFileStore')};
       import { Sandbox } from ${src('core/files/sandbox')};
       import { HistoryStore } from ${src('core/history/node/store')};
       const [ws, historyDir, lockDir, n] = process.argv.slice(2);
       (async () => {
         const files = new NodeFileStore({ lockDir });
         const sandbox = new Sandbox([ws]);
         const history = await HistoryStore.open({ dir: historyDir, files, sandbox, maxCount: 1000 });
         const editor = new BatchEditor({ files, sandbox, journal: new ApplyJournal(historyDir + '-journal'),
           viewed: new ViewedCodeRegistry(), history, maxFileBytes: 1 << 26, maxAnalyzeBytes: 1 << 21 });
         for (let k = 0; ; k++) {
           const gen = Number(/^gen (\\d+)/.exec(fs.readFileSync(ws + '/f0.txt', 'utf8'))![1]);
           const edits = Array.from({ length: Number(n) }, (_, i) => ({ file: 'f' + i + '.txt:1', content: 'gen ' + (gen + 1) + '\\n' }));
           if (k === 0) process.stdout.write('batching\\n');
           await editor.apply({ edits, brief: true });
           process.stdout.write('b\\n');
           if (k % 20 === 19) await history.commit();
         }
       })();`,
    );
    const bundle = path.join(tmp, 'batcher.cjs');
    buildSync({ entryPoints: [entry], bundle: true, platform: 'node', format: 'cjs', outfile: bundle, logLevel: 'error', preserveSymlinks: true });

    const gens = () => Array.from({ length: FILES }, (_, i) => Number(/^gen (\d+)/.exec(fs.readFileSync(path.join(ws, `f${i}.txt`), 'utf8'))![1]));
    const journalDir = `${historyDir}-journal`;
    let midBatch = 0;
    let mixedBeforeRecovery = 0;
    let mixedAfter = 0;
    let maxGen = 0;
    const started = performance.now();
    for (let k = 0; k < KILLS; k++) {
      const cp = spawn(process.execPath, [bundle, ws, historyDir, lockDir, String(FILES)], { stdio: ['ignore', 'pipe', 'inherit'] });
      // The kill lands at a random moment inside a batch, whatever the machine's load: wait for 1-3 batches, time
      // the last one, then kill within one batch's time (a fixed 5-125 ms window missed every commit on a loaded run).
      const want = 1 + Math.floor(Math.random() * 3);
      const batchMs = await new Promise<number>((resolve) => {
        let seen = 0;
        let last = performance.now();
        let ms = 0;
        cp.stdout!.on('data', (d: Buffer) => {
          for (const line of d.toString().split('\n')) {
            if (line !== 'b' && line !== 'batching') continue;
            const now = performance.now();
            if (line === 'b') {
              ms = now - last;
              seen++;
            }
            last = now;
            if (seen === want) resolve(ms);
          }
        });
      });
      await new Promise((r) => setTimeout(r, Math.random() * batchMs));
      cp.kill('SIGKILL');
      await exited(cp);
      const journals = fs.existsSync(journalDir) ? fs.readdirSync(journalDir).filter((n) => n.startsWith('apply-')) : [];
      if (journals.length > 0) midBatch++;
      if (new Set(gens()).size > 1) mixedBeforeRecovery++;
      // the next start: its recovery step completes or undoes the dead process's batch
      const services = await createServices({ roots: [ws], chipDir: path.join(cache, 'chips'), historyDir, lockDir, context: false });
      await services.close();
      const g = gens();
      if (new Set(g).size > 1) mixedAfter++;
      maxGen = Math.max(maxGen, ...g);
    }
    // The locks and temps live beside the files, so a restart has no list of the folders a dead writer used: the
    // last kill's temps (one killed while staging) go at the next write in that folder, as every earlier kill's went
    // at the next child's first batch. That next write, of f0's own bytes (its generation unchanged):
    const tempsBeforeNextWrite = fs.readdirSync(ws).filter((n) => tempOwner(n)).length;
    // (8 s: past the 5 s a lock without a record is waited out, if a kill landed between its create and its write;
    // short of the 10 s after which an owner that cannot be checked counts as abandoned)
    await new NodeFileStore({ lockDir, lockTimeoutMs: 8_000 }).write(path.join(ws, 'f0.txt'), fs.readFileSync(path.join(ws, 'f0.txt')));
    figure('apply: temp files of the last kill before the next write in the folder', tempsBeforeNextWrite, 'measured');
    const temps = fs.readdirSync(ws).filter((n) => tempOwner(n));
    figure('apply: kills that landed inside a commit (journal left)', `${midBatch} of ${KILLS}`, 'measured');
    figure('apply: kills that left files at mixed generations before the restart', `${mixedBeforeRecovery} of ${KILLS}`, 'measured');
    figure('apply: files at mixed generations after the restart', `${mixedAfter} of ${KILLS}`, '0');
    figure('apply: batches committed over all runs (generation reached)', maxGen, 'info');
    figure('apply: temp files and journals left after the restarts and the next write', temps.length + (fs.existsSync(journalDir) ? fs.readdirSync(journalDir).length : 0), '0');
    figure('apply: kill runs took', `${((performance.now() - started) / 1000).toFixed(1)} s`, 'info');
    assert.equal(mixedAfter, 0);
    assert.deepEqual(temps, []);
    // kills are timed within a batch; part of each batch is before its commit: at least a few must land inside one
    assert.ok(midBatch >= 5, `kills landed inside commits (${midBatch})`);
    assert.ok(maxGen >= KILLS / 4, `batches went through between the kills (${maxGen})`);
    fs.rmSync(tmp, { recursive: true, force: true });
  });
});

describe('reliability: legacy encodings of large files', function () {
  this.timeout(120_000);

  it('a 6 MB GBK file is detected, decoded, edited and encoded without blocking the event loop 100 ms', async () => {
    const raw = iconv.encode('// 中文注释，这是一个函数 int main() { return 0; }\r\n'.repeat(120_000), 'gbk');
    // jschardet's one-time start (its require and first detection, on its worker thread) is paid once per process
    await detectEncoding(codec, iconv.encode('// 中文注释，这是一个函数\n', 'gbk'));
    // CPU time between two runs of a 5 ms timer, as the other suites bound a block: wall gaps on a loaded machine
    // include the time the OS gave other processes (245 ms wall for a 55 ms CPU block at load 15)
    let worst = 0;
    let worstWall = 0;
    let last = performance.now();
    let lastCpu = process.cpuUsage();
    const probe = setInterval(() => {
      const now = performance.now();
      const cpu = process.cpuUsage(lastCpu);
      worst = Math.max(worst, (cpu.user + cpu.system) / 1000);
      worstWall = Math.max(worstWall, now - last);
      last = now;
      lastCpu = process.cpuUsage();
    }, 5);
    const started = performance.now();
    try {
      const utf8 = await decodeLossless(codec, raw, (await detectEncoding(codec, raw))!, 'f');
      const edited = Buffer.concat([Buffer.from('// 改\r\n'), utf8.subarray(Buffer.byteLength('// 中文注释，这是一个函数 int main() { return 0; }\r\n'))]);
      await encodeEdited(codec, raw, utf8, edited, 'gbk', 'f');
    } finally {
      clearInterval(probe);
    }
    figure('encoding: detect + decode + edit + encode of a 6 MB GBK file', `${(performance.now() - started).toFixed(0)} ms`, 'info');
    figure('encoding: longest event-loop block during it, CPU', `${worst.toFixed(0)} ms (${worstWall.toFixed(0)} ms wall)`, '< 100 ms');
    assert.ok(worst < 100, `the event loop was blocked ${worst.toFixed(0)} ms CPU (${worstWall.toFixed(0)} ms wall)`);
  });
});
