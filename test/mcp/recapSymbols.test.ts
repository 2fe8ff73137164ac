/**
 * The recap's symbols: the declarations real be-read replies showed (a temp workspace, the in-process call
 * pipeline), kept through the recall archive on disk after the reads left the window, each at the file and line
 * of the latest read, a file changed since marked.
 */
import assert from 'node:assert/strict';
import * as path from 'node:path';
import fc from 'fast-check';
import { MemoryRegistry } from '../../src/core/memory/node/registry';
import { readTrail, recallFileName, RecallStore } from '../../src/core/memory/node/recallStore';
import { getTokenizer } from '../../src/core/memory/node/tokenizer';
import { declaredIn, symbolLocations, type ReadSighting } from '../../src/core/memory/recapSymbols';
import { renderSessionRecap } from '../../src/core/memory/sessionRecap';
import { createServices, type Services } from '../../src/mcp/services';
import { openToolSession, type ToolSession } from '../../src/mcp/toolSession';
import { memoryDeps } from '../core/memory/memoryDeps';
import { tmpWorkspace, type Workspace } from './helpers';

const tok = getTokenizer();
const count = (t: string) => tok.count(t);

const CONFIG = [
  "import { readFileSync } from 'node:fs';",
  '',
  'export interface Config {',
  '  port: number;',
  '}',
  '',
  'export function parseConfig(text: string): Config {',
  '  const inner = JSON.parse(text);',
  '  return inner;',
  '}',
  '',
  'export async function loadConfig(file: string): Promise<Config> {',
  "  return parseConfig(readFileSync(file, 'utf8'));",
  '}',
  '',
].join('\n');

