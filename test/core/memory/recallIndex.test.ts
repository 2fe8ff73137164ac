/** RecallStore's line index: a recall reads the one line it names, and answers as a read of the whole archive would. */
import assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import fc from 'fast-check';
import { MemoryRegistry } from '../../../src/core/memory/node/registry';
import { recallFileName, RecallStore, type RecalledMessage } from '../../../src/core/memory/node/recallStore';
import { memoryDeps } from './memoryDeps';

/** What a read of the whole file answers: the newest whole line of the id. */
async function recallByScan(file: string, id: string): Promise<RecalledMessage | undefined> {
  const lines = (await fs.readFile(file, 'utf8').catch(() => '')).split('\n');
  for (let i = lines.length - 1; i >= 0; i--) {
    if (!lines[i]!.startsWith(`{"id":${JSON.stringify(id)},`)) continue;
    try {
      return JSON.parse(lines[i]!) as RecalledMessage;
    } catch {
      // a torn line
    }
  }
  return undefined;
}

/** A registry whose every new note pushes the one before out of the window (so into the archive). */
async function slidingSession(dir: string, maxSessionBytes?: number) {
  const registry = await MemoryRegistry.open({ deps: memoryDeps, memoryOptions: { maxTokens: 200, reserveRatio: 0, recentKeep: 0 } });
  // the session exists before the store attaches: an archive of a session the registry does not hold is pruned
  const memory = registry.get('s');
  const store = new RecallStore({ dir, ...(maxSessionBytes ? { maxSessionBytes } : {}) });
  await store.attach(registry);
  const texts = new Map<string, string>();
  const add = (text: string): void => {
    texts.set(memory.add({ kind: 'note', content: text }).id, text);
  };
  return { registry, store, memory, texts, add, file: path.join(dir, recallFileName('s')) };
}

