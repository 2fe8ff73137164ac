/**
 * Probes after a compaction (part of `npm run bench:memory`; BENCH_MEMORY_PROBES_ONLY=1 runs just this).
 *
 * A scripted session of `turns` turns by two agents over one copy of bench/fixtures/order-service, through the call
 * pipeline in process (real edits, real refusals, each call recorded in the memory, the be-trx history as in use): agent A
 * reads, edits, fails (an out-of-range replace, a write into .git/), pins constraints; agent B (another session)
 * lands an edit now and then. Then everything but what a host keeps after compaction is dropped, and deterministic
 * probes are answered by a parser (no model) from:
 *   recap + last N  — our recap (`better-edit-tools recap`'s text, 2,000 tokens) plus A's last N raw turns;
 *   last N alone    — A's last N raw turns (what a host that keeps recent turns has without the recap).
 * Each answer is scored against the ground truth the script recorded (F1 for sets, 1/0 for one answer).
 * Probes: files A modified, files another session modified, A's last failing command, every pinned constraint,
 * the file a symbol read early lives in, the be-apply batches still open. Every 20 turns A lands a be-apply batch of
 * two files; every third one is rolled back the next turn, and a be-trx commit every 100 turns closes all that is
 * open (the workspace's history, B's edits included; the landed-edit log keeps what landed). A rolled-back edit is
 * no modification in the ground truth (a file only a rolled-back batch touched was not modified), nor in the replay
 * of the raw turns.
 * The script fails every 10th turn, so the last failure is always among the last few turns (both sides see it);
 * the be-trx history keeps its last 30 steps, so another session's older edits are only in its landed-edit log.
 * BENCH_PROBES_DUMP=1 prints each recap and the symbols it did not place.
 */
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { openSteps, readKnownEdits, readLandedEdits } from '../src/cli/recapHistory';
import { readUndoneEdits } from '../src/cli/recapUndone';
import { RecallStore } from '../src/core/memory/node/recallStore';
import { MemoryRegistry } from '../src/core/memory/node/registry';
import { getTokenizer } from '../src/core/memory/node/tokenizer';
import { renderSessionRecap } from '../src/core/memory/sessionRecap';
import { createServices } from '../src/mcp/services';
import { openToolSession } from '../src/mcp/toolSession';
import { FIXTURE, listFiles } from './memorySession';

interface Call {
  turn: number;
  tool: string;
  file: string;
  text: string;
  isError: boolean;
}

export interface ProbeScore {
  probe: string;
  truth: string;
  recap: number;
  raw: number;
  missed?: string[];
}

const f1 = (truth: Set<string>, got: Set<string>): number => {
  if (truth.size === 0 && got.size === 0) return 1;
  const hit = [...got].filter((x) => truth.has(x)).length;
  if (hit === 0) return 0;
  const p = hit / got.size;
  const r = hit / truth.size;
  return (2 * p * r) / (p + r);
};

/** The paths of a recap section's single line of "path (×n)" items. */
function sectionPaths(recap: string, title: RegExp): Set<string> {
  const m = new RegExp(`${title.source}\\n(.*)\\n`).exec(recap);
  return new Set((m?.[1] ?? '').split(', ').map((x) => x.replace(/ \(×\d+\)$/, '')).filter(Boolean));
}

