/**
 * Reliability of legacy encodings in the real server: the first file that needs its encoding guessed (jschardet's
 * first load and first detection) and the first legacy decode (iconv-lite's first load and each codec's tables) must
 * not block the server's event loop for more than 100 ms. Measured inside the built stdio CLI (dist/cli.js) with
 * fixtures/loopMonitor.cjs preloaded, through a real MCP SDK client, on files in a temp workspace.
 * Run: node esbuild.mjs && npx mocha --config test/reliability/.mocharc.json test/reliability/encoding.rel.ts
 */
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import * as iconv from 'iconv-lite';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { figure } from './figures';
import { buildCli, childEnv, cliArgs, textOf, tmpWorkspace, type Workspace } from '../mcp/helpers';

interface Block {
  maxWall: number;
  /** the whole process's CPU between two turns: counts the detector's worker thread too */
  maxCpu: number;
  /** the main thread's own CPU between two turns (Linux), else null */
  maxMainCpu: number | null;
  ticks: number;
}

/**
 * The longest block, as the other suites bound it: the process's CPU time between two turns (an upper bound; it
 * counts the worker and V8's helper threads too). The main thread's own share is printed beside it, and bounded too.
 * Before guessWorker.ts: 155-157 ms process CPU, 88 ms main thread, 251-651 ms wall on the first GBK file.
 */
const blocked = (b: Block): number => Math.max(b.maxCpu, b.maxMainCpu ?? 0);
const describeBlock = (b: Block): string =>
  `${b.maxCpu.toFixed(0)} (main thread ${b.maxMainCpu === null ? 'n/a' : b.maxMainCpu.toFixed(0)}, wall ${b.maxWall.toFixed(0)})`;

/** A stdio server with the loop monitor preloaded; take() is the longest block since the last take(). */
async function monitoredServer(ws: Workspace, name: string, extra: string[] = []) {
  const out = path.join(ws.cache, `loop-${name}.json`);
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ['--require', path.join(__dirname, 'fixtures', 'loopMonitor.cjs'), ...cliArgs(ws, extra)],
    env: { ...childEnv(ws), LOOP_MONITOR_OUT: out },
    cwd: ws.root,
    stderr: 'pipe',
  });
  const client = new Client({ name: `encoding-${name}`, version: '1.0.0' });
  await client.connect(transport);
  const pid = transport.pid!;
  let seq = 0;
  return {
    client,
    async call(tool: string, args: Record<string, unknown>): Promise<{ result: CallToolResult; ms: number }> {
      const t = performance.now();
      const result = (await client.callTool({ name: tool, arguments: args })) as CallToolResult;
      if (result.isError) throw new Error(`${tool} failed: ${textOf(result)}`);
      return { result, ms: performance.now() - t };
    },
    async take(): Promise<Block> {
      process.kill(pid, 'SIGUSR2');
      for (const t = Date.now(); Date.now() - t < 10_000; await new Promise((r) => setTimeout(r, 5))) {
        let r: Block & { seq: number };
        try {
          r = JSON.parse(await fs.readFile(out, 'utf8'));
        } catch {
          continue; // not written yet, or being written
        }
        if (r.seq > seq) {
          seq = r.seq;
          return r;
        }
      }
      throw new Error('the loop monitor did not answer');
    },
    close: () => client.close(),
  };
}

/** Comments in the file's own script: nothing but a guess tells these encodings apart. */
const SAMPLES: Record<string, string> = {
  gbk: '// 中文注释，这是一个函数的说明，返回值是整数\nint main(void) { return 0; } // 返回\n',
  big5: '// 中文註解，這是一個函數的說明，傳回值是整數\nint main(void) { return 0; } // 傳回\n',
  shift_jis: '// 日本語のコメント、これは関数の説明です\nint main(void) { return 0; } // 戻り値\n',
  'euc-kr': '// 한국어 주석입니다. 이것은 함수의 설명입니다\nint main(void) { return 0; } // 반환\n',
};

/** What the guess names each sample (Microsoft's supersets for Japanese and Korean: they decode it all). */
const GUESSED: Record<string, string[]> = { big5: ['big5'], shift_jis: ['shift_jis', 'cp932'], 'euc-kr': ['euc-kr', 'cp949'] };

describe('reliability: legacy encodings do not block the event loop', function () {
  this.timeout(300_000);
  let ws: Workspace;

  before(async () => {
    await buildCli();
    ws = await tmpWorkspace();
    for (const [enc, text] of Object.entries(SAMPLES)) await ws.write(`${enc}.c`, iconv.encode(text.repeat(40), enc));
    await ws.write('conf.sjis', iconv.encode(SAMPLES.shift_jis.repeat(40), 'shift_jis'));
    await ws.write('wide.txt', iconv.encode('one\r\n二\r\n'.repeat(200), 'utf16le', { addBOM: true }));
    await ws.write('warm.txt', 'warm up\n');
  });
  after(async () => ws?.dispose());

  /** Reads `file` (a warm-up read first, so the server's own first-call costs are out of the window). */
  async function measure(server: Awaited<ReturnType<typeof monitoredServer>>, label: string, file: string, expected: string | string[]) {
    await server.take();
    const { result, ms } = await server.call('be-read', { file: ws.file(file) });
    const block = await server.take();
    const encoding = (result.structuredContent as { encoding?: string } | undefined)?.encoding;
    assert.ok([expected].flat().includes(encoding!), `${file} read in ${expected}, not ${encoding}`);
    figure(`encoding: ${label}, longest loop block CPU (ms)`, `${describeBlock(block)}; call ${ms.toFixed(0)} ms`, '< 100');
    return block;
  }

  it('the first guessed file (jschardet and iconv-lite load), then every other guessed script, then an edit', async () => {
    const server = await monitoredServer(ws, 'guess');
    try {
      await server.call('be-read', { file: ws.file('warm.txt'), mode: 'full' });
      const blocks: Block[] = [];
      blocks.push(await measure(server, 'first guessed file (GBK)', 'gbk.c', 'gbk'));
      for (const enc of ['big5', 'shift_jis', 'euc-kr']) blocks.push(await measure(server, `first ${enc} file`, `${enc}.c`, GUESSED[enc]!));
      await server.take();
      await server.call('be-replace', { file: `${ws.file('gbk.c')}:1`, content: '// 改了\n' });
      const edit = await server.take();
      figure('encoding: first GBK edit, longest loop block CPU (ms)', describeBlock(edit), '< 100');
      assert.ok((await ws.read('gbk.c')).subarray(0, 8).equals(iconv.encode('// 改了\n', 'gbk')), 'the edit landed in GBK');
      for (const b of [...blocks, edit]) assert.ok(blocked(b) < 100, `a block of ${describeBlock(b)} ms CPU (goal < 100)`);
    } finally {
      await server.close();
    }
  });

  it('the first legacy file with no guess needed (configured Shift_JIS, UTF-16LE BOM): iconv-lite loads without a long block', async () => {
    const server = await monitoredServer(ws, 'configured', ['--encoding', '*.sjis=shift_jis']);
    try {
      await server.call('be-read', { file: ws.file('warm.txt'), mode: 'full' });
      const first = await measure(server, 'first configured file (Shift_JIS)', 'conf.sjis', 'shift_jis');
      const wide = await measure(server, 'first UTF-16LE file', 'wide.txt', 'utf16le');
      for (const b of [first, wide]) assert.ok(blocked(b) < 100, `a block of ${describeBlock(b)} ms CPU (goal < 100)`);
    } finally {
      await server.close();
    }
  });
});
