/**
 * Our entry in a workspace .mcp.json (src/vscode/agentHostConfig.ts): merged beside other servers without touching
 * them, idempotent, removed alone; a file that does not parse is refused and nothing is written.
 */
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { agentHostEntry, planRegister, planRemove, type StdioEntry } from '../../src/vscode/agentHostConfig';
import { stdioLaunch } from '../../src/vscode/clientConfig';

const entry = agentHostEntry(stdioLaunch('/home/u/.config/Code/User/globalStorage/x/cli/better-edit-tools.cjs', ['/w/p q'], { chipDir: '/c' }));
const norm = (v: unknown): unknown => JSON.parse(JSON.stringify(v)) as unknown; // fast-check builds null-prototype objects
const apply = (existing: string | undefined, plan: ReturnType<typeof planRegister>) => (plan.kind === 'unchanged' || plan.kind === 'absent' ? existing : plan.text);

describe('vscode/agentHostConfig', () => {
  it('creates the file with only our stdio entry', () => {
    const p = planRegister(undefined, entry);
    assert.equal(p.kind, 'create');
    assert.deepEqual(JSON.parse(p.text!), { mcpServers: { 'better-edit-tools': { type: 'stdio', command: 'node', args: entry.args } } });
    assert.ok(p.text!.endsWith('}\n'));
    assert.equal(planRegister('  \n', entry).kind, 'create', 'an empty file counts as none');
  });

  it('adds beside other servers and keeps their bytes, comments and order', () => {
    const existing = '{\n  // mine\n  "mcpServers": {\n    "zeta":   { "command": "z", "args": ["--x"] },\n    "alpha": {"url": "https://a/mcp"}\n  },\n  "other": 1\n}\n';
    const p = planRegister(existing, entry);
    assert.equal(p.kind, 'add');
    for (const kept of ['// mine', '"zeta":   { "command": "z", "args": ["--x"] }', '"alpha": {"url": "https://a/mcp"}', '"other": 1']) assert.ok(p.text!.includes(kept), kept);
    assert.ok(p.text!.indexOf('"zeta"') < p.text!.indexOf('"alpha"'));
    const second = planRegister(p.text, entry);
    assert.equal(second.kind, 'unchanged', 'a second run changes nothing');
    const removed = planRemove(p.text);
    assert.equal(removed.kind, 'remove');
    assert.equal(removed.text, existing, 'remove after add gives back the file as it was');
  });

  it('replaces an outdated entry of ours and reports what it was', () => {
    const old = JSON.stringify({ mcpServers: { 'better-edit-tools': { command: 'node', args: ['/old/cli.js'] }, x: { command: 'x' } } }, null, 2);
    const p = planRegister(old, entry);
    assert.equal(p.kind, 'update');
    assert.deepEqual(p.previous, { command: 'node', args: ['/old/cli.js'] });
    assert.deepEqual(JSON.parse(p.text!).mcpServers, { 'better-edit-tools': entry, x: { command: 'x' } });
  });

  it('adds mcpServers to a file that has other keys only', () => {
    const p = planRegister('{ "inputs": [] }', entry);
    assert.equal(p.kind, 'add');
    assert.deepEqual(JSON.parse(p.text!), { inputs: [], mcpServers: { 'better-edit-tools': entry } });
  });

  it('remove: absent when there is no file or no entry; deletes a file that held only ours', () => {
    assert.equal(planRemove(undefined).kind, 'absent');
    assert.equal(planRemove('{"mcpServers":{"x":{"command":"x"}}}').kind, 'absent');
    const p = planRemove(planRegister(undefined, entry).text);
    assert.equal(p.kind, 'remove');
    assert.equal(p.text, undefined, 'nothing else was in it: the file goes');
    const commented = planRemove('{\n  // keep me\n  "mcpServers": { "better-edit-tools": { "command": "node" } }\n}');
    assert.equal(commented.kind, 'remove');
    assert.ok(commented.text?.includes('// keep me'), 'a file with a comment is the user\'s: kept');
  });

  it('refuses a file that does not parse, or whose mcpServers is not an object, with what to do', () => {
    for (const bad of ['{"mcpServers": {', '[1]', '{"mcpServers": []}', '{"mcpServers": "x"}']) {
      assert.throws(() => planRegister(bad, entry), /fix it first \(nothing was written\)/, bad);
      assert.throws(() => planRemove(bad), /fix it first \(nothing was written\)/, bad);
    }
  });

  it('property: our entry anywhere among the servers is removed alone, the rest byte for byte as JSON.stringify lays it out', () => {
    const server = fc.record({ command: fc.string(), args: fc.array(fc.string(), { maxLength: 2 }) });
    const names = fc.uniqueArray(fc.string({ minLength: 1, maxLength: 8 }).filter((n) => n !== 'better-edit-tools' && n !== '__proto__'), { maxLength: 5 });
    fc.assert(
      fc.property(names, fc.array(server, { minLength: 5, maxLength: 5 }), fc.nat(), fc.integer({ min: 0, max: 4 }), (keys, servers, at, indent) => {
        const entries: [string, unknown][] = keys.map((k, i) => [k, servers[i]]);
        const rest = Object.fromEntries(entries);
        entries.splice(at % (entries.length + 1), 0, ['better-edit-tools', entry]);
        const text = JSON.stringify({ mcpServers: Object.fromEntries(entries) }, null, indent);
        const p = planRemove(text);
        assert.equal(p.kind, 'remove');
        if (keys.length === 0) return assert.equal(p.text, undefined);
        assert.equal(p.text, JSON.stringify({ mcpServers: rest }, null, indent));
      }),
      { numRuns: 300 },
    );
  });

  it('property: register keeps every other server, is idempotent, and remove restores the servers', () => {
    const name = fc.string({ minLength: 1, maxLength: 12 });
    const server = fc.record({ command: fc.string(), args: fc.array(fc.string(), { maxLength: 3 }) }, { requiredKeys: ['command'] });
    const ours: fc.Arbitrary<StdioEntry> = fc.record({ type: fc.constant('stdio' as const), command: fc.string(), args: fc.array(fc.string(), { maxLength: 4 }) });
    fc.assert(
      fc.property(fc.dictionary(name, server, { maxKeys: 5 }), fc.option(ours, { nil: undefined }), ours, fc.integer({ min: 0, max: 4 }), (others, previous, e, indent) => {
        const servers = { ...others, ...(previous ? { 'better-edit-tools': previous } : {}) };
        const existing = JSON.stringify({ mcpServers: servers }, null, indent);
        const after = apply(existing, planRegister(existing, e));
        const parsed = JSON.parse(after!) as { mcpServers: Record<string, unknown> };
        assert.deepEqual(parsed.mcpServers['better-edit-tools'], norm(e));
        for (const [k, v] of Object.entries(others)) if (k !== 'better-edit-tools') assert.deepEqual(parsed.mcpServers[k], norm(v));
        assert.equal(planRegister(after, e).kind, 'unchanged');
        const removed = planRemove(after);
        assert.equal(removed.kind, 'remove');
        const rest = Object.fromEntries(Object.entries(others).filter(([k]) => k !== 'better-edit-tools'));
        if (Object.keys(rest).length === 0) assert.equal(removed.text, undefined);
        else assert.deepEqual(JSON.parse(removed.text!), norm({ mcpServers: rest }));
        // added to a file without ours, then removed: the file comes back byte for byte
        if (!previous && Object.keys(rest).length > 0) assert.equal(removed.text, existing);
      }),
      { numRuns: 300 },
    );
  });
});
