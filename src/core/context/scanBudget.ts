/**
 * A bound on the steps a body reader's scans take over one text. A head whose body never closes is scanned to the
 * text's end, and the next head again: thousands of them (a crafted file of `function f() {` lines, or heads nested
 * ever deeper) made the readers quadratic, a 300 KB file half a minute of an outline worker. Past the bound the
 * reading ends: the bodies found so far are emptied, the rest is parsed whole. Real files take about one step per
 * character, 12 at most among 5,600 measured (a .d.ts of method signatures without semicolons, whose heads each look
 * ahead to the next `{`); test/core/context/scanBudget.test.ts measures this repository's own sources.
 */

/** Steps per character of the text, and a floor for small texts. */
export const SCAN_STEPS_PER_CHAR = 32;
const SCAN_STEPS_MIN = 1 << 20;

export class ScanBudget {
  private left: number;

  /** `steps`: the bound itself, for tests (by default SCAN_STEPS_PER_CHAR per character, at least 2^20). */
  constructor(
    textLength: number,
    private readonly steps = SCAN_STEPS_PER_CHAR * textLength + SCAN_STEPS_MIN,
  ) {
    this.left = steps;
  }

  /** Steps taken so far (for the test that measures real files). */
  get spent(): number {
    return this.steps - this.left;
  }

  /** Takes `n` steps; false once the bound is passed (and from then on). */
  take(n = 1): boolean {
    return (this.left -= n) >= 0;
  }
}
