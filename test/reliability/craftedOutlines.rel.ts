/**
 * Crafted texts for the outline's body readers, against the built CLI over stdio (`npm run test:reliability`): heads
 * whose bodies or parameter lists never close, heads nested ever deeper, and interpolations nested without end, in
 * each language with a body reader, each 600 KB (above the 256 KiB the readers start at). A structure read of each
 * answers within 5 s (a 300 KB file of `function f() {` lines took 24.7 s before the readers had a budget of steps,
 * src/core/context/scanBudget.ts; nested interpolations overflowed their stack, literals.ts nestedLiteral).
 */
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { buildCli, childEnv, cliArgs, tmpWorkspace, type Workspace } from '../mcp/helpers';
import { figure } from './figures';

const SIZE = 600_000;

/** A text of `unit` repeated to SIZE after `head`. */
const filled = (head: string, unit: string) => head + unit.repeat(Math.ceil((SIZE - head.length) / unit.length));
/** Lines one blank deeper each, `unit` after the indent, to about SIZE. */
function nested(head: string, unit: string): string {
  const lines: string[] = [head];
  for (let k = 0, size = head.length; size < SIZE; k++) {
    lines.push(' '.repeat(k) + unit);
    size += k + unit.length;
  }
  return lines.join('');
}

const FILES: [string, string][] = [
  ['flat.ts', filled('', 'function f() {\n')],
  ['params.ts', filled('', 'function f(\n')],
  ['nested.js', nested('', 'function f() {\n')],
  ['template.ts', filled('const a = ', '`${')],
  ['flat.rs', filled('', 'fn f() {\n')],
  ['flat.cpp', filled('', 'int f() {\n')],
  ['flat.php', filled('<?php\n', 'function f() {\n')],
  ['nested.php', filled('<?php\n$a = ', '"{$b[')],
  ['flat.go', filled('package p\n', 'func f() {\n')],
  ['nested.rb', nested('', 'def f(\n')],
  ['interpolated.rb', filled('x = ', '"#{')],
  ['nested.sh', nested('', 'f() {\n')],
  ['substituted.sh', filled('x=', '"$(')],
  ['holes.cs', filled('class A { void f() { var s = ', '$"{')],
  ['holes.py', filled('def f():\n    x = ', 'f"{')],
];

describe('reliability: crafted texts for the outline body readers (stdio, built CLI)', function () {
  this.timeout(300_000);
  let ws: Workspace;
  let client: Client;

  before(async () => {
    await buildCli();
    ws = await tmpWorkspace();
    for (const [name, text] of FILES) await ws.write(name, text);
    client = new Client({ name: 'crafted', version: '1' });
    await client.connect(new StdioClientTransport({ command: process.execPath, args: cliArgs(ws), env: childEnv(ws), cwd: ws.root, stderr: 'ignore' }));
  });

  after(async () => {
    await client?.close();
    await ws?.dispose();
  });

  it('a structure read of each answers within 5 s', async () => {
    let slowest = 0;
    let slowestFile = '';
    for (const [name] of FILES) {
      const t = performance.now();
      const res = (await client.callTool({ name: 'be-read', arguments: { file: name, mode: 'structure' } }, undefined, { timeout: 120_000 })) as CallToolResult;
      const ms = performance.now() - t;
      assert.ok(!res.isError, `${name}: ${JSON.stringify(res.content).slice(0, 200)}`);
      if (ms > slowest) [slowest, slowestFile] = [ms, name];
      assert.ok(ms < 5000, `${name}: ${ms.toFixed(0)} ms`);
    }
    figure('crafted outlines: files (600 KB each; flat, nested, interpolated)', FILES.length, 'each answered');
    figure('crafted outlines: slowest structure read (ms)', `${slowest.toFixed(0)} (${slowestFile})`, '< 5000 (24,700 for 300 KB before the budget)');
  });
});