export async function probeBench(turns = 200, lastN = 6): Promise<ProbeScore[]> {
  const base = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'be-probes-')));
  const root = path.join(base, 'repo');
  await fs.cp(FIXTURE, root, { recursive: true, filter: (src) => !src.endsWith('.gitignore') });
  await fs.mkdir(path.join(root, '.git', 'hooks'), { recursive: true });
  const historyDir = path.join(base, 'history');
  const registry = await MemoryRegistry.open({ dir: path.join(base, 'memory'), deps: { tokenizerFor: getTokenizer }, memoryOptions: { maxTokens: 8000, recentKeep: 6 }, debounceMs: 50 });
  const recall = new RecallStore({ dir: path.join(base, 'memory', 'recall') });
  await recall.attach(registry);
  const services = await createServices({ roots: [root], chipDir: path.join(base, 'chips'), historyDir, memory: registry, recall });
  const a = openToolSession({ deps: services.deps, memory: (id) => registry.get(id), sessionId: 'agent-a' });
  const b = openToolSession({ deps: services.deps, memory: (id) => registry.get(id), sessionId: 'agent-b' });
  try {
    const files = await listFiles(root);
    const symbolFile = new Map<string, string>();
    for (const f of files) for (const m of (await fs.readFile(path.join(root, f), 'utf8')).matchAll(/export (?:async )?function (\w+)/g)) symbolFile.set(m[1]!, f);
    const calls: Call[] = [];
    // A's landed edits per file, less those a rollback undid: a file only a rolled-back batch touched is not modified
    const landedA = new Map<string, number>();
    let lastBatch: string[] = [];
    const truth = { editedB: new Set<string>(), pins: [] as string[], lastFail: '', symbols: new Map<string, string>(), openBatches: [] as string[], batches: 0 };
    const run = async (turn: number, tool: string, file: string, args: Record<string, unknown>, edited = [file]) => {
      const r = await a.call(tool, args);
      // a raw turn as the host kept it: the call with its arguments, and the result
      calls.push({ turn, tool, file, text: `${tool} ${JSON.stringify(args)}\n${r.text}`, isError: r.isError });
      if (r.isError) truth.lastFail = `${tool} ${file}`;
      else if (tool !== 'be-read' && tool !== 'be-memory' && tool !== 'be-trx') for (const f of edited) landedA.set(f, (landedA.get(f) ?? 0) + 1);
      return r;
    };
    for (let t = 1; t <= turns; t++) {
      const file = files[(t * 5 + Math.floor(t / files.length)) % files.length]!;
      if (t % 20 === 5) {
        const pair = [files[(t * 7) % files.length]!, files[(t * 11 + 3) % files.length]!];
        if (pair[0] === pair[1]) pair[1] = files[(t * 7 + 1) % files.length]!;
        const r = await run(t, 'be-apply', pair.join(','), { edits: pair.map((f) => ({ file: `${f}:1`, op: 'insert', content: `// batch of turn ${t}\n` })) }, pair);
        if (r.isError) throw new Error(`the batch of turn ${t} did not land: ${r.text}`);
        truth.openBatches.push((JSON.parse(r.text) as { event_id: string }).event_id);
        lastBatch = pair;
        truth.batches++;
      } else if (t % 20 === 6 && Math.floor(t / 20) % 3 === 1) {
        // the newest step is the batch of the turn before (B never lands an edit in between: see below)
        await run(t, 'be-trx', '', { action: 'rollback', step: 1 });
        truth.openBatches.pop();
        for (const f of lastBatch) landedA.set(f, landedA.get(f)! - 1);
      } else if (t % 100 === 48) {
        await run(t, 'be-trx', '', { action: 'commit' });
        truth.openBatches = [];
      } else if (t % 40 === 1) {
        const c = `Constraint ${truth.pins.length + 1}: never change ${file} without a test; keep money in integer cents.`;
        truth.pins.push(c);
        await run(t, 'be-memory', '', { action: 'add', kind: 'constraint', content: c });
      } else if (t % 10 === 3 || t % 10 === 7) await run(t, 'be-insert', file, { file: `${file}:1`, content: `// reviewed in turn ${t}\n` });
      else if (t % 10 === 9) await run(t, 'be-replace', file, { file: `${file}:9000-9001`, content: 'never lands\n' });
      else if (t % 25 === 11) await run(t, 'be-write', '.git/hooks/pre-commit', { file: '.git/hooks/pre-commit', content: '#!/bin/sh\n' });
      else {
        await run(t, 'be-read', file, { file: `${file}:ALL` });
        if (t <= turns / 5) for (const [s, f] of symbolFile) if (f === file) truth.symbols.set(s, f);
      }
      if (t % 17 === 0 && t % 20 !== 5) {
        const other = files[(t * 3) % files.length]!;
        const r = await b.call('be-insert', { file: `${other}:1`, content: `// agent b, turn ${t}\n` });
        if (!r.isError) truth.editedB.add(other);
      }
    }
    await recall.flush();
    const editedA = new Set([...landedA].filter(([, n]) => n > 0).map(([f]) => f));

    // What survives: our recap (as `recap` prints it) and A's last N raw turns.
    const memory = registry.get('agent-a');
    const tok = getTokenizer();
    const landed = await readLandedEdits(historyDir, [root]);
    const known = await readKnownEdits(historyDir, [root], landed);
    const recap = renderSessionRecap(memory, {
      sessionId: 'agent-a',
      lastActivity: Date.now(),
      trail: await recall.trail('agent-a'),
      otherEdits: known.filter((e) => e.session !== 'agent-a'),
      kept: known.filter((e) => e.session === 'agent-a'),
      openSteps: openSteps(landed),
      undone: await readUndoneEdits(historyDir, [root]),
      count: (x) => tok.count(x),
    });
    // the script's account of what is open must be the history's (no batch fell out of its last 30 steps unseen)
    const inHistory = new Set(landed.map((e) => e.id));
    for (const id of truth.openBatches) if (!inHistory.has(id)) throw new Error(`batch ${id} is open in the script but not in the be-trx history`);
    if (process.env.BENCH_PROBES_DUMP) console.log(recap);
    const lastTurn = calls.at(-1)!.turn;
    const raw = calls.filter((c) => c.turn > lastTurn - lastN);

    const scores: ProbeScore[] = [];
    const union = <T>(x: Set<T>, y: Set<T>) => new Set([...x, ...y]);
    // files A modified: the raw turns replayed (an edit adds its files, a rollback's restored files take theirs back)
    const rawLanded = new Map<string, number>();
    for (const c of raw) {
      if (c.isError || c.tool === 'be-read' || c.tool === 'be-memory') continue;
      if (c.tool !== 'be-trx') for (const f of c.file.split(',')) rawLanded.set(f, (rawLanded.get(f) ?? 0) + 1);
      else for (const r of (JSON.parse(c.text.slice(c.text.indexOf('\n') + 1)) as { restored?: { file: string }[] }).restored ?? []) {
        const f = path.relative(root, r.file);
        if (rawLanded.has(f)) rawLanded.set(f, rawLanded.get(f)! - 1);
      }
    }
    const editedRaw = new Set([...rawLanded].filter(([, n]) => n > 0).map(([f]) => f));
    const editedRecap = sectionPaths(recap, /Files changed by [^\n]*this session \(edits that landed\):/);
    scores.push({ probe: 'files this agent modified (F1)', truth: `${editedA.size} files`, recap: f1(editedA, union(editedRecap, editedRaw)), raw: f1(editedA, editedRaw) });
    // files another session modified (A's own turns never show them)
    const othersRecap = new Set([...recap.matchAll(/^- (.+) — by .*session agent-b/gm)].flatMap((m) => m[1]!.split(', ').map((f) => f.replace(/ \(×\d+\)$/, ''))));
    scores.push({ probe: 'files another session modified (F1)', truth: `${truth.editedB.size} files`, recap: f1(truth.editedB, othersRecap), raw: f1(truth.editedB, new Set()) });
    // the last failing command: in the last N turns if one failed there, else the recap's failing item with the highest id
    const fails = [...recap.matchAll(/\[m(\d+)(?:,m\d+)?\] (be-[\w-]+) (\S+?)(?::\d[\d-]*)?(?:,[^\n]*?)? → (?:REFUSED|error)/g)].map((m) => ({ id: Number(m[1]), what: `${m[2]} ${m[3]}` }));
    const lastRecap = fails.sort((x, y) => y.id - x.id)[0]?.what ?? '';
    const lastRawCall = raw.filter((c) => c.isError).at(-1);
    const lastRaw = lastRawCall ? `${lastRawCall.tool} ${lastRawCall.file}` : '';
    scores.push({ probe: 'last failing command (1/0)', truth: truth.lastFail, recap: (lastRaw || lastRecap) === truth.lastFail ? 1 : 0, raw: lastRaw === truth.lastFail ? 1 : 0 });
    // every pinned constraint
    const has = (text: string, c: string) => text.includes(c.slice(0, 60));
    const rawText = raw.map((c) => c.text).join('\n');
    scores.push({
      probe: 'every pinned constraint (share)',
      truth: `${truth.pins.length} constraints`,
      recap: truth.pins.filter((c) => has(recap, c) || has(rawText, c)).length / truth.pins.length,
      raw: truth.pins.filter((c) => has(rawText, c)).length / truth.pins.length,
    });
    // where a symbol read early lives: the recap's symbol line naming it (`- path: name:line …`), else the first line
    // naming the symbol and a path; from the raw turns, a read result defining it
    const symbolAnswer = (text: string, sym: string): string | undefined => {
      const listed = new RegExp(`^- (src\\/[\\w/.-]+\\.ts)[^:\\n]*:.* ${sym}:\\d+`, 'm').exec(text)?.[1];
      if (listed) return listed;
      for (const line of text.split('\n')) if (new RegExp(`\\b${sym}\\b`).test(line)) return /(src\/[\w/.-]+\.ts)/.exec(line)?.[1];
      return undefined;
    };
    const rawBySymbol = (sym: string) => raw.find((c) => c.tool === 'be-read' && new RegExp(`function ${sym}\\b`).test(c.text))?.file;
    const syms = [...truth.symbols];
    scores.push({
      probe: 'file of a symbol read early (share)',
      truth: `${syms.length} symbols`,
      recap: syms.filter(([sym, f]) => (rawBySymbol(sym) ?? symbolAnswer(recap, sym)) === f).length / Math.max(1, syms.length),
      ...(process.env.BENCH_PROBES_DUMP ? { missed: syms.filter(([sym, f]) => (rawBySymbol(sym) ?? symbolAnswer(recap, sym)) !== f).map(([s]) => s) } : {}),
      raw: syms.filter(([sym, f]) => rawBySymbol(sym) === f).length / Math.max(1, syms.length),
    });
    // be-apply batches still open: the recap's open steps; the raw turns replayed (a batch opens, a rollback's
    // restored ids or a commit close it; what happened before the last N turns is unknown there)
    const openRecap = new Set([...recap.matchAll(/^- ([0-9a-f]{6,12}) be-apply (?!.* by )/gm)].map((m) => m[1]!));
    const openRaw = new Set<string>();
    for (const c of raw) {
      if (c.isError) continue;
      const reply = c.text.slice(c.text.indexOf('\n') + 1);
      if (c.tool === 'be-apply') openRaw.add((JSON.parse(reply) as { event_id: string }).event_id);
      else if (c.tool === 'be-trx' && /"action":"commit"/.test(c.text)) openRaw.clear();
      else if (c.tool === 'be-trx') for (const r of (JSON.parse(reply) as { restored?: { id: string }[] }).restored ?? []) openRaw.delete(r.id);
    }
    const openTruth = new Set(truth.openBatches);
    scores.push({ probe: 'open be-apply batches (F1)', truth: `${openTruth.size} open of ${truth.batches}`, recap: f1(openTruth, union(openRecap, openRaw)), raw: f1(openTruth, openRaw) });
    console.log(`\nprobes after a compaction: ${turns} turns, two agents (B lands ${truth.editedB.size} edits), window 8,000 tokens; recap ${tok.count(recap)} tokens; last N = ${lastN} raw turns`);
    console.log('  | probe | ground truth | recap + last N | last N alone |');
    for (const s of scores) console.log(`  | ${s.probe} | ${s.truth} | ${s.recap.toFixed(2)} | ${s.raw.toFixed(2)} |${s.missed ? ` missed: ${s.missed.join(' ')}` : ''}`);
    return scores;
  } finally {
    await a.close();
    await b.close();
    recall.dispose();
    await registry.dispose();
    await services.close();
    await fs.rm(base, { recursive: true, force: true });
  }
}
