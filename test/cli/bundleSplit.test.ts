/**
 * What the stdio server bundle leaves out of a start (esbuild.mjs): the SDK Server's ajv validator, which it only
 * needs for an elicitation's answer, sits in dist/vendor/ajv-provider.js, so a start neither reads nor (without a
 * code cache) parses its ~130 KB; node:worker_threads loads at the first worker (an encoding guess, an outline, or the
 * outline workers the CLI starts at its first idle moment).
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { buildCli, REPO } from '../distBuild';
import { childEnv, cliArgs, tmpWorkspace } from '../mcp/helpers';

/** A stdio session of dist/cli.js on `lines`; the Node builtins it loaded, from a preload that lists them at exit. */
async function builtinsOf(lines: unknown[], files: Record<string, Buffer>, holdMs = 0): Promise<{ replies: string[]; builtins: string[] }> {
  const ws = await tmpWorkspace();
  try {
    for (const [name, bytes] of Object.entries(files)) await ws.write(name, bytes);
    const list = path.join(ws.cache, 'builtins.txt');
    const preload = path.join(ws.cache, 'preload.js');
    fs.writeFileSync(preload, `process.on('exit', () => require('fs').writeFileSync(${JSON.stringify(list)}, process.moduleLoadList.join('\\n')));`);
    const p = spawn(process.execPath, ['-r', preload, ...cliArgs(ws)], { env: childEnv(ws), cwd: ws.root, stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    p.stdout.on('data', (d: Buffer) => (out += d.toString('utf8')));
    p.stderr.resume();
    p.stdin.write(lines.map((l) => JSON.stringify(l) + '\n').join(''));
    // held open: the session has idle moments before it ends
    setTimeout(() => p.stdin.end(), holdMs);
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

  it('node:worker_threads loads at the first worker, not at the start', async () => {
    const init = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } };
    const read = (id: number, file: string) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'be-read', arguments: { file } } });
    // GBK: no BOM, not UTF-8, so the encoding is guessed (on a worker thread)
    const gbk = Buffer.from('c4e3bac3cac0bde70ad6d0cec4b2e2cad40a'.repeat(20), 'hex');
    const files = { 'a.txt': Buffer.from('plain\n'), 'g.txt': gbk };
    const plain = await builtinsOf([init, read(2, 'a.txt')], files);
    assert.equal(plain.replies.length, 2);
    assert.ok(plain.builtins.includes('crypto'), 'the list is read');
    assert.ok(!plain.builtins.includes('worker_threads'), 'a session with no worker loads no worker_threads');
    const guessed = await builtinsOf([init, read(2, 'g.txt:1-2')], files);
    assert.match(guessed.replies[1], /你好世界/);
    assert.ok(guessed.builtins.includes('worker_threads'));
    // a session that stays open has idle moments: the outline workers start in one of them
    const idle = await builtinsOf([init, read(2, 'a.txt')], files, 3000);
    assert.equal(idle.replies.length, 2);
    assert.ok(idle.builtins.includes('worker_threads'), 'the outline workers started at an idle moment');
  });
});
