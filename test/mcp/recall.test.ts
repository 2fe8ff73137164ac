/** be-memory recall and `better-edit-tools recap` over the built stdio CLI, with the SDK client. */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { defaultMemoryDir } from '../../src/core/files/statePaths';
import { recallFileName } from '../../src/core/memory/node/recallStore';
import { getTokenizer } from '../../src/core/memory/node/tokenizer';
import { buildCli, call, callError, childEnv, CLI, stdioClient, tmpWorkspace, type Workspace } from './helpers';

function runCli(ws: Workspace, args: string[], env: Record<string, string> = {}, cwd = ws.root): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, ...args], { env: { ...childEnv(ws), ...env }, cwd }, (err, stdout, stderr) =>
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

describe('mcp be-memory recall and the recap command (stdio CLI)', function () {
  this.timeout(120_000);
  let ws: Workspace;
  before(buildCli);
  beforeEach(async () => {
    ws = await tmpWorkspace();
  });
  afterEach(async () => ws.dispose());

  it('an evicted tool result comes back in full by the id its fingerprint names, paged; the archive is 0600', async () => {
    const lines = Array.from({ length: 300 }, (_, i) => `export const value${i} = ${i}; // line ${i + 1}`);
    await ws.write('src/big.ts', `${lines.join('\n')}\n`);
    const c = await stdioClient(ws);
    let sessionFile = '';
    try {
      await call(c.client, 'be-read', { file: 'src/big.ts:1-300' });
      await call(c.client, 'be-memory', { action: 'add', kind: 'constraint', content: 'Keep value names stable.' });
      const w1 = await call(c.client, 'be-memory', { action: 'window' });
      const resultLine = (w1.recent as string[]).find((l) => l.includes('tool_result'))!;
      const resultId = resultLine.split(' ')[0]!;
      // still in the window: recall reads it from there
      const live = await call(c.client, 'be-memory', { action: 'recall', id: resultId, budget: 100_000 });
      assert.equal(live.in_window, true);
      const callId = (w1.recent as string[]).find((l) => l.includes('tool_call'))!.split(' ')[0]!;
      await call(c.client, 'be-memory', { action: 'evict', id: callId });
      const w2 = await call(c.client, 'be-memory', { action: 'window' });
      assert.ok((w2.fingerprints as string[]).some((f) => f.startsWith(`${resultId} tool_result be-read src/big.ts:1-300`)), 'the fingerprint names the id');
      assert.match(w2.summary, new RegExp(`\\[${callId},${resultId}\\] be-read src/big\\.ts:1-300 → ok`), 'the summary names the ids');

      // paged like reads: a small budget gives the first lines and next_offset, the next page continues
      const p1 = await call(c.client, 'be-memory', { action: 'recall', id: resultId, budget: 500 });
      assert.equal(p1.in_window, false);
      assert.equal(p1.offset, 0);
      assert.ok(p1.next_offset > 0 && p1.next_offset < p1.total_chars);
      const p2 = await call(c.client, 'be-memory', { action: 'recall', id: resultId, offset: p1.next_offset, budget: 100_000 });
      assert.equal(p2.next_offset, undefined);
      const whole = `${p1.content}${p2.content}`;
      assert.equal(whole.length, p1.total_chars);
      assert.match(whole, /value0 = 0; \/\/ line 1\\n/);
      // the recorder keeps head and tail of a long result: the recalled text is what the window held
      assert.match(whole, /characters omitted/);
      assert.ok(getTokenizer().count(p1.content) <= 500);

      const missing = await callError(c.client, 'be-memory', { action: 'recall', id: 'm999' });
      assert.match(missing, /no message "m999".*Recallable ids of the latest evictions: .*\bm\d+/);

      const memoryDir = defaultMemoryDir(path.join(ws.cache, 'better-edit-tools-mcp', 'chips'), [ws.root]);
      const recallDir = path.join(memoryDir, 'recall');
      const files = await fs.readdir(recallDir);
      assert.equal(files.length, 1);
      sessionFile = path.join(recallDir, files[0]!);
      assert.equal((await fs.stat(sessionFile)).mode & 0o777, 0o600);
      assert.equal((await fs.stat(recallDir)).mode & 0o777, 0o700);
      assert.ok(files[0]!.endsWith('.recall.jsonl') && files[0] === recallFileName(Buffer.from(files[0]!.split('.')[0]!, 'base64url').toString()));
    } finally {
      await c.close();
    }
    assert.ok(sessionFile);
  });

  it('recap --root prints the latest session: pins, last edits (failures marked), files touched, summary; bounded', async () => {
    await ws.write('src/order.ts', 'export function total(a: number) {\n  return a;\n}\n');
    const c = await stdioClient(ws);
    try {
      await call(c.client, 'be-memory', { action: 'add', kind: 'constraint', content: 'Never edit migrations/.' });
      for (let i = 0; i < 40; i++) await call(c.client, 'be-memory', { action: 'add', kind: 'constraint', content: `Constraint number ${i}: ${'keep it short '.repeat(20)}` });
      await call(c.client, 'be-read', { file: 'src/order.ts:1-3' });
      await call(c.client, 'be-replace', { file: 'src/order.ts:2', content: '  return a * 2;' });
      await callError(c.client, 'be-replace', { file: 'src/order.ts:90-99', content: 'x' });
      await call(c.client, 'be-write', { file: 'src/new.ts', content: 'export const made = true;\n' });
    } finally {
      await c.close();
    }
    const r = await runCli(ws, ['recap', '--root', ws.root, '--history-dir', ws.historyDir, '--budget', '800']);
    assert.equal(r.code, 0, r.stderr);
    const out = r.stdout;
    assert.match(out, /^\[Better Edit Tools recap of session stdio-/);
    assert.match(out, /Pinned constraints \(always apply\):\n- \[m1\] Never edit migrations\/\./);
    assert.match(out, /\(\d+ more pinned: be-memory \{"action":"pins","offset":\d+\}\)/, 'pins beyond the budget are counted, not printed');
    assert.match(out, /Edit calls by test, this session \(newest first\):\n- \[m\d+\] be-write src\/new\.ts → landed\n- \[m\d+\] be-replace src\/order\.ts:90-99 → REFUSED, nothing written: .*\n- \[m\d+\] be-replace src\/order\.ts:2 → landed/);
    assert.match(out, /Files changed by test, this session \(edits that landed\):\nsrc\/order\.ts \(×1\), src\/new\.ts \(×1\)\n/, 'the refused edit is not counted');
    assert.match(out, /Edits refused \(nothing was written to these paths\):\nsrc\/order\.ts \(×1\)\n/);
    const tokens = getTokenizer().count(out);
    assert.ok(tokens <= 800, `recap is ${tokens} tokens, over its 800-token budget`);

    // the Copilot CLI (COPILOT_CLI set) runs a plugin's hook in the plugin folder with the project in
    // COPILOT_PROJECT_DIR, and takes only a JSON additionalContext into the context
    const pluginFolder = await tmpWorkspace();
    try {
      const copilot = await runCli(ws, ['recap', '--history-dir', ws.historyDir, '--budget', '800'], { COPILOT_CLI: '1', COPILOT_PROJECT_DIR: ws.root }, pluginFolder.root);
      assert.equal(copilot.code, 0, copilot.stderr);
      const context = (JSON.parse(copilot.stdout) as { additionalContext: string }).additionalContext;
      assert.match(context, /^\[Better Edit Tools recap of session stdio-/);
      assert.match(context, /Pinned constraints \(always apply\):\n- \[m1\] Never edit migrations\/\./);
      // without COPILOT_CLI the project is the folder the hook runs in, the text plain
      const elsewhere = await runCli(ws, ['recap', '--history-dir', ws.historyDir], { COPILOT_PROJECT_DIR: ws.root }, pluginFolder.root);
      assert.equal(elsewhere.stdout, '');
      assert.match(elsewhere.stderr, /no chat-memory session saved/);
    } finally {
      await pluginFolder.dispose();
    }

    // no session for another workspace: nothing on stdout, exit 0 (a hook must not fail the host)
    const other = await tmpWorkspace();
    try {
      const none = await runCli(other, ['recap', '--root', other.root]);
      assert.equal(none.code, 0);
      assert.equal(none.stdout, '');
      assert.match(none.stderr, /no chat-memory session saved/);
    } finally {
      await other.dispose();
    }
    const bad = await runCli(ws, ['recap', '--budget', '10']);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--budget must be an integer from 200 to 100000 \(tokens\), got "10"/);
  });

  it('recap: refused edits (binary, .git, outside the roots) are refusals, never edits; another session\'s landed edits are named with their author', async () => {
    await ws.write('src/a.ts', 'export const a = 1;\n');
    await ws.write('icon.png', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d, 0x49, 0x48, 0x44, 0x52]));
    const outside = await tmpWorkspace();
    try {
      await outside.write('secret.txt', 'keep\n');
      // session 1 (another agent) lands an edit, then closes
      const other = await stdioClient(ws);
      try {
        await call(other.client, 'be-write', { file: 'src/from-other.ts', content: 'export const other = true;\n' });
      } finally {
        await other.close();
      }
      await new Promise((r) => setTimeout(r, 50)); // the sessions' files differ in mtime: the recap reads the newest
      const c = await stdioClient(ws);
      try {
        await callError(c.client, 'be-write', { file: '.git/hooks/pre-commit', content: '#!/bin/sh\ntouch pwned\n' });
        await callError(c.client, 'be-replace', { file: 'icon.png:1', content: 'text' });
        await callError(c.client, 'be-write', { file: outside.file('secret.txt'), content: 'overwritten\n' });
        await call(c.client, 'be-replace', { file: 'src/a.ts:1', content: 'export const a = 2;' });
      } finally {
        await c.close();
      }
      const r = await runCli(ws, ['recap', '--root', ws.root, '--history-dir', ws.historyDir]);
      assert.equal(r.code, 0, r.stderr);
      const out = r.stdout;
      // nothing was written by the refused calls
      await assert.rejects(fs.access(ws.file('.git/hooks/pre-commit')));
      assert.equal(await fs.readFile(outside.file('secret.txt'), 'utf8'), 'keep\n');
      for (const refused of ['.git/hooks/pre-commit', 'icon.png', 'secret.txt']) {
        assert.doesNotMatch(out, new RegExp(`${refused.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}[^\n]*(→ landed|→ ok|edited)`), `${refused} must not read as an edit`);
      }
      assert.match(out, /Files changed by test, this session \(edits that landed\):\nsrc\/a\.ts \(×1\)\n/);
      const refusedLine = /Edits refused \(nothing was written to these paths\):\n(.*)\n/.exec(out)?.[1] ?? '';
      assert.match(refusedLine, /\.git\/hooks\/pre-commit \(×1\)/);
      assert.match(refusedLine, /icon\.png:?\S* \(×1\)|icon\.png \(×1\)/);
      assert.match(refusedLine, /secret\.txt \(×1\)/);
      assert.match(out, /→ REFUSED, nothing written/);
      // the other session's edit: listed apart, with who made it
      assert.match(out, /Edits other sessions landed in this workspace \(files newest first, by author\):\n- src\/from-other\.ts — by test \(session stdio-[^)]+\), newest at \d{4}-/);
      assert.doesNotMatch(out, /Files changed by[^\n]*\n[^\n]*from-other/, "another session's edit is not this session's");
    } finally {
      await outside.dispose();
    }
  });

  it("recap: this session's edit that another session rolled back is shown as rolled back, its file not as changed", async () => {
    await ws.write('src/a.ts', 'export const a = 1;\n');
    await ws.write('src/b.ts', 'export const b = 1;\n');
    const c = await stdioClient(ws);
    try {
      await call(c.client, 'be-replace', { file: 'src/b.ts:1', content: 'export const b = 2;' });
      await call(c.client, 'be-replace', { file: 'src/a.ts:1', content: 'export const a = 2;' });
      const other = await stdioClient(ws);
      try {
        await call(other.client, 'be-trx', { action: 'rollback', step: 1 });
      } finally {
        await other.close();
      }
      await new Promise((r) => setTimeout(r, 50)); // this session is the newest: the recap reads it
      await call(c.client, 'be-read', { file: 'src/a.ts:ALL' });
    } finally {
      await c.close();
    }
    assert.equal(await ws.read('src/a.ts').then(String), 'export const a = 1;\n');
    const r = await runCli(ws, ['recap', '--root', ws.root, '--history-dir', ws.historyDir]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /\] be-replace src\/a\.ts:1 → rolled back \(landed, undone since\)\n- \[m\d+\] be-replace src\/b\.ts:1 → landed\n/);
    assert.match(r.stdout, /Files changed by test, this session \(edits that landed\):\nsrc\/b\.ts \(×1\)\n/);
  });
});
