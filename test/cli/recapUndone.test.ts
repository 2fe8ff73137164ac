/**
 * Edits a rollback or revert undid, as `recap` reads them from the landed-edit log: this session's edit undone by
 * another session's rollback is shown as rolled back, and any session's undo marks the files it put back as changed
 * for the symbols read between the edit and its undo (real edits, real history folder, two sessions).
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import { getTokenizer } from '../../src/core/memory/node/tokenizer';
import { renderSessionRecap } from '../../src/core/memory/sessionRecap';
import { readKnownEdits, readLandedEdits } from '../../src/cli/recapHistory';
import { readUndoneEdits } from '../../src/cli/recapUndone';
import { LANDED_LOG } from '../../src/core/history/node/landedLog';
import { workspaceKey } from '../../src/core/files/workspaceKey';
import * as path from 'node:path';
import { twoSessions, type TwoSessions } from './twoSessions';

const tok = getTokenizer();
const count = (t: string) => tok.count(t);

describe('cli/recapUndone: undone edits in the recap', () => {
  let env: TwoSessions;
  beforeEach(async () => {
    env = await twoSessions(['a.ts', 'b.ts', 'c.ts', 'd.ts']);
  });
  afterEach(() => env.close());

  const ok = async (r: Promise<{ isError: boolean; text: string }>) => {
    const got = await r;
    assert.equal(got.isError, false, got.text);
    return got.text;
  };
  /** The recap as `recap` composes it from the history folder. */
  const recap = async () => {
    const { ws, registry } = env;
    const landed = await readLandedEdits(ws.historyDir, [ws.root]);
    const known = await readKnownEdits(ws.historyDir, [ws.root], landed);
    return renderSessionRecap(registry.get('agent-a'), {
      sessionId: 'agent-a',
      lastActivity: 0,
      count,
      otherEdits: known.filter((e) => e.session !== 'agent-a'),
      undone: await readUndoneEdits(ws.historyDir, [ws.root]),
      kept: known.filter((e) => e.session === 'agent-a'),
    });
  };
  const symbolLine = (text: string, file: string) => new RegExp(`^- [^\\n]*${file.replace('.', '\\.')}[^\\n]*$`, 'm').exec(text)?.[0];

  it("another session's rollback marks a file read between its edit and the undo; an edit and undo both after the read do not", async () => {
    const { a, b, ws } = env;
    await ok(b.call('be-insert', { file: `${ws.file('c.ts')}:0`, content: '// b first\n' }));
    await ok(a.call('be-read', { file: `${ws.file('c.ts')}:ALL` }));
    await ok(a.call('be-read', { file: `${ws.file('d.ts')}:ALL` }));
    await ok(b.call('be-trx', { action: 'rollback', step: 1 }));
    await ok(b.call('be-insert', { file: `${ws.file('d.ts')}:0`, content: '// b later\n' }));
    await ok(b.call('be-trx', { action: 'rollback', step: 1 }));
    const text = await recap();
    assert.match(symbolLine(text, 'c.ts') ?? '', /c\.ts \(changed since: lines may have moved\): x:3$/, text);
    assert.match(symbolLine(text, 'd.ts') ?? '', /d\.ts: x:2$/, 'd.ts is back as it was read');
    assert.doesNotMatch(text, /Edits other sessions landed/, 'their edits were undone: none of them landed');
  });

  it("this session's edit that another session's rollback undid is rolled back; its earlier edit of the file still landed", async () => {
    const { a, b, ws } = env;
    await ok(a.call('be-insert', { file: `${ws.file('a.ts')}:1`, content: '// one\n' }));
    await ok(a.call('be-insert', { file: `${ws.file('a.ts')}:1`, content: '// two\n' }));
    await ok(a.call('be-insert', { file: `${ws.file('b.ts')}:1`, content: '// only\n' }));
    await ok(b.call('be-trx', { action: 'rollback', step: 2 }));
    const text = await recap();
    const calls = /Edit calls by this session \(newest first\):\n((?:- .*\n)*)/.exec(text)?.[1] ?? '';
    assert.deepEqual(
      calls.trim().split('\n').map((l) => l.replace(/^- \[m\d+\] be-insert \S+\/([a-z]\.ts):1 → /, '$1 ')),
      ['b.ts rolled back (landed, undone since)', 'a.ts rolled back (landed, undone since)', 'a.ts landed'],
    );
    assert.match(text, /Files changed by this session \(edits that landed\):\n\S+\/a\.ts \(×1\)\n/);
    assert.match(text, /Edits rolled back \(no edit of this session is left in these\):\n\S+\/b\.ts \(×1\)\n/);
  });

  it('reads the log as untrusted: foreign, outside and malformed lines are skipped, a FIFO is not opened', async function () {
    const { ws } = env;
    const key = workspaceKey([ws.root]);
    const edit = { ws: key, id: 'e1', seq: 1, file: ws.file('a.ts'), tool: 'be-insert', session: 's', t: 1 };
    const lines = [
      JSON.stringify(edit),
      JSON.stringify({ ...edit, id: 'e2', ws: 'another-workspace' }),
      JSON.stringify({ ...edit, id: 'e3', file: '/etc/passwd' }),
      JSON.stringify({ ...edit, id: 'e4', file: 'a.ts' }),
      'not json',
      JSON.stringify({ ws: key, undone: 'e1', t: 5 }),
      JSON.stringify({ ws: key, undone: 'e2', t: 5 }),
      JSON.stringify({ ws: key, undone: 'e3', t: 5 }),
      JSON.stringify({ ws: key, undone: 'e4', t: 5 }),
      JSON.stringify({ ws: key, undone: 'gone00', t: 6 }),
    ];
    await fs.mkdir(ws.historyDir, { recursive: true });
    const log = path.join(ws.historyDir, LANDED_LOG);
    await fs.writeFile(log, `${lines.join('\n')}\n`);
    assert.deepEqual(await readUndoneEdits(ws.historyDir, [ws.root]), [{ id: 'e1', file: 'a.ts', tool: 'be-insert', session: 's', time: 1, undoneAt: 5 }]);
    if (process.platform === 'win32') return;
    await fs.unlink(log);
    execFileSync('mkfifo', [log]);
    assert.deepEqual(await readUndoneEdits(ws.historyDir, [ws.root]), []);
  });
});
