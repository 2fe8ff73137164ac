/**
 * Writes into `.git/` over the real stdio server (dist/cli.js, SDK client): refused by default with an error that
 * says how to opt in, so an agent cannot plant `core.fsmonitor` (a command the next `git status` runs); allowed
 * exactly where `--allow-write GLOB` says.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { call, callError, stdioClient, tmpWorkspace, type Connected, type Workspace } from './helpers';

const CONFIG = '[core]\n\trepositoryformatversion = 0\n\tbare = false\n';

describe('mcp: writes under .git (stdio, dist/cli.js)', function () {
  this.timeout(120000);
  let ws: Workspace;
  let c: Connected | undefined;
  let marker: string;
  let planted: string;

  beforeEach(async () => {
    ws = await tmpWorkspace();
    execFileSync('git', ['init', '-q', ws.root]);
    await fs.writeFile(ws.file('.git/config'), CONFIG);
    await ws.write('src/a.txt', 'hello\n');
    marker = path.join(ws.cache, 'fsmonitor-ran');
    planted = `${CONFIG}\tfsmonitor = "touch '${marker}'; false"\n`;
  });
  afterEach(async () => {
    await c?.close();
    c = undefined;
    await ws.dispose();
  });

  /** Runs git status as an editor would; true when the planted fsmonitor command ran. */
  async function gitStatusRunsPlantedCommand(): Promise<boolean> {
    try {
      execFileSync('git', ['-C', ws.root, 'status', '--porcelain'], { stdio: 'ignore', timeout: 20000 });
    } catch {
      // a broken fsmonitor makes git complain; what matters is whether it ran
    }
    return fs.access(marker).then(() => true, () => false);
  }

  it('refuses be-write, be-replace and be-insert into .git with a clear error; the config keeps every byte', async () => {
    c = await stdioClient(ws);
    const write = await callError(c.client, 'be-write', { file: '.git/config', content: planted });
    assert.match(write, /inside a \.git folder/);
    assert.match(write, /--allow-write GLOB/);
    assert.match(write, /betterEditTools\.allowWrite/);
    await callError(c.client, 'be-replace', { file: '.git/config:1', content: '[core]\n\tfsmonitor = x' });
    await callError(c.client, 'be-insert', { file: '.git/config:1', content: '\tfsmonitor = x' });
    await callError(c.client, 'be-write', { file: '.git/hooks/pre-commit', content: '#!/bin/sh\ntouch x\n' });
    assert.equal(await fs.readFile(ws.file('.git/config'), 'utf8'), CONFIG);
    await assert.rejects(fs.access(ws.file('.git/hooks/pre-commit')));
    // reading there is fine, and so is writing anywhere else
    const read = await call(c.client, 'be-read', { file: '.git/config' });
    assert.match(JSON.stringify(read), /repositoryformatversion/);
    await call(c.client, 'be-write', { file: 'src/a.txt', content: 'bye\n' });
    assert.equal(await gitStatusRunsPlantedCommand(), false);
  });

  it('--allow-write GLOB opens exactly the matching paths', async () => {
    c = await stdioClient(ws, ['--allow-write', '.git/info/exclude']);
    await call(c.client, 'be-write', { file: '.git/info/exclude', content: 'build/\n' });
    assert.equal(await fs.readFile(ws.file('.git/info/exclude'), 'utf8'), 'build/\n');
    await callError(c.client, 'be-write', { file: '.git/config', content: planted });
    assert.equal(await fs.readFile(ws.file('.git/config'), 'utf8'), CONFIG);
    assert.match(c.stderr(), /writes allowed inside \.git where they match: \.git\/info\/exclude/);
  });

  it('with --allow-write .git/config the user opted in: the write lands (and git would run it)', async () => {
    c = await stdioClient(ws, ['--allow-write', '.git/config']);
    await call(c.client, 'be-write', { file: '.git/config', content: planted });
    assert.equal(await fs.readFile(ws.file('.git/config'), 'utf8'), planted);
    assert.equal(await gitStatusRunsPlantedCommand(), true, 'the attack this refusal prevents is real');
  });
});
