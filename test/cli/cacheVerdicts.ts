/**
 * V8's verdict on the code cache of a real CLI start, observed from outside the bundle: a preload (`--require`)
 * wraps vm.Script and appends 'accepted' or 'rejected' to a file whenever a script is given cached data.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { CLI } from '../mcp/helpers';

export interface VerdictProbe {
  /**
   * One stdio session of the built CLI in `root`: initialize, tools/list, a read of `read-me.txt`, then (after
   * `holdMs`: the server's idle work, zod's load among it) stdin ends.
   */
  session(env: NodeJS.ProcessEnv, holdMs?: number): Promise<void>;
  /** The verdicts so far, oldest first. */
  verdicts(): Promise<string[]>;
}

export async function verdictProbe(dir: string, root: string): Promise<VerdictProbe> {
  const hook = path.join(dir, 'cache-verdict.cjs');
  const file = path.join(dir, 'verdicts.txt');
  await fs.writeFile(
    hook,
    `const vm = require('node:vm'); const fs = require('node:fs');
const Script = vm.Script;
vm.Script = class extends Script { constructor(src, o) { super(src, o); if (o && o.cachedData) fs.appendFileSync(${JSON.stringify(file)}, (this.cachedDataRejected ? 'rejected' : 'accepted') + '\\n'); } };
`,
  );
  await fs.writeFile(path.join(root, 'read-me.txt'), 'one\ntwo\nthree\n');
  return {
    async session(env, holdMs = 0) {
      const child = execFile(process.execPath, ['--require', hook, CLI, '--root', root], { env });
      let out = '';
      let exited = false;
      const exit = new Promise((r) => child.once('exit', r)).then(() => (exited = true));
      child.stdout!.on('data', (d) => (out += d));
      const send = (m: object) => child.stdin!.write(JSON.stringify({ jsonrpc: '2.0', ...m }) + '\n');
      send({ id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } });
      send({ method: 'notifications/initialized' });
      send({ id: 2, method: 'tools/list', params: {} });
      send({ id: 3, method: 'tools/call', params: { name: 'be-read', arguments: { file: 'read-me.txt:1-3' } } });
      const deadline = Date.now() + 30000;
      while (!out.includes('"id":3') && !exited && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      if (holdMs) await new Promise((r) => setTimeout(r, holdMs));
      child.stdin!.end();
      await exit;
      const reply = out.split('\n').filter(Boolean).map((l) => JSON.parse(l) as { id?: number; result?: { content: { text: string }[] } }).find((m) => m.id === 3);
      assert.match(reply?.result?.content[0]?.text ?? out, /two/);
    },
    async verdicts() {
      const text = await fs.readFile(file, 'utf8').catch(() => '');
      return text.trim() ? text.trim().split('\n') : [];
    },
  };
}
