/**
 * State files read back are untrusted input: real dist/cli.js servers through the MCP SDK client, with planted
 * snapshots (files outside the roots by absolute path, by `..`, through a link, an undo of a "creation" that names an
 * outside file), planted locks (a link to an outside file at the lock path, a folder there, a dead record that names an
 * outside file) and planted temps (our temp names as links to outside files, and as a folder). Asserts 0 reads of
 * outside bytes into the workspace and 0 changes or deletions outside, while ordinary edits and rollbacks still work.
 * Run: npm run test:reliability (or: node esbuild.mjs cli && npx mocha --config test/reliability/.mocharc.json test/reliability/plantedState.rel.ts)
 */
import { strict as assert } from 'node:assert';
import { execSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { tempBaseName } from '../../src/core/files/tempFiles';
import { sha256Hex } from '../../src/core/util/sha256';
import { figure } from './figures';
import { buildCli, stdioClient, textOf, tmpWorkspace, type Connected, type Workspace } from '../mcp/helpers';

const DEAD = { pid: 999_999, start: 1 }; // no such process: a dead owner

interface Outside {
  dir: string;
  files: Map<string, string>;
  add(name: string): string;
  /** Outside files changed or deleted. */
  damaged(): string[];
}

function outsideOf(ws: Workspace): Outside {
  const dir = path.join(path.dirname(ws.root), 'outside');
  fs.mkdirSync(dir, { recursive: true });
  const files = new Map<string, string>();
  return {
    dir,
    files,
    add(name) {
      const p = path.join(dir, name);
      const text = `OUTSIDE-${name}-${'s'.repeat(32)}\n`;
      fs.writeFileSync(p, text);
      files.set(p, text);
      return p;
    },
    damaged: () => [...files].filter(([p, text]) => !fs.existsSync(p) || fs.readFileSync(p, 'utf8') !== text).map(([p]) => p),
  };
}

/** Regular files in the workspace (recursively, not through links) that hold outside bytes. */
function leakedInto(root: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile() && fs.readFileSync(p, 'utf8').includes('OUTSIDE-')) out.push(p);
    }
  };
  walk(root);
  return out;
}

async function tool(c: Connected, name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  return (await c.client.callTool({ name, arguments: args })) as CallToolResult;
}

