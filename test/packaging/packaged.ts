/**
 * Shared by the packaging tests: a workspace outside any node_modules, an environment without the outer npm's
 * settings, and one MCP session (the real SDK client) that needs the shipped grammars: a structure read and
 * be-func-range of a Python file.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

export const REPO = path.resolve(__dirname, '..', '..');

/** A temp folder; fails the test when a node_modules above it could stand in for what the package lacks. */
export function isolatedDir(prefix: string): string {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
  for (let d = path.dirname(dir); ; d = path.dirname(d)) {
    assert.ok(!fs.existsSync(path.join(d, 'node_modules')), `${d}/node_modules would mask missing files: use a TMPDIR without one above it`);
    if (path.dirname(d) === d) break;
  }
  return dir;
}

/** process.env minus what an outer `npm test` exports (npm_config_*, npm_package_*, …) plus `extra`. */
export function cleanEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !/^npm_/i.test(k) && k !== 'NODE' && k !== 'INIT_CWD') env[k] = v;
  return { ...env, LANG: 'C', ...extra };
}

export function run(cmd: string, args: string[], opts: { cwd: string; env: Record<string, string>; timeout?: number }): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(cmd, args, { ...opts, timeout: opts.timeout ?? 240000, maxBuffer: 16 << 20 }, (err, stdout, stderr) =>
      err ? reject(new Error(`${cmd} ${args.join(' ')} failed: ${err.message}\n${stderr}`)) : resolve(stdout),
    );
  });
}

const PY = `def add(a, b):
    return a + b


class Calc:
    def mul(self, a, b):
        x = a * b
        return x
`;

// '// 中文注释，这是一个测试文件\n' and its edit in GBK, written out so that the test needs no codec of its own
const GBK_LINE = Buffer.from('2f2f20d6d0cec4d7a2cacda3acd5e2cac7d2bbb8f6b2e2cad4cec4bcfe0a', 'hex');
const GBK_C = Buffer.concat(Array.from({ length: 60 }, () => GBK_LINE)); // enough Chinese for a confident guess
const GBK_EDITED = Buffer.from('2f2f20b8c4b9fdb5c4d7a2cacda3acc8d4cac72047424b0a', 'hex');

/** Starts `command args --root <ws>` as an MCP client would and checks the grammar-backed tools answer. */
export async function checkStructureTools(command: string, args: string[], base: string): Promise<void> {
  const ws = path.join(base, 'ws');
  fs.mkdirSync(path.join(ws, 'src'), { recursive: true });
  fs.writeFileSync(path.join(ws, 'src', 'math.py'), PY);
  // GBK without a BOM, recognised by a guess: iconv-lite and jschardet load from dist/vendor, not node_modules
  fs.writeFileSync(path.join(ws, 'src', 'legacy.c'), GBK_C);
  const transport = new StdioClientTransport({
    command,
    args: [...args, '--root', ws, '--chip-dir', path.join(base, 'chips')],
    cwd: ws,
    env: cleanEnv({ XDG_CACHE_HOME: path.join(base, 'cache') }),
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  const client = new Client({ name: 'packaging-test', version: '1.0.0' });
  await client.connect(transport).catch((e: Error) => {
    throw new Error(`${command} ${args.join(' ')} did not start: ${e.message}\nserver stderr:\n${stderr}`);
  });
  try {
    const text = async (name: string, input: Record<string, unknown>) => {
      const r = (await client.callTool({ name, arguments: input })) as { isError?: boolean; content: { type: string; text?: string }[] };
      const t = r.content.map((c) => c.text ?? '').join('');
      assert.ok(!r.isError, `${name} failed: ${t}\nserver stderr:\n${stderr}`);
      return t;
    };
    const structure = await text('be-read', { file: 'src/math.py', mode: 'structure' });
    assert.match(structure, /^8 lines, \d+ tokens \(structure\)$/m); // the text reply written for the model
    assert.match(structure, /\bmul\b/);
    assert.doesNotMatch(structure, /indent/i, `tree-sitter, not the indentation fallback: ${structure.slice(0, 300)}`);
    const range = JSON.parse(await text('be-func-range', { file: 'src/math.py', line: 8 })) as { start: number; end: number; name?: string };
    assert.deepEqual([range.start, range.end, range.name], [6, 8, 'mul']);
    await text('be-replace', { file: 'src/legacy.c:1', content: '// 改过的注释，仍是 GBK\n' });
    assert.deepEqual(fs.readFileSync(path.join(ws, 'src', 'legacy.c')), Buffer.concat([GBK_EDITED, GBK_C.subarray(GBK_C.indexOf(0x0a) + 1)]), 'edited in GBK, the rest byte-identical');
    assert.doesNotMatch(stderr, /Warning|Error/, `a clean start: ${stderr}`);
  } finally {
    await client.close();
  }
}
