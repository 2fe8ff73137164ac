/** ChatMemory quality over a scripted 200-turn coding session (the same run `npm run bench:memory` prints). */
import assert from 'node:assert/strict';
import { runScriptedSession } from '../../bench/memorySession';
import { measureSession } from '../../bench/sessionReport';
import { figure } from './figures';

describe('reliability: ChatMemory over a 200-turn scripted coding session', function () {
  this.timeout(600_000);

  it('never over the model limit, pins in every prompt, the artifact trail whole, cost flat (CPU and bytes read)', async () => {
    const run = await runScriptedSession({ turns: 200, maxInputTokens: 16_000, reserveTokens: 2_000 });
    try {
      const f = await measureSession(run);
      figure('memory.session.requests', f.requests, '≥ 200');
      figure('memory.session.peak_prompt_tokens', f.peakOurs, `≤ ${f.limit}`);
      figure('memory.session.peak_naive_tokens', f.peakNaive, '(reference)');
      figure('memory.session.peak_trimMessages_tokens', f.peakTrim, '(reference)');
      figure('memory.session.overflow_interrupts', f.overflowInterrupts, '0');
      figure('memory.session.pins_present_pct', f.pinsOurs, '100');
      figure('memory.session.pins_present_trimMessages_pct', f.pinsTrim, '(reference: constraint as a HumanMessage)');
      figure('memory.session.pins_present_trimMessages_system_pct', f.pinsTrimSystem, '(reference: includeSystem, constraint as a SystemMessage)');
      figure('memory.session.artifact_trail_trimMessages_system_pct', f.trailTrimSystem, '(reference)');
      figure('memory.session.artifact_trail_pct', f.trailOurs, '100');
      figure('memory.session.artifact_trail_summary_text_only_pct', f.trailSummaryOnly, '(reference)');
      figure('memory.session.ms_per_turn_late_over_early', (f.msPerTurnLate / f.msPerTurnEarly).toFixed(2), '≤ 2');
      const readLateOverEarly = f.bytesReadEarly && f.bytesReadLate !== undefined ? f.bytesReadLate / f.bytesReadEarly : undefined;
      figure('memory.session.bytes_read_late_over_early', readLateOverEarly?.toFixed(2) ?? 'n/a (no /proc/self/io)', '≤ 3 (every recall read the whole archive: ×17)');
      assert.ok(f.requests >= 200);
      assert.ok(f.peakOurs <= f.limit);
      assert.ok(f.peakNaive > 5 * f.limit, 'the session is long enough to matter');
      assert.equal(f.overflowInterrupts, 0);
      assert.equal(f.pinsOurs, 100);
      assert.equal(f.trailOurs, 100);
      assert.ok(f.msPerTurnLate / f.msPerTurnEarly <= 2, `late ${f.msPerTurnLate} ms vs early ${f.msPerTurnEarly} ms`);
      // deterministic where CPU time is not: nothing read again whole each turn
      if (readLateOverEarly !== undefined) assert.ok(readLateOverEarly <= 3, `bytes read: late ${f.bytesReadLate} vs early ${f.bytesReadEarly}`);
    } finally {
      await run.dispose();
    }
  });
});
