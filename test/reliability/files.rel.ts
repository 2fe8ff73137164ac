/**
 * Reliability of the file store under concurrency and hostile files, with real processes:
 *  - several stdio servers (dist/cli.js, driven by the MCP SDK client) editing one file: no acknowledged edit lost;
 *  - a separate process swapping folders and files for symlinks to outside while edits run: no byte outside;
 *  - writers killed with SIGKILL in the middle of large writes, then a restart: no temp file left;
 *  - calls on FIFOs and devices: a clear error within 2 s while pings stay fast.
 * Run: npm run test:reliability (or: node esbuild.mjs && npx mocha --config test/reliability/.mocharc.json test/reliability/files.rel.ts)
 */
import { strict as assert } from 'node:assert';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { buildSync } from 'esbuild';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { figure } from './figures';
import { buildCli, stdioClient, textOf, tmpWorkspace, type Connected, type Workspace } from '../mcp/helpers';
import { NodeFileStore } from '../../src/core/files/nodeFileStore';
import { Sandbox } from '../../src/core/files/sandbox';
import { EditService } from '../../src/core/edits/service';
import { tempOwner } from '../../src/core/files/tempFiles';

const REPO = path.resolve(__dirname, '..', '..');
const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;

async function callTool(client: Client, name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

function exited(cp: ChildProcess): Promise<void> {
  return new Promise((resolve) => (cp.exitCode !== null || cp.signalCode !== null ? resolve() : cp.once('exit', () => resolve())));
}

function filesUnder(dir: string): string[] {
  return fs.readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => !e.isDirectory())
    .map((e) => path.join(e.parentPath, e.name));
}

