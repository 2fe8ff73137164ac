/** `npm test` on a machine without a usable Chromium: the browser test is a clear skip, not a failure. */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

const REPO = path.resolve(__dirname, '..', '..');

function runTokenWindowTest(chromium: string): Promise<{ code: number; out: string }> {
  const args = [path.join(REPO, 'node_modules', 'mocha', 'bin', 'mocha.js'), '--no-config', '-r', 'tsx/cjs', '--timeout', '20000', 'test/vscode/tokenWindow.test.ts'];
  return new Promise((resolve) => {
    execFile(process.execPath, args, { cwd: REPO, env: { ...process.env, CHROMIUM: chromium }, timeout: 90_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, out: stdout + stderr });
    });
  });
}

describe('vscode/tokenWindow without a usable Chromium', function () {
  this.timeout(120_000);
  let dir: string;
  before(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'no-chromium-'));
  });
  after(() => fs.rm(dir, { recursive: true, force: true }));

  it('a missing browser: skipped with the reason, exit 0', async () => {
    const r = await runTokenWindowTest(path.join(dir, 'missing', 'chromium'));
    assert.equal(r.code, 0, r.out);
    assert.match(r.out, /Chromium is not usable at .*missing\/chromium \(not found\): the Token Window browser test is skipped/);
    assert.match(r.out, /0 passing[\s\S]*[1-9]\d* pending/, 'every browser test pending, none run');
    assert.doesNotMatch(r.out, /failing/);
  });

  it('a browser that cannot start (a wrapper that only prints a hint): skipped, not failed', async () => {
    const wrapper = path.join(dir, 'chromium');
    await fs.writeFile(wrapper, '#!/bin/sh\necho "chromium: please install the snap" >&2\nexit 1\n', { mode: 0o755 });
    const r = await runTokenWindowTest(wrapper);
    assert.equal(r.code, 0, r.out);
    assert.match(r.out, /Chromium is not usable at .*chromium \(.+\): the Token Window browser test is skipped/);
    assert.match(r.out, /0 passing[\s\S]*[1-9]\d* pending/, 'every browser test pending, none run');
    assert.doesNotMatch(r.out, /failing/);
  });
});
