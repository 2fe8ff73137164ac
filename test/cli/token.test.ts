/** `--http --token-file FILE` and BETTER_EDIT_TOOLS_TOKEN: the file checked as untrusted input; the real CLI serves with it. */
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { readFixedToken, TOKEN_ENV } from '../../src/cli/token';
import { parseCli } from '../../src/cli/args';
import { buildCli, CLI } from '../mcp/helpers';

const GOOD = 'a3f1c0de9b7e4d21a3f1c0de9b7e4d21';

describe('cli: a fixed token for --http', function () {
  this.timeout(60000);
  let dir: string;
  beforeEach(async () => {
    dir = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'bet-token-')));
  });
  afterEach(() => fs.rm(dir, { recursive: true, force: true }));
  const file = async (name: string, text: string, mode = 0o600) => {
    const p = path.join(dir, name);
    await fs.writeFile(p, text, { mode });
    await fs.chmod(p, mode);
    return p;
  };

  it('reads a 0600 file (trimmed), else the environment, else none', async () => {
    assert.deepEqual(await readFixedToken(await file('t', `${GOOD}\n`), {}), { token: GOOD, source: path.join(dir, 't') });
    assert.deepEqual(await readFixedToken(undefined, { [TOKEN_ENV]: GOOD }), { token: GOOD, source: TOKEN_ENV });
    assert.equal(await readFixedToken(undefined, {}), undefined);
  });

  it('refuses a FIFO without blocking, a directory, a missing file, a file others can read, and bad tokens', async () => {
    const fifo = path.join(dir, 'fifo');
    execFileSync('mkfifo', ['-m', '600', fifo]);
    const t = Date.now();
    await assert.rejects(readFixedToken(fifo, {}), /not a regular file/);
    assert.ok(Date.now() - t < 2000, 'no wait for a writer');
    await assert.rejects(readFixedToken(dir, {}), /not a regular file/);
    await assert.rejects(readFixedToken(path.join(dir, 'none'), {}), /cannot read it \(ENOENT\)/);
    await assert.rejects(readFixedToken(await file('open', GOOD, 0o644), {}), /readable or writable by other users \(mode 644\); run chmod 600/);
    await assert.rejects(readFixedToken(await file('short', 'abc'), {}), /16\.\.512 characters, got 3/);
    await assert.rejects(readFixedToken(await file('space', `${GOOD} ${GOOD}`), {}), /may use only/);
    await assert.rejects(readFixedToken(await file('big', 'x'.repeat(5000)), {}), /at most 4096/);
    await assert.rejects(readFixedToken(undefined, { [TOKEN_ENV]: 'short' }), new RegExp(`${TOKEN_ENV}: the token must have`));
    assert.throws(() => parseCli(['--token-file', 'x'], {}), /--token-file needs --http/);
  });

  it('the real CLI serves --http with the file token, does not print it, and refuses a bad file with exit 2', async () => {
    await buildCli();
    const ws = path.join(dir, 'ws');
    await fs.mkdir(ws);
    const env: Record<string, string> = {};
    for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
    env.XDG_CACHE_HOME = path.join(dir, 'cache');
    const bad = await file('bad', GOOD, 0o640);
    const refused = spawn(process.execPath, [CLI, '--root', ws, '--http', '--token-file', bad], { env });
    let refusedErr = '';
    refused.stderr.on('data', (d) => (refusedErr += d));
    assert.equal(await new Promise((r) => refused.on('exit', r)), 2);
    assert.match(refusedErr, /readable or writable by other users/);

    const tokenFile = await file('token', `${GOOD}\n`);
    const child = spawn(process.execPath, [CLI, '--root', ws, '--http', '--token-file', tokenFile], { env });
    try {
      let err = '';
      child.stderr.on('data', (d) => (err += d));
      const url = await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no URL: ${err}`)), 20000);
        child.stderr.on('data', () => {
          const m = /HTTP: (http:\S+)/.exec(err);
          if (m && /token: /.test(err)) {
            clearTimeout(timer);
            resolve(m[1]);
          }
        });
      });
      assert.ok(!err.includes(GOOD), 'the token is not echoed');
      assert.match(err, /token: the one from .*token/);
      const client = new Client({ name: 'fixed', version: '0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${GOOD}` } } }));
      assert.ok((await client.listTools()).tools.some((t) => t.name === 'be-read'));
      await client.close();
    } finally {
      child.kill();
    }
  });
});
