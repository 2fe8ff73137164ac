/**
 * The landed-edit log: edits other sessions landed stay in the recap after a be-trx commit and past the step
 * cap; a rollback or revert takes them out; the log stays bounded and private, and planted lines are ignored.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { MemoryRegistry } from '../../src/core/memory/node/registry';
import { getTokenizer } from '../../src/core/memory/node/tokenizer';
import { renderSessionRecap } from '../../src/core/memory/sessionRecap';
import { readKnownEdits, readLandedEdits } from '../../src/cli/recapHistory';
import { appendLanded, LANDED_LOG, MAX_ENTRIES, readLandedLog } from '../../src/core/history/node/landedLog';
import { workspaceKey } from '../../src/core/files/workspaceKey';
import type { ToolSession } from '../../src/mcp/toolSession';
import type { Workspace } from '../mcp/helpers';
import { twoSessions, type TwoSessions } from './twoSessions';

const tok = getTokenizer();
const count = (t: string) => tok.count(t);

describe('cli/recapHistory: the landed-edit log', () => {
  let ws: Workspace;
  let registry: MemoryRegistry;
  let a: ToolSession;
  let b: ToolSession;
  let env: TwoSessions;
  beforeEach(async () => {
    env = await twoSessions(['a.ts', 'b.ts', 'c.ts', 'd.ts', 'e.ts']);
    ({ ws, registry, a, b } = env);
  });
  afterEach(() => env.close());

  const insert = async (s: ToolSession, f: string): Promise<string> => {
    const r = await s.call('be-insert', { file: `${ws.file(f)}:1`, content: `// ${f}\n` });
    assert.equal(r.isError, false, r.text);
    return (await readLandedEdits(ws.historyDir, [ws.root])).at(-1)!.id;
  };
  const others = async (): Promise<string[]> => {
    const landed = await readLandedEdits(ws.historyDir, [ws.root]);
    const otherEdits = (await readKnownEdits(ws.historyDir, [ws.root], landed)).filter((e) => e.session !== 'agent-a');
    const text = renderSessionRecap(registry.get('agent-a'), { sessionId: 'agent-a', lastActivity: 0, count, otherEdits });
    return [...text.matchAll(/^- (.+) — by .*session agent-b/gm)].flatMap((m) => m[1]!.split(', ').map((f) => f.replace(/ \(×\d+\)$/, '')));
  };
  const logPath = () => path.join(ws.historyDir, LANDED_LOG);

  it('keeps other sessions\' landed edits past a commit, newest first; never a refusal, a rolled-back or a reverted edit', async () => {
    await insert(b, 'a.ts');
    await insert(b, 'b.ts');
    const refused = await b.call('be-insert', { file: `${ws.file('c.ts')}:99`, content: 'x\n' });
    assert.equal(refused.isError, true, refused.text);
    assert.equal((await a.call('be-trx', { action: 'commit' })).isError, false);
    assert.deepEqual(await readLandedEdits(ws.historyDir, [ws.root]), [], 'the commit emptied the history');
    assert.deepEqual(await others(), ['b.ts', 'a.ts']);

    await insert(b, 'd.ts');
    assert.equal((await a.call('be-trx', { action: 'rollback', step: 1 })).isError, false);
    const reverted = await insert(b, 'e.ts');
    const r = await a.call('be-trx', { action: 'revert', id: reverted });
    assert.equal(r.isError, false, r.text);
    // e.ts shows once: the revert's own restoring write, which landed (by agent-a), never as agent-b's change
    assert.deepEqual(await others(), ['b.ts', 'a.ts']);
    const mode = (await fs.stat(logPath())).mode & 0o777;
    if (process.platform !== 'win32') assert.equal(mode, 0o600);
    assert.doesNotMatch(await fs.readFile(logPath(), 'utf8'), /export const x/, 'no file contents in the log');
  });

  it('stays bounded: trimmed to the last entries, read from its end only', async () => {
    const key = workspaceKey([ws.root]);
    for (let i = 0; i < 6; i++) {
      await appendLanded(ws.historyDir, Array.from({ length: 500 }, (_, j) => ({ ws: key, id: `i${i}x${j}`, seq: i * 500 + j, file: ws.file('a.ts'), tool: 'be-insert', session: 's', t: i * 500 + j })));
    }
    assert.ok((await fs.stat(logPath())).size < 512 * 1024, 'trimmed');
    const read = await readLandedLog(ws.historyDir, key, [ws.root]);
    assert.ok(read.length <= 2 * MAX_ENTRIES && read.length >= MAX_ENTRIES, String(read.length));
    assert.equal(read.at(-1)!.id, 'i5x499');
  });

  it('skips malformed, foreign, outside and huge lines', async () => {
    const key = workspaceKey([ws.root]);
    const good = { ws: key, id: 'good01', seq: 1, file: ws.file('a.ts'), tool: 'be-insert', session: 'agent-b', t: 1 };
    const lines = [
      'y'.repeat(2 * 1024 * 1024), // past the read bound: only the log's end is read
      JSON.stringify({ ...good, id: 'cut001' }),
      'z'.repeat(1100 * 1024),
      'not json',
      '{"ws":',
      'null',
      '[1,2]',
      JSON.stringify({ ...good, id: 'other1', ws: 'another-workspace' }),
      JSON.stringify({ ...good, id: 'out001', file: '/etc/passwd' }),
      JSON.stringify({ ...good, id: 'out002', file: `${ws.root}/../outside.ts` }),
      JSON.stringify({ ...good, id: 'rel001', file: 'a.ts' }),
      JSON.stringify({ ...good, id: 'nan001', t: 'soon' }),
      JSON.stringify({ ...good, id: 'huge01', tool: 'x'.repeat(10_000) }),
      JSON.stringify(good),
    ];
    await fs.mkdir(ws.historyDir, { recursive: true });
    await fs.writeFile(logPath(), `${lines.join('\n')}\n`);
    assert.deepEqual((await readLandedLog(ws.historyDir, key, [ws.root])).map((e) => e.id), ['good01']);
    assert.deepEqual(await others(), ['a.ts']);
  });

  it('refuses a FIFO or a link at the log path: the edit still lands, nothing blocks', async function () {
    if (process.platform === 'win32') this.skip();
    const outside = path.join(path.dirname(ws.historyDir), 'target.txt');
    await fs.writeFile(outside, 'untouched');
    await fs.symlink(outside, logPath());
    await insert(b, 'a.ts');
    assert.equal(await fs.readFile(outside, 'utf8'), 'untouched');
    assert.deepEqual(await readLandedLog(ws.historyDir, workspaceKey([ws.root]), [ws.root]), []);
    await fs.unlink(logPath());
    execFileSync('mkfifo', [logPath()]);
    await insert(b, 'b.ts');
    assert.deepEqual(await readLandedLog(ws.historyDir, workspaceKey([ws.root]), [ws.root]), []);
    assert.deepEqual(await others(), ['b.ts', 'a.ts'], 'the open history still shows them');
  });
});
