/**
 * The recap's open be-trx steps: read from a real history directory written by real edits (two sessions, be-apply
 * batches committed, rolled back and left open), as `better-edit-tools recap` reads it.
 */
import assert from 'node:assert/strict';
import * as path from 'node:path';
import type { MemoryRegistry } from '../../src/core/memory/node/registry';
import { getTokenizer } from '../../src/core/memory/node/tokenizer';
import { renderSessionRecap } from '../../src/core/memory/sessionRecap';
import { openSteps, readLandedEdits } from '../../src/cli/recapHistory';
import type { ToolSession } from '../../src/mcp/toolSession';
import type { Workspace } from '../mcp/helpers';
import { twoSessions, type TwoSessions } from './twoSessions';

const tok = getTokenizer();
const count = (t: string) => tok.count(t);

describe('cli/recapHistory: open be-trx steps in the recap', () => {
  let ws: Workspace;
  let registry: MemoryRegistry;
  let a: ToolSession;
  let b: ToolSession;
  let env: TwoSessions;
  beforeEach(async () => {
    env = await twoSessions(['a.ts', 'b.ts', 'c.ts', 'd.ts']);
    ({ ws, registry, a, b } = env);
  });
  afterEach(() => env.close());

  const batch = async (files: string[], tag: string): Promise<string> => {
    const r = await a.call('be-apply', { edits: files.map((f) => ({ file: `${ws.file(f)}:1`, op: 'insert', content: `// ${tag}\n` })) });
    assert.equal(r.isError, false, r.text);
    return (JSON.parse(r.text) as { event_id: string }).event_id;
  };
  const recap = async () => {
    const landed = await readLandedEdits(ws.historyDir, [ws.root]);
    return renderSessionRecap(registry.get('agent-a'), { sessionId: 'agent-a', lastActivity: 0, count, openSteps: openSteps(landed), otherEdits: landed.filter((e) => e.session !== 'agent-a') });
  };

  it('lists the batches and edits still open, newest first, by whom; never a committed or rolled-back one', async () => {
    const committed = await batch(['a.ts', 'b.ts'], 'committed');
    assert.equal((await a.call('be-trx', { action: 'commit' })).isError, false);
    const rolledBack = await batch(['c.ts', 'd.ts'], 'rolled back');
    assert.equal((await a.call('be-trx', { action: 'rollback', step: 1 })).isError, false);
    const open = await batch(['a.ts', 'c.ts'], 'open');
    const theirs = await b.call('be-insert', { file: `${ws.file('d.ts')}:1`, content: '// b\n' });
    assert.equal(theirs.isError, false, theirs.text);

    const steps = openSteps(await readLandedEdits(ws.historyDir, [ws.root]));
    assert.deepEqual(steps.map((s) => [s.id === open ? 'open' : s.session, s.tool, s.files.join(',')]), [
      ['open', 'be-apply', 'a.ts,c.ts'],
      ['agent-b', 'be-insert', 'd.ts'],
    ]);
    const text = await recap();
    const section = /Open be-trx steps, newest first[^\n]*\n((?:- [^\n]*\n)*)/.exec(text)?.[1] ?? '';
    assert.match(section, /^- [0-9a-f]{6} be-insert d\.ts by better-edit-participant \(session agent-b\)\n/);
    assert.match(section, new RegExp(`\\n- ${open} be-apply a\\.ts, c\\.ts\\n$`));
    for (const closed of [committed, rolledBack]) assert.doesNotMatch(text, new RegExp(`- ${closed} `), `${closed} is closed`);
    // the batches are still this session's edit calls, as they happened: the rolled-back one as rolled back, and
    // only the files of the others are files it changed (d.ts had no edit of its own left)
    assert.equal((text.match(/be-apply [^\n]*→ landed/g) ?? []).length, 2, text);
    assert.match(text, /\] be-apply [^\n]*c\.ts:1, [^\n]*d\.ts:1 → rolled back \(landed, undone since\)\n/);
    assert.match(text, /\] be-trx rollback → undid 2 edits: [^\n]*d\.ts, [^\n]*c\.ts\n/);
    const changed = /Files changed by this session \(edits that landed\):\n(.*)\n/.exec(text)?.[1] ?? '';
    assert.deepEqual(changed.split(', ').map((f) => path.basename(f)).sort(), ['a.ts (×2)', 'b.ts (×1)', 'c.ts (×1)'], changed);
    assert.match(text, /Edits rolled back \(no edit of this session is left in these\):\n[^\n]*d\.ts \(×1\)\n/);
    assert.doesNotMatch(text, /Files read, not edited:\n[^\n]*(a|d)\.ts/);
  });

  it('says none are open after a commit, and nothing when the history was not read', async () => {
    await batch(['a.ts', 'b.ts'], 'one');
    await a.call('be-trx', { action: 'commit' });
    assert.deepEqual(openSteps(await readLandedEdits(ws.historyDir, [ws.root])), []);
    assert.match(await recap(), /\nOpen be-trx steps: none \(every edit in this workspace was committed, rolled back or kept\)\.\n/);
    const noHistory = renderSessionRecap(registry.get('agent-a'), { sessionId: 'agent-a', lastActivity: 0, count });
    assert.doesNotMatch(noHistory, /Open be-trx steps/);
  });

  it('a long queue of open steps stays within the budget and says how many it left out', async () => {
    for (let i = 0; i < 25; i++) await a.call('be-insert', { file: `${ws.file(['a.ts', 'b.ts', 'c.ts', 'd.ts'][i % 4]!)}:1`, content: `// ${i}\n` });
    const landed = await readLandedEdits(ws.historyDir, [ws.root]);
    assert.equal(openSteps(landed).length, 25);
    const text = renderSessionRecap(registry.get('agent-a'), { sessionId: 'agent-a', lastActivity: 0, count, budgetTokens: 500, openSteps: openSteps(landed) });
    assert.ok(count(text) <= 500, `${count(text)} tokens`);
    assert.match(text, /\(\d+ older open steps: be-trx status lists them\)/);
  });
});