describe('reliability: files', function () {
  this.timeout(600_000);
  before(async function () {
    if (process.platform === 'win32') this.skip();
    await buildCli();
  });

  describe('several server processes editing one file', () => {
    for (const procs of [2, 3, 4]) {
      it(`${procs} stdio servers in tight loops: every acknowledged edit is in the file`, async () => {
        const ws = await tmpWorkspace();
        const servers: Connected[] = [];
        try {
          await ws.write('shared.txt', 'header\n');
          for (let i = 0; i < procs; i++) servers.push(await stdioClient(ws, ['--no-memory']));
          const perProcess = Math.ceil(1000 / procs);
          const acked: string[] = [];
          let failed = 0;
          const failures = new Map<string, number>();
          await Promise.all(
            servers.map(async (s, p) => {
              for (let k = 0; k < perProcess; k++) {
                const line = `p${p}-e${k}`;
                // alternate top and bottom: both ends of the file change under everyone
                const at = k % 2 === 0 ? 'shared.txt:0' : 'shared.txt:1';
                const r = await callTool(s.client, 'be-insert', { file: at, content: line, brief: true });
                if (r.isError) {
                  failed++;
                  const why = textOf(r).slice(0, 80);
                  failures.set(why, (failures.get(why) ?? 0) + 1);
                } else acked.push(line);
              }
            }),
          );
          const present = new Set((await ws.read('shared.txt')).toString('utf8').split('\n'));
          const lost = acked.filter((l) => !present.has(l)).length;
          figure(`files: lost acknowledged edits, ${procs} processes`, `${lost} of ${acked.length}`, '0 of ≥ 1,000');
          figure(`files: edits refused (clear error), ${procs} processes`, failed, 'reported, not lost');
          if (failures.size) console.log('      refusals:', [...failures].slice(0, 3));
          assert.equal(lost, 0);
          assert.ok(acked.length >= 1000 * 0.95, `most edits went through (${acked.length})`);
          assert.deepEqual(fs.readdirSync(ws.root), ['shared.txt'], 'no lock or temp left in the workspace');
        } finally {
          await Promise.all(servers.map((s) => s.close()));
          await ws.dispose();
        }
      });
    }
  });

  describe('swap races', () => {
    /** A child process that keeps swapping root/sub and root/g.txt for symlinks to outside until killed. */
    function startSwapper(root: string, outside: string): ChildProcess {
      const code = `
        const fs = require('fs'), path = require('path');
        const [root, outside] = process.argv.slice(1);
        const sub = path.join(root, 'sub'), subReal = path.join(root, 'sub.real');
        const g = path.join(root, 'g.txt'), gReal = path.join(root, 'g.real'), gLink = path.join(root, 'g.link'), victim = path.join(outside, 'victim.txt');
        let n = 0;
        const spin = (ms) => { const end = performance.now() + ms; while (performance.now() < end); };
        for (;;) {
          if (n % 10 === 0) fs.writeSync(1, n + '\\n');
          try {
            // the file: replaced by a link in one rename (its mtime copied to the outside file first)
            const st = fs.statSync(g); fs.utimesSync(victim, st.atime, st.mtime);
            fs.linkSync(g, gReal); fs.symlinkSync(victim, gLink); fs.renameSync(gLink, g);
            // the folder: moved aside, a link put in its place
            fs.renameSync(sub, subReal); fs.symlinkSync(outside, sub);
            spin(Math.random() * 0.3);
            fs.unlinkSync(sub); fs.renameSync(subReal, sub);
            fs.renameSync(gReal, g);
            n++;
          } catch (e) {
            // a writer's rename got in between: put everything back, then go on
            try { if (fs.lstatSync(sub).isSymbolicLink()) fs.unlinkSync(sub); } catch {}
            try { fs.renameSync(subReal, sub); } catch {}
            try { fs.renameSync(gReal, g); } catch {}
            try { fs.unlinkSync(gLink); } catch {}
          }
          spin(Math.random() * 1.5);
        }`;
      return spawn(process.execPath, ['-e', code, root, outside], { stdio: ['ignore', 'pipe', 'inherit'] });
    }

    interface RaceResult {
      outsideBytes: number;
      ok: number;
      /** refused by the Sandbox (it saw the link) */
      atCheck: number;
      /** the swap came after the Sandbox's check: caught by the store when it opened or renamed */
      atUse: number;
      missing: number;
      other: number;
      swaps: number;
    }

    async function race(pinDirectories: boolean, calls: number): Promise<RaceResult> {
      const tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'be-rel-swap-')));
      const root = path.join(tmp, 'root');
      const outside = path.join(tmp, 'outside');
      fs.mkdirSync(path.join(root, 'sub'), { recursive: true });
      fs.mkdirSync(outside);
      const victimText = 'outside, never to be written\n';
      fs.writeFileSync(path.join(outside, 'victim.txt'), victimText);
      fs.writeFileSync(path.join(root, 'sub', 'f.txt'), 'a\nb\n');
      fs.writeFileSync(path.join(root, 'g.txt'), 'a\nb\n');
      const files = new NodeFileStore({ pinDirectories, lockDir: path.join(tmp, 'locks') });
      const svc = new EditService({ files, sandbox: new Sandbox([root]) });
      const swapper = startSwapper(root, outside);
      let swaps = 0;
      swapper.stdout!.on('data', (d: Buffer) => (swaps = Number(d.toString().trim().split('\n').pop()) || swaps));
      let ok = 0;
      let atCheck = 0;
      let atUse = 0;
      let other = 0;
      let missing = 0;
      const otherSamples = new Set<string>();
      try {
        await new Promise((r) => setTimeout(r, 200));
        for (let i = 0; i < calls; i++) {
          const op =
            i % 3 === 0
              ? svc.write({ file: `sub/new-${i}.txt`, content: `created ${i}\n` })
              : i % 3 === 1
                ? svc.replace({ file: 'sub/f.txt:1', content: `edit ${i}` })
                : svc.replace({ file: 'g.txt:1', content: `edit ${i}` });
          await op.then(
            () => ok++,
            (e: { code?: string; message?: string }) => {
              if (e.code === 'outside_roots') atCheck++;
              else if (e.code === 'conflict') atUse++;
              else if (e.code === 'not_found') missing++; // between the swapper's two renames the path is gone
              else {
                other++;
                otherSamples.add(`${e.code}: ${e.message?.slice(0, 100)}`);
              }
            },
          );
        }
      } finally {
        swapper.kill('SIGKILL');
        await exited(swapper);
      }
      let outsideBytes = 0;
      for (const f of filesUnder(outside)) {
        const body = fs.readFileSync(f, 'utf8');
        if (path.basename(f) !== 'victim.txt') outsideBytes += Buffer.byteLength(body);
        else if (body !== victimText) outsideBytes += Buffer.byteLength(body);
      }
      fs.rmSync(tmp, { recursive: true, force: true });
      if (otherSamples.size) console.log(`      other refusals: ${[...otherSamples].slice(0, 4).join(' | ')}`);
      return { outsideBytes, ok, atCheck, atUse, missing, other, swaps };
    }

    it('a process swapping a folder and a file for symlinks to outside: 0 bytes land outside in ≥ 1,500 races', async () => {
      const calls = 2400;
      const r = await race(true, calls);
      figure('files: bytes written outside the roots, swap races (pinned folder)', `${r.outsideBytes} in ${calls} calls`, '0 in ≥ 1,500');
      figure('files: swaps caught after the Sandbox check (at open/rename)', r.atUse, 'refused, clear error');
      figure('files: calls landed inside / refused at the check / path missing mid-swap', `${r.ok} / ${r.atCheck} / ${r.missing}`, 'info');
      figure('files: swaps made by the other process during the calls', r.swaps, '> 0');
      // counted in tens; a loaded machine (a CI run beside other work) made 100-199 in one run: still racing
      assert.ok(r.swaps >= 100, `the swapper was really racing (${r.swaps} swaps)`);
      assert.ok(r.atUse > 0 && r.ok > 0, 'swaps landed between check and use, and edits went through between swaps');
      assert.equal(r.other, 0, 'every refusal names the swap');
      assert.equal(r.outsideBytes, 0);
      if (process.platform === 'linux') {
        const f = await race(false, calls);
        // the path-based fallback of other platforms, measured here for comparison (it narrows the window only)
        figure('files: bytes written outside, swap races (path-based fallback)', `${f.outsideBytes} in ${calls} calls (${f.atUse} caught at use)`, 'measured');
      }
    });
  });

  describe('crashes in the middle of large writes', () => {
    it('200 SIGKILLs during 16 MB writes, then a restart and the next write: no temp file and no lock left, the file whole', async function () {
      const tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'be-rel-kill-')));
      const ws = path.join(tmp, 'ws');
      const lockDir = path.join(tmp, 'state', 'locks');
      fs.mkdirSync(path.join(ws, 'deep', 'er'), { recursive: true });
      // a small bundle of the real store, so 200 children start in milliseconds, not seconds
      const entry = path.join(tmp, 'writer.ts');
      fs.writeFileSync(
        entry,
        `import { NodeFileStore } from ${JSON.stringify(path.join(REPO, 'src/core/files/nodeFileStore'))};
         const [ws, lockDir] = process.argv.slice(2);
         const store = new NodeFileStore({ lockDir });
         (async () => {
           const targets = [ws + '/big.bin', ws + '/deep/er/big2.bin'];
           for (let i = 0; ; i++) {
             const bytes = Buffer.alloc(16 * 1024 * 1024, 97 + (i % 26));
             if (i === 0) process.stdout.write('writing\\n');
             await store.write(targets[i % 2], bytes);
           }
         })();`,
      );
      const bundle = path.join(tmp, 'writer.cjs');
      buildSync({ entryPoints: [entry], bundle: true, platform: 'node', format: 'cjs', outfile: bundle, logLevel: 'error' });
      const temps = () => filesUnder(ws).filter((f) => tempOwner(path.basename(f)));
      const started = performance.now();
      let midWrite = 0;
      for (let k = 0; k < 200; k++) {
        const cp = spawn(process.execPath, [bundle, ws, lockDir], { stdio: ['ignore', 'pipe', 'inherit'] });
        await new Promise<void>((resolve) => cp.stdout!.once('data', () => resolve()));
        await new Promise((r) => setTimeout(r, 5 + Math.random() * 60));
        cp.kill('SIGKILL');
        await exited(cp);
        if (temps().length > 0) midWrite++; // this kill left a temp (the next writer removes it)
      }
      const before = temps();
      const bytesBefore = before.reduce((n, f) => n + fs.statSync(f).size, 0);
      figure('files: kills that left a temp file behind (removed by the next writer)', `${midWrite} of 200`, 'measured');
      figure('files: temp files after 200 kills, before a restart', `${before.length} (${(bytesBefore / 1e6).toFixed(0)} MB)`, 'measured');
      // the restart: a new server's store cleans up after the dead writers
      await new NodeFileStore({ lockDir }).recover();
      // The locks live beside the files now, so a restart has no list of the folders a dead writer used: its temps
      // go at the next write in that folder (or the periodic folder sweep), as its lock does.
      figure('files: temp files left after 200 kills + a restart, before the next write', temps().length, 'measured');
      figure('files: 200 kills took', `${((performance.now() - started) / 1000).toFixed(1)} s`, 'info');
      assert.ok(midWrite >= 20, 'kills landed in the middle of writes');
      assert.ok(!fs.existsSync(lockDir) || fs.readdirSync(lockDir).length === 0, 'nothing in the old lock folder');
      // a killed writer's lock beside its file: the next edit of that file breaks it at once and leaves none
      const locksLeft = filesUnder(ws).filter((f) => f.endsWith('.be-lock')).length;
      figure('files: locks left beside the files after 200 kills (broken by the next edit)', locksLeft, 'measured');
      // A kill between the lock's exclusive create and its record leaves a lock without a record; such a lock is
      // waited out for 5 s (a live writer may be between the two calls), so the next write waits up to that long.
      const noRecord = filesUnder(ws).filter((f) => f.endsWith('.be-lock') && fs.statSync(f).size === 0).length;
      figure('files: of those, locks without a record (killed between create and write; waited out 5 s)', noRecord, 'measured');
      const next = new NodeFileStore({ lockDir, lockTimeoutMs: 8_000 });
      const nextStarted = performance.now();
      for (const f of [path.join(ws, 'big.bin'), path.join(ws, 'deep/er/big2.bin')]) {
        // a writer killed before its first rename leaves a lock beside a file that does not exist yet: write it too
        await next.write(f, fs.existsSync(f) ? fs.readFileSync(f) : Buffer.alloc(16 * 1024 * 1024, 97));
      }
      const nextMs = performance.now() - nextStarted;
      // 8 s is below the 10 s after which an owner that cannot be checked counts as abandoned: a dead owner's
      // lock that was not broken at once fails here
      figure('files: the next write of both 16 MB files after the kills (ms, with their fsyncs)', Math.round(nextMs), 'measured');
      assert.deepEqual(filesUnder(ws).filter((f) => f.endsWith('.be-lock')), [], 'no lock left');
      const after = temps();
      figure('files: temp files left after 200 kills + a restart + the next write in each folder', after.length, '0');
      assert.equal(after.length, 0);
      for (const f of [path.join(ws, 'big.bin'), path.join(ws, 'deep/er/big2.bin')]) {
        if (!fs.existsSync(f)) continue;
        const b = fs.readFileSync(f);
        assert.equal(b.length, 16 * 1024 * 1024, 'whole');
        assert.equal(b.indexOf(b[0] === 97 ? 98 : 97), -1, 'one version, not torn');
      }
      fs.rmSync(tmp, { recursive: true, force: true });
    });
  });

  describe('hostile files through the stdio server', () => {
    let ws: Workspace;
    let server: Connected;
    before(async () => {
      ws = await tmpWorkspace();
      execFileSync('mkfifo', [ws.file('pipe')]);
      fs.symlinkSync('pipe', ws.file('link-to-pipe'));
      if (isRoot) execFileSync('mknod', [ws.file('zero'), 'c', '1', '5']); // a /dev/zero inside the workspace
      if (isRoot) fs.symlinkSync('zero', ws.file('link-to-zero'));
      await ws.write('ok.txt', 'one\ntwo\n');
      server = await stdioClient(ws, ['--no-memory']);
      // warm up what a first call loads once (tokenizer, grammars), so the figures below measure the hostile files
      for (const [name, args] of [['be-read', { file: 'ok.txt', mode: 'structure' }], ['be-read', { file: 'ok.txt' }], ['be-func-range', { file: 'ok.txt', line: 1 }]] as const) {
        await callTool(server.client, name, args as Record<string, unknown>);
      }
    });
    after(async () => {
      await server?.close();
      await ws?.dispose();
    });

    it('FIFOs, devices and links to them: a clear error within 2 s each, pings < 100 ms, later I/O unharmed', async () => {
      const targets = ['pipe', 'link-to-pipe', ...(isRoot ? ['zero', 'link-to-zero'] : [])];
      const calls: [string, Record<string, unknown>][] = targets.flatMap((t) => [
        ['be-read', { file: t }],
        ['be-read', { file: t, mode: 'structure' }],
        ['be-replace', { file: `${t}:1`, content: 'x' }],
        ['be-insert', { file: `${t}:0`, content: 'x' }],
        ['be-delete', { file: `${t}:1` }],
        ['be-write', { file: t, content: 'x' }],
        ['be-balance', { file: t }],
        ['be-func-range', { file: t, line: 1 }],
      ] as [string, Record<string, unknown>][]);
      let worstPing = 0;
      let pings = 0;
      let pinging = true;
      const pinger = (async () => {
        while (pinging) {
          const t0 = performance.now();
          await server.client.ping();
          worstPing = Math.max(worstPing, performance.now() - t0);
          pings++;
          await new Promise((r) => setTimeout(r, 10));
        }
      })();
      let slowest = 0;
      const errors: string[] = [];
      // twice over, all at once: more than the 4 threads of the I/O pool
      await Promise.all(
        [...calls, ...calls].map(async ([name, args]) => {
          const t0 = performance.now();
          const r = await callTool(server.client, name, args);
          slowest = Math.max(slowest, performance.now() - t0);
          assert.ok(r.isError, `${name} ${JSON.stringify(args)} must fail`);
          errors.push(textOf(r));
        }),
      );
      const t0 = performance.now();
      const okRead = await callTool(server.client, 'be-read', { file: 'ok.txt' });
      const after = performance.now() - t0;
      pinging = false;
      await pinger;
      figure('files: hostile calls (FIFO/device/links), slowest answer', `${slowest.toFixed(0)} ms over ${errors.length} calls`, '< 2,000 ms');
      figure('files: ping during hostile calls, worst', `${worstPing.toFixed(1)} ms over ${pings} pings`, '< 100 ms');
      figure('files: a normal read right after', `${after.toFixed(0)} ms`, 'fast');
      assert.ok(slowest < 2000);
      assert.ok(worstPing < 100);
      assert.ok(!okRead.isError);
      for (const e of errors) assert.match(e, /named pipe|character device|not a regular file/, e.slice(0, 200));
      assert.ok(fs.lstatSync(ws.file('pipe')).isFIFO(), 'be-write did not replace the pipe');
    });
  });
});