describe('mcp/recap symbols: where the symbols a session read live', () => {
  let ws: Workspace;
  let services: Services;
  let registry: MemoryRegistry;
  let recall: RecallStore;
  let a: ToolSession;
  /** Set: the memory's clock stands still (every call within one millisecond, as on a fast machine). */
  let frozenAt: number | undefined;
  beforeEach(async () => {
    frozenAt = undefined;
    ws = await tmpWorkspace();
    await ws.write('src/config.ts', CONFIG);
    await ws.write('src/money.ts', 'export const CENTS = 100;\n\nexport class Money {\n  constructor(readonly cents: number) {}\n}\n');
    registry = await MemoryRegistry.open({ deps: { ...memoryDeps, clock: { now: () => frozenAt ?? Date.now() } }, memoryOptions: { maxTokens: 1500, reserveRatio: 0, recentKeep: 2 } });
    recall = new RecallStore({ dir: path.join(ws.chipDir, 'recall') });
    await recall.attach(registry);
    services = await createServices({ roots: [ws.root], chipDir: ws.chipDir, historyDir: ws.historyDir, memory: registry, recall });
    a = openToolSession({ deps: services.deps, memory: (id) => registry.get(id), sessionId: 'agent-a' });
  });
  afterEach(async () => {
    await a.close();
    recall.dispose();
    await services.close();
    await registry.dispose();
    await ws.dispose();
  });

  const read = async (args: Record<string, unknown>) => {
    const r = await a.call('be-read', args);
    assert.equal(r.isError, false, r.text);
    return r.text;
  };
  const recap = async (budgetTokens = 2000) => {
    await recall.flush();
    const trail = await readTrail(path.join(ws.chipDir, 'recall', recallFileName('agent-a')));
    return renderSessionRecap(registry.get('agent-a'), { sessionId: 'agent-a', lastActivity: 0, count, trail, budgetTokens });
  };
  const filler = async (n: number) => {
    for (let i = 0; i < n; i++) await a.call('be-memory', { action: 'add', kind: 'note', content: `note ${i}: ${'nothing about code here '.repeat(12)}` });
  };

  it('reads the top-level declarations of real range and outline replies, with their lines', async () => {
    const whole = declaredIn(await read({ file: 'src/config.ts:ALL' }), true);
    assert.deepEqual(whole.declared, [
      { name: 'Config', line: 3 },
      { name: 'parseConfig', line: 7 },
      { name: 'loadConfig', line: 12 },
    ]);
    assert.equal(whole.full, true);
    const outline = declaredIn(await read({ file: 'src/config.ts', mode: 'structure' }));
    assert.deepEqual(outline.declared.map((d) => `${d.name}:${d.line}`), ['Config:3', 'parseConfig:7', 'loadConfig:12']);
    assert.equal(outline.full, true, 'a whole outline shows the whole file');
    const part = declaredIn(await read({ file: 'src/config.ts:7-10' }));
    assert.deepEqual(part, { declared: [{ name: 'parseConfig', line: 7 }], full: false });
  });

  it('after the reads left the window: each symbol at its file and line, from the archive on disk', async () => {
    await read({ file: 'src/config.ts:ALL' });
    await read({ file: 'src/money.ts:ALL' });
    await filler(12);
    assert.ok(registry.get('agent-a').fingerprints().filter((f) => f.tool === 'be-read').length >= 4, 'the reads were evicted');
    const text = await recap();
    const section = /Symbols read or written, at the file and line of the latest read or edit that showed them \(newest first\):\n((?:- .*\n)*)/.exec(text)?.[1];
    assert.equal(section, '- src/money.ts: CENTS:1 Money:3\n- src/config.ts: Config:3 parseConfig:7 loadConfig:12\n');
    assert.doesNotMatch(text, /\binner\b/, 'a local variable is not a symbol');
  });

  it('a file edited after its read is marked; a later read gives the new lines and clears the mark', async () => {
    await read({ file: 'src/config.ts:ALL' });
    const ins = await a.call('be-insert', { file: 'src/config.ts:0', content: '// a new first line\n' });
    assert.equal(ins.isError, false, ins.text);
    await filler(12);
    assert.match(await recap(), /\n- src\/config\.ts \(changed since: lines may have moved\): Config:3 parseConfig:7 loadConfig:12\n/);
    await read({ file: 'src/config.ts', mode: 'structure' });
    assert.match(await recap(), /\n- src\/config\.ts: parseConfig:8 loadConfig:13 Config:4\n|\n- src\/config\.ts: Config:4 parseConfig:8 loadConfig:13\n/);
  });

  it('a failed or refused edit marks nothing; one name declared in two files is shown in both', async () => {
    await read({ file: 'src/config.ts:ALL' });
    const bad = await a.call('be-replace', { file: 'src/config.ts:900-901', content: 'x\n' });
    assert.equal(bad.isError, true);
    await ws.write('src/parse.ts', 'export function parseConfig(text: string) {\n  return JSON.parse(text);\n}\n');
    await read({ file: 'src/parse.ts:ALL' });
    const text = await recap();
    assert.match(text, /\n- src\/parse\.ts: parseConfig:1\n- src\/config\.ts: Config:3 parseConfig:7 loadConfig:12\n/);
  });

  for (const evicted of [false, true]) {
    it(`symbols an edit wrote, at the lines they landed on; a refused edit or a preview writes none and is no edit${evicted ? ' (after the edits left the window)' : ''}`, async () => {
      await read({ file: 'src/config.ts:ALL' });
      const w = await a.call('be-write', { file: 'src/new.ts', content: "import x from 'y';\n\nexport function made() {}\n\nexport class Thing {}\n" });
      assert.equal(w.isError, false, w.text);
      const r = await a.call('be-replace', { file: 'src/config.ts:7', content: 'export function parseSettings(text: string): Config {' });
      assert.equal(r.isError, false, r.text);
      const refused = await a.call('be-write', { file: '.git/hooks/pre-commit', content: 'function hook() {}\n' });
      assert.equal(refused.isError, true);
      const preview = await a.call('be-write', { file: 'src/preview.ts', content: 'export function previewed() {}\n', preview: true });
      assert.equal(preview.isError, false, preview.text);
      if (evicted) await filler(12);
      const text = await recap();
      assert.match(text, /\n- src\/config\.ts \(changed since: lines may have moved\): Config:3 parseConfig:7 parseSettings:7 loadConfig:12\n- src\/new\.ts: made:3 Thing:5\n/);
      assert.doesNotMatch(text, /hook\b|previewed/);
      // a preview wrote nothing: not an edit that landed, not a file changed
      assert.match(text, /\] be-write src\/preview\.ts → preview only, nothing written\n/);
      assert.doesNotMatch(text, /Files changed by[^\n]*\n[^\n]*preview\.ts/);
    });
  }

  it('an edit and the read after it within one millisecond: the read shows the edited file (not marked)', async () => {
    frozenAt = Date.now();
    const ins = await a.call('be-insert', { file: 'src/config.ts:0', content: '// first\n' });
    assert.equal(ins.isError, false, ins.text);
    await read({ file: 'src/config.ts:ALL' });
    assert.match(await recap(), /\n- src\/config\.ts: Config:4 parseConfig:8 loadConfig:13\n/);
  });

  for (const evicted of [false, true]) {
    it(`a be-trx rollback after the read marks the files it put back${evicted ? ' (after it left the window)' : ''}`, async () => {
      const ins = await a.call('be-insert', { file: 'src/config.ts:0', content: '// first\n' });
      assert.equal(ins.isError, false, ins.text);
      await read({ file: 'src/config.ts:ALL' });
      await read({ file: 'src/money.ts:ALL' });
      if (evicted) await filler(12);
      assert.match(await recap(), /\n- src\/config\.ts: Config:4 parseConfig:8 loadConfig:13\n/, 'read after the insert: not marked');
      const back = await a.call('be-trx', { action: 'rollback', step: 1 });
      assert.equal(back.isError, false, back.text);
      if (evicted) await filler(12);
      const text = await recap();
      assert.match(text, /\n- src\/config\.ts \(changed since: lines may have moved\): Config:4 parseConfig:8 loadConfig:13\n/);
      assert.match(text, /\n- src\/money\.ts: CENTS:1 Money:3\n/, 'a file the rollback did not touch is not marked');
    });
  }

  for (const evicted of [false, true]) {
    it(`an edit a rollback undid: a file read before it is not marked, and what it wrote is not listed${evicted ? ' (after it left the window)' : ''}`, async () => {
      await read({ file: 'src/config.ts:ALL' });
      assert.equal((await a.call('be-insert', { file: 'src/config.ts:0', content: '// first\n' })).isError, false);
      assert.equal((await a.call('be-write', { file: 'src/gone.ts', content: 'export function undoneFn() {}\n' })).isError, false);
      const back = await a.call('be-trx', { action: 'rollback', step: 2 });
      assert.equal(back.isError, false, back.text);
      if (evicted) await filler(12);
      const text = await recap();
      assert.match(text, /\n- src\/config\.ts: Config:3 parseConfig:7 loadConfig:12\n/, 'the file is back as it was read');
      assert.doesNotMatch(/Symbols read or written[^\n]*\n((?:- .*\n)*)/.exec(text)?.[1] ?? '', /undoneFn|gone\.ts/);
      assert.match(text, /\] be-write src\/gone\.ts → rolled back \(landed, undone since\)\n/);
      assert.doesNotMatch(text, /Files changed by/);
    });
  }

  for (const evicted of [false, true]) {
    it(`prose files declare nothing, whatever their lines look like${evicted ? ' (after the reads left the window)' : ''}`, async () => {
      await ws.write('docs/notes.md', '# Notes\nclass of 2020 reunion\nfunction of the team: review\n');
      await ws.write('docs/readme.txt', 'type of change: fix\nconst values are kept\n');
      await ws.write('docs/guide.rst', 'module overview\nenum values below\n');
      for (const f of ['docs/notes.md', 'docs/readme.txt', 'docs/guide.rst', 'src/money.ts']) await read({ file: `${f}:ALL` });
      if (evicted) await filler(12);
      const text = await recap();
      const section = /Symbols read or written[^\n]*\n((?:- .*\n)*)/.exec(text)?.[1];
      assert.equal(section, '- src/money.ts: CENTS:1 Money:3\n');
    });
  }

  it('a symbol a later whole-file read no longer shows is marked, not claimed', () => {
    const sightings: ReadSighting[] = [
      { file: 'src/a.ts', time: 1, declared: [{ name: 'oldName', line: 5 }, { name: 'kept', line: 9 }], full: true },
      { file: 'src/a.ts', time: 3, declared: [{ name: 'kept', line: 9 }], full: true },
    ];
    const [f] = symbolLocations(sightings, []);
    assert.deepEqual(f!.symbols.map((s) => [s.name, s.line, s.uses, s.gone]), [
      ['kept', 9, 2, false],
      ['oldName', 5, 1, true],
    ]);
    const other = symbolLocations(sightings, [{ file: '/abs/root/src/a.ts', time: 2 }]);
    assert.equal(other[0]!.changedSince, true, 'an edit by another session (absolute path) after the oldest read marks the file');
  });

  it('property: with many files read, the recap stays within its budget', async () => {
    for (let i = 0; i < 40; i++) await ws.write(`src/m${i}.ts`, Array.from({ length: 30 }, (_, k) => `export function fn${i}_${k}() {}\n`).join(''));
    for (let i = 0; i < 40; i++) await read({ file: `src/m${i}.ts:ALL` });
    await recall.flush();
    const trail = await readTrail(path.join(ws.chipDir, 'recall', recallFileName('agent-a')));
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 200, max: 3000 }), async (budget) => {
        const text = renderSessionRecap(registry.get('agent-a'), { sessionId: 'agent-a', lastActivity: 0, count, trail, budgetTokens: budget });
        assert.ok(count(text) <= budget, `${count(text)} > ${budget}`);
      }),
      { numRuns: 20 },
    );
    assert.match(await recap(2000), /\(\d+ more files with symbols read\)/);
  });
});
