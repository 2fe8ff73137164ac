/**
 * Bracket matching over a scan's token kinds, with recovery: one missing bracket is reported once, not as
 * a cascade of mismatches after it.
 */

export interface Matching {
  /** token index of the partner, -1 when unbalanced */
  partner: Int32Array;
  /** nesting depth of a matched pair (1 = outermost), on both tokens */
  depth: Int32Array;
  /** token indices that are unbalanced, in token order */
  unbalanced: number[];
}

const LOOKAHEAD = 4096;
/** how deep below the top a partner is searched for, and how much of the stack a simulation copies */
const SEARCH_DEPTH = 256;

/**
 * Mismatch cost of continuing with `stackKinds` over the next tokens (plain matching, no recovery). Only
 * the top of the stack is copied; closers that reach below it are assumed to match (the same for every
 * option compared, so the comparison stays fair).
 */
function simulate(kinds: ArrayLike<number>, from: number, stackKinds: number[]): number {
  const st = stackKinds;
  let errors = 0;
  const to = Math.min(kinds.length, from + LOOKAHEAD);
  for (let t = from; t < to; t++) {
    const k = kinds[t];
    if ((k & 1) === 0) st.push(k);
    else if (!st.length) continue;
    else if (st[st.length - 1] === k - 1) st.pop();
    else errors++;
  }
  if (to === kinds.length) errors += st.length;
  return errors;
}

/**
 * Stack matching with recovery: at a closer that does not match the top, either the closer is extra or
 * the openers above its partner were never closed; the choice that leaves fewer mismatches over the next
 * tokens wins. So one missing bracket is reported once, not as a cascade.
 */
export function matchBrackets(kinds: ArrayLike<number>): Matching {
  const n = kinds.length;
  const partner = new Int32Array(n).fill(-1);
  const depth = new Int32Array(n);
  const stack: number[] = [];
  const bad: number[] = [];
  // lookahead work is bounded overall, so a file full of mismatches stays linear
  let budget = 4_000_000 + 4 * n;
  // openers of each kind on the stack: a closer whose kind is absent needs no search
  const open = [0, 0, 0, 0, 0, 0];
  for (let t = 0; t < n; t++) {
    const k = kinds[t];
    if ((k & 1) === 0) {
      stack.push(t);
      open[k]++;
      continue;
    }
    const top = stack.length - 1;
    if (top >= 0 && kinds[stack[top]] === k - 1) {
      const o = stack.pop()!;
      open[k - 1]--;
      partner[o] = t;
      partner[t] = o;
      depth[o] = depth[t] = stack.length + 1;
      continue;
    }
    if (open[k - 1] === 0) {
      bad.push(t);
      continue;
    }
    let j = top - 1;
    const floor = Math.max(0, top - SEARCH_DEPTH);
    while (j >= floor && kinds[stack[j]] !== k - 1) j--;
    if (j < floor || budget <= 0) {
      bad.push(t);
      continue;
    }
    budget -= 2 * (LOOKAHEAD + SEARCH_DEPTH);
    const base = Math.max(0, j - SEARCH_DEPTH);
    const stackKinds: number[] = [];
    for (let p = base; p <= top; p++) stackKinds.push(kinds[stack[p]]);
    const costUnclosed = top - j + simulate(kinds, t + 1, stackKinds.slice(0, j - base));
    const costExtra = 1 + simulate(kinds, t + 1, stackKinds);
    if (costExtra <= costUnclosed) {
      bad.push(t);
      continue;
    }
    for (let p = top; p > j; p--) {
      bad.push(stack[p]);
      open[kinds[stack[p]]]--;
    }
    stack.length = j + 1;
    const o = stack.pop()!;
    open[k - 1]--;
    partner[o] = t;
    partner[t] = o;
    depth[o] = depth[t] = stack.length + 1;
  }
  for (const o of stack) bad.push(o);
  bad.sort((a, b) => a - b);
  return { partner, depth, unbalanced: bad };
}