describe('core/memory/RecallStore line index', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'be-recall-index-'));
  });
  afterEach(async () => fs.rm(dir, { recursive: true, force: true }));

  it('reads the line the index names, not the whole file: a file grown past what a whole read accepts still answers', async () => {
    const s = await slidingSession(dir, 20_000);
    for (let i = 0; i < 30; i++) s.add(`note ${i} ${'zé€😀'.repeat(40)}`);
    await s.store.flush();
    const id = s.memory.fingerprints()[0]!.id;
    assert.equal((await s.store.recall('s', id))?.content, s.texts.get(id), 'the first recall reads the file whole');
    // someone appends far more than twice the cap: a whole read refuses such a file
    await fs.appendFile(s.file, `${'#'.repeat(60_000)}\n`);
    assert.equal((await s.store.recall('s', id))?.content, s.texts.get(id));
    s.store.dispose();
  });

  it('after a compaction the index is known without reading the file again', async () => {
    const s = await slidingSession(dir, 20_000);
    for (let i = 0; i < 120; i++) s.add(`note ${i} ${'zé€😀'.repeat(40)}`);
    await s.store.flush();
    const ids = s.memory.fingerprints().map((f) => f.id);
    assert.ok(!(await fs.readFile(s.file, 'utf8')).includes(`"id":"${ids[0]}"`), 'compacted: the oldest is gone');
    await fs.appendFile(s.file, `${'#'.repeat(60_000)}\n`);
    assert.equal((await s.store.recall('s', ids.at(-1)!))?.content, s.texts.get(ids.at(-1)!));
    assert.equal(await s.store.recall('s', ids[0]!), undefined);
    s.store.dispose();
  });

  it('after an append cut by a crash, the next record starts its own line and is recalled', async () => {
    const first = await slidingSession(dir);
    for (let i = 0; i < 5; i++) first.add(`before ${i} ${'a'.repeat(300)}`);
    await first.store.flush();
    first.store.dispose();
    await fs.appendFile(first.file, '{"id":"m999","kind":"note","content":"cut sh');
    // the next process (its store knows nothing of the file yet) archives more
    const next = await slidingSession(dir);
    for (let i = 0; i < 5; i++) next.add(`after ${i} ${'b'.repeat(300)}`);
    await next.store.flush();
    const ids = next.memory.fingerprints().map((f) => f.id);
    assert.ok(ids.length >= 3);
    for (const id of ids) assert.equal((await next.store.recall('s', id))?.content, next.texts.get(id), id);
    for (const id of ids) assert.equal((await recallByScan(next.file, id))?.content, next.texts.get(id), `${id} is a whole line in the file`);
    next.store.dispose();
  });

  it('a file rewritten under it (two lines of one length swapped, lines reversed) never answers another id', async () => {
    const s = await slidingSession(dir);
    for (let i = 0; i < 12; i++) s.add(`note ${String(i).padStart(2, '0')} ${'c'.repeat(200)}`);
    await s.store.flush();
    const ids = s.memory.fingerprints().map((f) => f.id);
    for (const id of ids) assert.equal((await s.store.recall('s', id))?.content, s.texts.get(id));
    const lines = (await fs.readFile(s.file, 'utf8')).split('\n').filter(Boolean);
    // another process rewrote it: two lines of the same length trade places, so the index's span of the one
    // holds the other's whole line
    const i = lines.findIndex((l, k) => lines.findIndex((m, n) => n > k && m.length === l.length) > 0);
    const j = lines.findIndex((m, n) => n > i && m.length === lines[i]!.length);
    assert.ok(i >= 0 && j > i, 'two lines of one length');
    [lines[i], lines[j]] = [lines[j]!, lines[i]!];
    await fs.writeFile(s.file, `${lines.join('\n')}\n`);
    const moved = (JSON.parse(lines[j]!) as RecalledMessage).id;
    for (const id of [moved, ...ids]) assert.equal((await s.store.recall('s', id))?.content, s.texts.get(id), id);
    // and reversed
    await fs.writeFile(s.file, `${[...lines].reverse().join('\n')}\n`);
    for (const id of ids) assert.equal((await s.store.recall('s', id))?.content, s.texts.get(id), id);
    s.store.dispose();
  });

  it('property: through appends, compactions, restarts and other writers, every recall answers as a whole read would', async () => {
    const op = fc.oneof(
      fc.record({ kind: fc.constant('add' as const), size: fc.integer({ min: 1, max: 900 }), wide: fc.boolean(), probe: fc.boolean() }),
      fc.record({ kind: fc.constantFrom('flush' as const, 'restart' as const, 'torn' as const, 'foreign' as const), probe: fc.boolean() }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 40 }), async (ops) => {
        const here = await fs.mkdtemp(path.join(dir, 'p-'));
        let s = await slidingSession(here, 12_000);
        const ids: string[] = [];
        let foreign = 0;
        try {
          for (const o of ops) {
            if (o.kind === 'add') {
              s.add(`${o.wide ? 'é€😀'.repeat(o.size / 4) : 'w'.repeat(o.size)} #${ids.length}`);
              ids.push(...[...s.texts.keys()].filter((id) => !ids.includes(id)));
            } else if (o.kind === 'flush') {
              await s.store.flush();
            } else if (o.kind === 'restart') {
              await s.store.flush();
              s.store.dispose();
              await s.registry.dispose();
              const texts = s.texts;
              s = await slidingSession(here, 12_000);
              for (const [k, v] of texts) s.texts.set(k, v);
            } else if (o.kind === 'torn') {
              await s.store.flush();
              await fs.appendFile(s.file, '{"id":"torn","kind":"no');
            } else {
              await s.store.flush();
              const id = `foreign${foreign++}`;
              ids.push(id);
              await fs.appendFile(s.file, `${JSON.stringify({ id, kind: 'note', role: 'user', references: [], tokens: 1, time: 0, evictedAt: 0, content: id })}\n`);
            }
            // a recall after some steps (it builds the index, which the steps after must keep true)
            const probe = ids.at(-1);
            if (o.probe && probe) {
              await s.store.flush();
              assert.deepEqual(await s.store.recall('s', probe), await recallByScan(s.file, probe), probe);
            }
          }
          await s.store.flush();
          for (const id of ids) assert.deepEqual(await s.store.recall('s', id), await recallByScan(s.file, id), id);
        } finally {
          s.store.dispose();
          await s.registry.dispose();
        }
      }),
      { numRuns: 40 },
    );
  });
});