describe('reliability: planted snapshots, locks and temps (untrusted state read back)', function () {
  this.timeout(240_000);
  before(async function () {
    if (process.platform === 'win32') this.skip();
    await buildCli();
  });

  it('planted snapshots: 0 outside files read, changed or deleted by rollback; the real edit still rolls back', async () => {
    const ws = await tmpWorkspace();
    const out = outsideOf(ws);
    let c = await stdioClient(ws);
    try {
      await ws.write('a.txt', 'a0\n');
      assert.ok(!(await tool(c, 'be-replace', { file: 'a.txt:1', content: 'a1' })).isError);
      await c.close();
      const [name] = fs.readdirSync(ws.historyDir).filter((n) => n.startsWith('snap-'));
      assert.ok(name, 'the edit left a snapshot to copy');
      const real = JSON.parse(fs.readFileSync(path.join(ws.historyDir, name), 'utf8')) as Record<string, unknown>;
      fs.symlinkSync(out.add('linked.txt'), ws.file('link.txt'));
      const targets = [
        out.add('abs.txt'),
        `${ws.root}/../outside/${path.basename(out.add('dotdot.txt'))}`, // `..` kept as written
        ws.file('link.txt'),
        `file://${out.add('url.txt')}`,
      ];
      let seq = 100;
      const planted: string[] = [];
      const plant = (file: string, extra: Record<string, unknown>) => {
        const id = `f${(seq - 100).toString(16).padStart(5, '0')}`;
        fs.writeFileSync(
          path.join(ws.historyDir, `snap-${String(seq).padStart(12, '0')}-${id}.json`),
          JSON.stringify({ ...real, id, seq, file, ...extra }),
        );
        planted.push(id);
        seq++;
      };
      for (const file of targets) {
        const text = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
        plant(file, { after_hash: sha256Hex(Buffer.from(text)), after_size: text.length });
        plant(file, { created: true, after_hash: sha256Hex(Buffer.from(text)), after_size: text.length });
      }
      c = await stdioClient(ws);
      const status = textOf(await tool(c, 'be-trx', { action: 'status' }));
      // every way to undo: a forced rollback over all of them, then each planted snapshot by id, then the real one
      const attempts = [await tool(c, 'be-trx', { action: 'rollback', step: 20, force: true })];
      for (const id of planted) attempts.push(await tool(c, 'be-trx', { action: 'revert', id }));
      const rb = await tool(c, 'be-trx', { action: 'revert', id: real.id });
      const accepted = attempts.filter((r) => !r.isError && !/"status":"partial"|"rolled_back":0/.test(textOf(r))).length;
      const damaged = out.damaged();
      const leaked = leakedInto(ws.root).filter((p) => p !== ws.file('link.txt'));
      figure('planted snapshots: outside files changed or deleted by rollback', `${damaged.length} of ${out.files.size}`, '0');
      figure('planted snapshots: outside bytes read into the workspace', leaked.length, '0');
      figure('planted snapshots: undo calls over them that wrote something', `${accepted} of ${attempts.length}`, 'reported');
      assert.ok(status.includes(planted[0]), `the planted snapshots were loaded (the test plants what the store reads): ${status.slice(0, 300)}`);
      assert.deepEqual(damaged, [], attempts.map(textOf).join('\n'));
      assert.deepEqual(leaked, []);
      assert.equal((await ws.read('a.txt')).toString(), 'a0\n', `the real edit is rolled back: ${textOf(rb)}`);
      assert.ok(fs.lstatSync(ws.file('link.txt')).isSymbolicLink(), 'the link was not written through or replaced');
    } finally {
      await c.close();
      await ws.dispose();
    }
  });

  it('planted locks and temps: 0 outside files changed or deleted; each edit lands or says clearly why not', async () => {
    const ws = await tmpWorkspace();
    const out = outsideOf(ws);
    const c = await stdioClient(ws);
    try {
      // a link to an outside file at the lock path, holding a dead owner's record
      const linkedLock = out.add('lock-target.txt');
      fs.writeFileSync(linkedLock, JSON.stringify({ ...DEAD, host: 'h', token: 't', since: 1 }));
      out.files.set(linkedLock, fs.readFileSync(linkedLock, 'utf8'));
      await ws.write('b.txt', 'b\n');
      fs.symlinkSync(linkedLock, ws.file('.b.txt.be-lock'));
      // a folder at the lock path
      await ws.write('d.txt', 'd\n');
      fs.mkdirSync(ws.file('.d.txt.be-lock'));
      fs.writeFileSync(ws.file('.d.txt.be-lock/inner'), 'x');
      // a dead owner's record that names an outside file as its path
      await ws.write('e.txt', 'e\n');
      const named = out.add('named-by-lock.txt');
      fs.writeFileSync(ws.file('.e.txt.be-lock'), JSON.stringify({ ...DEAD, host: os.hostname(), token: 'z', path: named, since: 1 }));
      // our temp names of a dead owner: links to outside files, and a folder holding an outside-looking file
      await ws.write('f.txt', 'f\n');
      for (let i = 0; i < 3; i++) fs.symlinkSync(out.add(`temp-target-${i}.txt`), ws.file(tempBaseName('f.txt', DEAD)));
      const tempDir = ws.file(tempBaseName('f.txt', DEAD));
      fs.mkdirSync(tempDir);
      fs.writeFileSync(path.join(tempDir, 'kept'), 'kept');

      const replies: Record<string, CallToolResult> = {};
      for (const f of ['b.txt', 'd.txt', 'e.txt', 'f.txt']) {
        const t0 = performance.now();
        replies[f] = await tool(c, 'be-insert', { file: `${f}:0`, content: 'landed' });
        const ms = performance.now() - t0;
        console.log(`      ${f}: ${Math.round(ms)} ms, ${replies[f].isError ? 'refused' : 'landed'}: ${textOf(replies[f]).split('\n')[0].slice(0, 160)}`);
        assert.ok(ms < 15_000, `${f}: answered in ${Math.round(ms)} ms`);
      }
      const damaged = out.damaged();
      const leaked = leakedInto(ws.root);
      figure('planted locks and temps: outside files changed or deleted', `${damaged.length} of ${out.files.size}`, '0');
      figure('planted locks and temps: outside bytes read into the workspace', leaked.length, '0');
      assert.deepEqual(damaged, []);
      assert.deepEqual(leaked, []);
      for (const [f, r] of Object.entries(replies)) {
        const landed = (await ws.read(f)).toString().startsWith('landed');
        // a reply says "failed" only for an edit that did not land, and then says why in words
        if (r.isError) {
          assert.equal(landed, false, `${f}: refused but landed: ${textOf(r)}`);
          assert.match(textOf(r), /lock|link|folder|directory|not a regular file/i, `${f}: ${textOf(r)}`);
        } else assert.equal(landed, true, `${f}: acknowledged but not landed`);
      }
      // the one-line fix in a refusal works as written: run it, and the same edit lands
      for (const f of ['b.txt', 'd.txt']) {
        const fix = /Remove it \((rm [^)]+)\) and retry/.exec(textOf(replies[f]))?.[1];
        assert.ok(fix, `${f}: a fix in the message: ${textOf(replies[f])}`);
        execSync(fix, { stdio: 'ignore' });
        const again = await tool(c, 'be-insert', { file: `${f}:0`, content: 'landed' });
        assert.ok(!again.isError, `${f} after "${fix}": ${textOf(again)}`);
      }
      assert.deepEqual(out.damaged(), [], 'the fixes removed only our paths');
      assert.ok(!replies['e.txt'].isError, `a dead record is broken: ${textOf(replies['e.txt'])}`);
      assert.ok(!replies['f.txt'].isError, `dead temps do not stop an edit: ${textOf(replies['f.txt'])}`);
      assert.ok(fs.existsSync(path.join(tempDir, 'kept')), 'a folder in a temp name is not swept');
    } finally {
      await c.close();
      await ws.dispose();
    }
  });
});
