/** runWithCodeCache in real child processes: what it runs, what it stores, and that a bad or stale cache costs nothing. */
import assert from 'node:assert/strict';
import { isAscii } from 'node:buffer';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { KEPT_CACHES, readSource } from '../../src/core/files/codeCache';

const MODULE = path.resolve(__dirname, '../../src/core/files/codeCache.ts');

describe('core/codeCache', function () {
  this.timeout(60000);
  let base: string;
  let bundle: string;
  let cacheDir: string;
  const start = () =>
    execFileSync(process.execPath, ['-r', 'tsx/cjs', '-e',
      `const m = require(${JSON.stringify(MODULE)}).runWithCodeCache({ file: ${JSON.stringify(bundle)}, cacheDir: ${JSON.stringify(cacheDir)} });
       m.answer().then((v) => console.log(v));`], { encoding: 'utf8', cwd: path.resolve(__dirname, '../..') });
  const caches = () => (fs.existsSync(cacheDir) ? fs.readdirSync(cacheDir) : []);
  const write = (n: number) =>
    fs.writeFileSync(bundle, `const path = require('node:path');
      exports.answer = async () => [${n}, path.basename(__dirname), module.exports === exports, (await import('node:os')).EOL === '\\n'].join(' ');\n`);

  beforeEach(() => {
    base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'bet-codecache-')));
    fs.mkdirSync(path.join(base, 'dist'));
    bundle = path.join(base, 'dist', 'main.js');
    cacheDir = path.join(base, 'cache', 'code-cache');
    write(1);
  });
  afterEach(() => fs.rmSync(base, { recursive: true, force: true }));

  it('runs the bundle as require() would (exports, __dirname, import()) and stores a private cache that the next start accepts', () => {
    assert.equal(start().trim(), '1 dist true true');
    const [file, ...more] = caches();
    assert.ok(file && more.length === 0, `one cache file: ${caches().join(', ')}`);
    assert.match(file, new RegExp(`^main-${process.version.replace(/\./g, '\\.')}-${process.arch}-\\d+-\\d+\\.v8$`));
    const full = path.join(cacheDir, file);
    assert.equal(fs.statSync(full).mode & 0o777, 0o600);
    assert.equal(fs.statSync(cacheDir).mode & 0o777, 0o700);
    const before = fs.statSync(full).mtimeMs;
    assert.equal(start().trim(), '1 dist true true');
    assert.equal(fs.statSync(full).mtimeMs, before, 'an accepted cache is not rewritten');
  });

  it('a corrupt cache file is rejected by V8 and replaced; the bundle still runs', () => {
    start();
    const full = path.join(cacheDir, caches()[0]!);
    fs.writeFileSync(full, 'not a code cache');
    assert.equal(start().trim(), '1 dist true true');
    assert.notEqual(fs.readFileSync(full, 'utf8'), 'not a code cache');
  });

  // V8 runs a cache's compiled code as it is (its checks are of versions and sizes, not of who wrote it)
  it('a cache file others may write, or of another user, is not used: compiled afresh and replaced by a private one', function () {
    if (process.platform === 'win32') this.skip();
    start();
    const full = path.join(cacheDir, caches()[0]!);
    const replacedAfter = (change: () => void) => {
      change();
      const before = fs.statSync(full);
      assert.equal(start().trim(), '1 dist true true');
      const after = fs.statSync(full);
      assert.notEqual(after.ino, before.ino, 'the cache was written anew');
      assert.equal(after.mode & 0o777, 0o600);
      assert.equal(after.uid, process.getuid!());
    };
    replacedAfter(() => fs.chmodSync(full, 0o666));
    replacedAfter(() => fs.chmodSync(full, 0o620));
    // only root can give a file away (CI and this suite's machines run as root)
    if (process.getuid!() === 0) replacedAfter(() => fs.chownSync(full, 12345, 12345));
    const before = fs.statSync(full).ino;
    start();
    assert.equal(fs.statSync(full).ino, before, 'the private cache written then is used as it is');
  });

  it('a rebuilt bundle gets a new cache file; the earlier build keeps its own, which it still uses when it runs again', () => {
    const WHEN = 1_700_000_000; // whole seconds: the key's mtime is the same when set again
    fs.utimesSync(bundle, WHEN, WHEN);
    start();
    const old = caches()[0]!;
    const oldIno = fs.statSync(path.join(cacheDir, old)).ino;
    write(22); // other size: another key
    assert.equal(start().trim(), '22 dist true true');
    assert.equal(caches().length, 2);
    assert.ok(caches().includes(old), 'the earlier build\'s cache stays');
    // the earlier build again (same size and mtime: same key), as a second install or another client would run it
    write(1);
    fs.utimesSync(bundle, WHEN, WHEN);
    assert.equal(start().trim(), '1 dist true true');
    assert.equal(fs.statSync(path.join(cacheDir, old)).ino, oldIno, 'used as it is, not compiled and saved again');
    assert.equal(caches().length, 2, caches().join(', '));
  });

  it(`past ${KEPT_CACHES} caches of one bundle (builds, Node versions) the oldest saved go; other names, folders and bundles stay`, () => {
    fs.mkdirSync(cacheDir, { recursive: true, mode: 0o700 });
    const others = Array.from({ length: 6 }, (_, i) => `main-v1.0.${i}-x64-10-10.v8`);
    others.forEach((name, i) => {
      fs.writeFileSync(path.join(cacheDir, name), 'x', { mode: 0o600 });
      fs.utimesSync(path.join(cacheDir, name), 1_000_000 + i * 1000, 1_000_000 + i * 1000);
    });
    fs.mkdirSync(path.join(cacheDir, 'main-v9.9.9-x64-1-1.v8'));
    fs.writeFileSync(path.join(cacheDir, 'mainx-v1.0.0-x64-1-1.v8'), 'x');
    fs.writeFileSync(path.join(cacheDir, 'other-v1.0.0-x64-1-1.v8'), 'x');
    assert.equal(start().trim(), '1 dist true true');
    const ours = caches().find((n) => n.startsWith(`main-${process.version}-`));
    assert.ok(ours, caches().join(', '));
    assert.deepEqual(
      caches().filter((n) => n !== ours).sort(),
      [...others.slice(6 - (KEPT_CACHES - 1)), 'main-v9.9.9-x64-1-1.v8', 'mainx-v1.0.0-x64-1-1.v8', 'other-v1.0.0-x64-1-1.v8'].sort(),
    );
  });

  it('an unwritable cache folder only costs the cache', () => {
    fs.mkdirSync(path.dirname(cacheDir), { recursive: true });
    fs.writeFileSync(cacheDir, 'a file where the folder should be');
    assert.equal(start().trim(), '1 dist true true');
  });

  it('refreshCodeCache saves again once the bundle compiled more than its cache held, and only then', () => {
    // a function the first start never calls: its code is not in the cache saved at exit
    const body = Array.from({ length: 200 }, (_, i) => `t += String(${i} * n).length + [${i}, n].join('-').length;`).join('\n');
    fs.writeFileSync(bundle, `exports.answer = async () => 'a';\nexports.more = (n) => { let t = 0;\n${body}\nreturn t; };\n`);
    const run = (callMore: boolean) =>
      execFileSync(process.execPath, ['-r', 'tsx/cjs', '-e',
        `const c = require(${JSON.stringify(MODULE)}); const m = c.runWithCodeCache({ file: ${JSON.stringify(bundle)}, cacheDir: ${JSON.stringify(cacheDir)} });
         ${callMore ? 'm.more(3);' : ''} console.log(c.refreshCodeCache());`], { encoding: 'utf8', cwd: path.resolve(__dirname, '../..') }).trim();
    run(false); // the first start: compiled, saved at exit
    const full = path.join(cacheDir, caches()[0]!);
    const first = fs.statSync(full).size;
    assert.equal(run(false), 'false', 'nothing more compiled: not saved again');
    assert.equal(fs.statSync(full).size, first);
    assert.equal(run(true), 'true', 'more compiled: saved again');
    const second = fs.statSync(full).size;
    assert.ok(second > first, `${second} > ${first}`);
    assert.equal(fs.statSync(full).mode & 0o777, 0o600);
    assert.equal(run(true), 'false', 'the saved cache holds it now');
  });

  // V8 stamps a cache with a hash of its flags: one changed at run time and left so at the save poisoned every cache
  it('a flag changed at run time: the cache is saved with the defaults a module registered, and the next start accepts it', () => {
    const run = (register: boolean) =>
      execFileSync(process.execPath, ['-r', 'tsx/cjs', '-e',
        `const c = require(${JSON.stringify(MODULE)}); const v8 = require('node:v8');
         const vm = require('node:vm'); const Script = vm.Script; let verdict = 'none';
         vm.Script = class extends Script { constructor(s, o) { super(s, o); if (o.cachedData) verdict = this.cachedDataRejected ? 'rejected' : 'accepted'; } };
         c.runWithCodeCache({ file: ${JSON.stringify(bundle)}, cacheDir: ${JSON.stringify(cacheDir)} });
         v8.setFlagsFromString('--semi-space-growth-factor=1');
         if (${register}) c.registerDefaultFlags((save) => { v8.setFlagsFromString('--semi-space-growth-factor=2'); try { return save(); } finally { v8.setFlagsFromString('--semi-space-growth-factor=1'); } });
         console.log(verdict);`], { encoding: 'utf8', cwd: path.resolve(__dirname, '../..') }).trim();
    assert.equal(run(false), 'none', 'the first start: compiled, saved at exit with the flag changed');
    assert.equal(run(false), 'rejected', 'what V8 does with such a cache (the reason for registerDefaultFlags)');
    assert.equal(run(true), 'rejected', 'that start still found the bad cache, and saved one with the defaults');
    assert.equal(run(true), 'accepted');
    assert.equal(run(true), 'accepted');
  });

  it('a bundle with UTF-8 text runs with that text intact (the ASCII fast read is only for ASCII files)', () => {
    fs.writeFileSync(bundle, `exports.answer = async () => ['é…©', /^[-*•]/.test('• x'), '\u2026'.length].join(' ');\n`);
    assert.equal(start().trim(), 'é…© true 1');
    assert.equal(start().trim(), 'é…© true 1', 'from the cache');
  });

  it('readSource: an ASCII file and a UTF-8 file read as require() reads them', () => {
    const ascii = `exports.a = "plain \\u2026 text";\n`;
    fs.writeFileSync(bundle, ascii);
    assert.equal(readSource(bundle), ascii);
    const utf8 = 'exports.a = "é … © 漢字 😀";\n';
    fs.writeFileSync(bundle, utf8);
    assert.equal(readSource(bundle), utf8);
  });

  it('the bundles loaded through the code cache are ASCII, so a start reads them without UTF-8 decoding', function () {
    const dist = path.resolve(__dirname, '../../dist');
    const bundles = ['cli-main.js', 'extension-main.js'].map((f) => path.join(dist, f)).filter((f) => fs.existsSync(f));
    if (bundles.length === 0) this.skip(); // npm test builds them first
    for (const file of bundles) {
      const text = fs.readFileSync(file);
      if (isAscii(text)) continue;
      const at = text.findIndex((b) => b > 0x7f);
      const line = text.subarray(0, at).toString('latin1').split('\n').length;
      assert.fail(`${path.basename(file)} line ${line} has a non-ASCII byte (esbuild leaves them in regex literals: write \\uXXXX there): ${text.subarray(Math.max(0, at - 60), at + 20).toString('utf8')}`);
    }
  });
});
