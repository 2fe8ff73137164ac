/**
 * What the stdio server bundle leaves out of a start (esbuild.mjs): the SDK Server's ajv validator, which it only
 * needs for an elicitation's answer, sits in dist/vendor/ajv-provider.js, so a start neither reads nor (without a
 * code cache) parses its ~130 KB. The loader starts the outline workers as the process starts (the server adopts them);
 * with BET_NO_EARLY_WORKERS=1 node:worker_threads loads at the first worker (an encoding guess, an outline).
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { buildCli, REPO } from '../distBuild';
import { childEnv, cliArgs, tmpWorkspace } from '../mcp/helpers';

/** A stdio session of dist/cli.js on `lines`; the Node builtins it loaded, from a preload that lists them at exit. */
async function builtinsOf(lines: unknown[], files: Record<string, Buffer>, env: Record<string, string> = {}): Promise<{ replies: string[]; builtins: string[] }> {
  const ws = await tmpWorkspace();
  try {
    for (const [name, bytes] of Object.entries(files)) await ws.write(name, bytes);
    const list = path.join(ws.cache, 'builtins.txt');
    const preload = path.join(ws.cache, 'preload.js');
    fs.writeFileSync(preload, `process.on('exit', () => require('fs').writeFileSync(${JSON.stringify(list)}, process.moduleLoadList.join('\\n')));`);
    const p = spawn(process.execPath, ['-r', preload, ...cliArgs(ws)], { env: { ...childEnv(ws), ...env }, cwd: ws.root, stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    p.stdout.on('data', (d: Buffer) => (out += d.toString('utf8')));
    p.stderr.resume();
    p.stdin.end(lines.map((l) => JSON.stringify(l) + '\n').join(''));
    await new Promise((resolve) => p.on('exit', resolve));
    const builtins = fs.readFileSync(list, 'utf8').split('\n').filter((m) => m.startsWith('NativeModule ')).map((m) => m.slice(13));
    return { replies: out.split('\n').filter(Boolean), builtins };
  } finally {
    await ws.dispose();
  }
}

describe('cli bundle: the ajv validator in a file of its own', function () {
  this.timeout(120000);
  before(async () => buildCli());

  it('dist/cli-main.js holds no ajv; dist/vendor/ajv-provider.js validates as the SDK expects', () => {
    const bundle = fs.readFileSync(path.join(REPO, 'dist/cli-main.js'), 'utf8');
    assert.doesNotMatch(bundle, /must be equal to constant/, 'ajv is not in the server bundle');
    assert.match(bundle, /"vendor","ajv-provider\.js"/, 'the stand-in loads it beside the bundle');
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { AjvJsonSchemaValidator } = require(path.join(REPO, 'dist/vendor/ajv-provider.js')) as {
      AjvJsonSchemaValidator: new () => { getValidator(s: object): (v: unknown) => { valid: boolean } };
    };
    const validate = new AjvJsonSchemaValidator().getValidator({ type: 'object', properties: { mail: { type: 'string', format: 'email' } }, required: ['mail'] });
    assert.equal(validate({ mail: 'a@b.example' }).valid, true);
    assert.equal(validate({ mail: 'not a mail' }).valid, false);
  });

  it('the outline workers start with the process; without them node:worker_threads loads at the first worker', async () => {
    const init = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } };
    const read = (id: number, file: string) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'be-read', arguments: { file } } });
    // GBK: no BOM, not UTF-8, so the encoding is guessed (on a worker thread)
    const gbk = Buffer.from('c4e3bac3cac0bde70ad6d0cec4b2e2cad40a'.repeat(20), 'hex');
    const files = { 'a.txt': Buffer.from('plain\n'), 'g.txt': gbk };
    const early = await builtinsOf([init, read(2, 'a.txt')], files);
    assert.equal(early.replies.length, 2);
    assert.ok(early.builtins.includes('worker_threads'), 'the outline workers started with the process');
    const noEarly = { BET_NO_EARLY_WORKERS: '1' };
    const plain = await builtinsOf([init, read(2, 'a.txt')], files, noEarly);
    assert.equal(plain.replies.length, 2);
    assert.ok(plain.builtins.includes('crypto'), 'the list is read');
    assert.ok(!plain.builtins.includes('worker_threads'), 'a session with no worker loads no worker_threads');
    const guessed = await builtinsOf([init, read(2, 'g.txt:1-2')], files, noEarly);
    assert.match(guessed.replies[1], /你好世界/);
    assert.ok(guessed.builtins.includes('worker_threads'));
  });
});
