/**
 * Recall from a session's archive (`node --import tsx bench/recall.ts`; not part of the test suite).
 *
 * An archive of `BENCH_RECALL_MIB` MiB (default 1 and 7, under the 8 MiB cap) of evicted tool results, as a
 * restored session leaves it. Two stores over the same file, interleaved: ours as the registry uses it (the line
 * index, built by the first recall) and a store that does not hold the session, which reads the archive whole for
 * each recall (what every recall did before the index). Median and worst of `BENCH_RUNS` recalls of ids spread over
 * the file, and the longest event-loop block during each.
 */
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { MemoryRegistry } from '../src/core/memory/node/registry';
import { recallFileName, RecallStore } from '../src/core/memory/node/recallStore';
import { getTokenizer } from '../src/core/memory/node/tokenizer';

const RUNS = Number(process.env.BENCH_RUNS ?? 40);
const SIZES = (process.env.BENCH_RECALL_MIB ?? '1,7').split(',').map(Number);

async function archiveOf(dir: string, mib: number): Promise<number> {
  const lines: string[] = [];
  let bytes = 0;
  for (let i = 0; bytes < mib * 1024 * 1024; i++) {
    const line = JSON.stringify({ id: `m${i}`, kind: 'tool_result', role: 'user', tool: 'be-read', status: 'ok', references: [], tokens: 500, time: i, evictedAt: i, content: `${i} ${'const x = read(file);\n'.repeat(70)}` });
    lines.push(line);
    bytes += Buffer.byteLength(line) + 1;
  }
  await fs.mkdir(dir, { recursive: true, mode: 0o700 });
  await fs.writeFile(path.join(dir, recallFileName('s')), `${lines.join('\n')}\n`, { mode: 0o600 });
  return lines.length;
}

function summary(ms: number[]): string {
  const xs = [...ms].sort((a, b) => a - b);
  return `median ${xs[xs.length >> 1]!.toFixed(2)} ms, worst ${xs.at(-1)!.toFixed(2)} ms`;
}

async function main(): Promise<void> {
  for (const mib of SIZES) {
    const base = await fs.mkdtemp(path.join(os.tmpdir(), 'be-recall-bench-'));
    try {
      const dir = path.join(base, 'recall');
      const lines = await archiveOf(dir, mib);
      const registry = await MemoryRegistry.open({ deps: { tokenizerFor: getTokenizer } });
      registry.get('s');
      const ours = new RecallStore({ dir });
      await ours.attach(registry);
      const whole = new RecallStore({ dir });
      const t: Record<'ours' | 'whole', number[]> = { ours: [], whole: [] };
      const block: Record<'ours' | 'whole', number> = { ours: 0, whole: 0 };
      for (let r = 0; r < RUNS; r++) {
        const id = `m${Math.floor((r * 7919) % lines)}`;
        for (const [name, store] of (r % 2 ? [['whole', whole], ['ours', ours]] : [['ours', ours], ['whole', whole]]) as ['ours' | 'whole', RecallStore][]) {
          const h = monitorEventLoopDelay({ resolution: 1 });
          h.enable();
          const t0 = performance.now();
          const hit = await store.recall('s', id);
          t[name].push(performance.now() - t0);
          h.disable();
          block[name] = Math.max(block[name], h.max / 1e6);
          if (!hit) throw new Error(`${name}: ${id} not recalled`);
        }
      }
      console.log(`archive ${mib} MiB (${lines} records), ${RUNS} recalls each, interleaved:`);
      console.log(`  ours (line index)      ${summary(t.ours)}; longest event-loop block ${block.ours.toFixed(1)} ms`);
      console.log(`  whole read per recall  ${summary(t.whole)}; longest event-loop block ${block.whole.toFixed(1)} ms`);
      ours.dispose();
      await registry.dispose();
    } finally {
      await fs.rm(base, { recursive: true, force: true });
    }
  }
}

void main();
