/**
 * What a ChatMemory keeps of the messages it evicted: one fingerprint per message, a summary line per unit,
 * the running totals of what left (messages, tokens, errors, files, tools) and the condensing of the summary
 * when it outgrows its cap or every `summaryEvery` evicted tokens. The summary's tokens count against the budget.
 */
import { fingerprintOf } from './fingerprint';
import { extractiveCondense, type EvictionAggregate, type Summarizer } from './summarizer';
import type { Tokenizer } from './node/tokenizer';
import type { Fingerprint, MemoryMessage } from './types';

export interface RunningSummaryDeps {
  tokenizer: Tokenizer;
  summarizer: Summarizer;
  /** Condense every this many evicted tokens (read on each eviction: the option may change). */
  summaryEvery: () => number;
  /** The summary's token cap (it follows the budget). */
  cap: () => number;
  /** Fingerprints kept (oldest dropped; they are already folded into the summary). */
  maxFingerprints: () => number;
  /** A language-model summary arrived after the condense that asked for it and replaced the lines. */
  onLateSummary: () => void;
}

/** The part of a saved ChatMemory state this keeps. */
export interface RunningSummaryJSON {
  summaryLines: string[];
  /**
   * The tokens of each summary line as rendered (`- line\n`), in the memory's encoding: a restore counts only the
   * lines without one (counting every line of 50 saved sessions held a start for hundreds of milliseconds, and
   * made it load the tokenizer's ranks at once). Absent in states saved before it.
   */
  summaryTokens?: number[];
  fingerprints: Fingerprint[];
  evictions: number;
  evictedTokens: number;
  evictedSinceCondense: number;
  aggregate: EvictionAggregate;
}

export class RunningSummary {
  private lines: string[] = [];
  private lineTokens: number[] = [];
  /** Tokens of the rendered summary (`- line\n` each). */
  tokens = 0;
  /** Bumped on every change of the lines (a caller compares it to say "summary changed"). */
  generation = 0;
  private condenseCount = 0;
  private fingerprintList: Fingerprint[] = [];
  evictions = 0;
  evictedTokens = 0;
  private evictedSinceCondense = 0;
  private aggregate: EvictionAggregate = emptyAggregate();

  constructor(private readonly deps: RunningSummaryDeps) {}

  text(): string {
    return this.lines.map((l) => `- ${l}\n`).join('');
  }

  fingerprints(): Fingerprint[] {
    return this.fingerprintList.slice();
  }

  /**
   * Records one evicted unit (a message, or a tool call with its result; the older first): fingerprints, totals,
   * and a summary line when it is shorter than what it replaces. Returns the unit's fingerprints.
   */
  recordEviction(unit: readonly MemoryMessage[], now: number): Fingerprint[] {
    let unitTokens = 0;
    const prints: Fingerprint[] = [];
    for (const msg of unit) {
      const fp = fingerprintOf(msg, now);
      prints.push(fp);
      unitTokens += msg.tokens;
      this.absorb(msg, fp);
    }
    this.evictions += prints.length;
    this.evictedTokens += unitTokens;
    this.evictedSinceCondense += unitTokens;
    const line = normalizeLine(this.deps.summarizer.lineFor(unit[0]!, prints[0]!, unit[1]));
    const lineTokens = this.deps.tokenizer.count(`- ${line}\n`);
    // A fact longer than what it replaces would grow the window; the fingerprint alone keeps it.
    if (line && lineTokens < unitTokens) {
      this.lines.push(line);
      this.lineTokens.push(lineTokens);
      this.tokens += lineTokens;
      this.generation++;
    }
    if (this.evictedSinceCondense >= this.deps.summaryEvery() || this.tokens > this.deps.cap()) this.condense();
    return prints;
  }

  condenseIfOverCap(): void {
    if (this.tokens > this.deps.cap()) this.condense();
  }

  private absorb(msg: MemoryMessage, fp: Fingerprint): void {
    this.fingerprintList.push(fp);
    const max = this.deps.maxFingerprints();
    if (this.fingerprintList.length > max * 2) this.fingerprintList.splice(0, this.fingerprintList.length - max);
    const a = this.aggregate;
    a.messages++;
    a.tokens += msg.tokens;
    if (msg.status === 'error') a.errors++;
    if (msg.kind === 'tool_call' && msg.tool) a.tools[msg.tool] = (a.tools[msg.tool] ?? 0) + 1;
    if (msg.kind !== 'tool_result') for (const r of msg.references) a.files[r.path] = (a.files[r.path] ?? 0) + 1;
    // Bound the aggregate: keep the most referenced files.
    if (Object.keys(a.files).length > 400) a.files = Object.fromEntries(Object.entries(a.files).sort((x, y) => y[1] - x[1]).slice(0, 200));
  }

  private condense(): void {
    this.evictedSinceCondense = 0;
    if (this.lines.length === 0) return;
    const count = this.lineCounter();
    const input = { lines: this.lines.slice(), aggregate: cloneAggregate(this.aggregate), maxTokens: this.deps.cap(), count };
    let result: string[] | Promise<string[]>;
    try {
      result = this.deps.summarizer.condense(input);
    } catch {
      result = extractiveCondense(input);
    }
    if (Array.isArray(result)) {
      this.condenseCount++;
      this.setLines(result);
      return;
    }
    // An asynchronous summarizer (an LM): apply the extractive result now, and the LM's when it arrives
    // in place of those lines (lines added since stay after it) — unless another condense happened in
    // between or the LM broke the budget.
    this.setLines(extractiveCondense(input));
    const condenseId = ++this.condenseCount;
    const replaced = this.lines.length;
    void Promise.resolve(result).then(
      (lines) => {
        if (condenseId !== this.condenseCount || !Array.isArray(lines)) return;
        const normalized = lines.map(normalizeLine).filter((l) => l.length > 0);
        const next = [...normalized, ...this.lines.slice(replaced)];
        const tokens = next.reduce((sum, l) => sum + count(`- ${l}\n`), 0);
        if (normalized.length === 0 || tokens > this.deps.cap()) return;
        this.setLines(next);
        this.deps.onLateSummary();
      },
      () => undefined,
    );
  }

  /** Counts rendered summary lines, reusing the counts of lines already in the summary (condensing keeps most). */
  private lineCounter(): (text: string) => number {
    const known = new Map<string, number>();
    this.lines.forEach((line, i) => known.set(`- ${line}\n`, this.lineTokens[i]!));
    return (text) => known.get(text) ?? this.deps.tokenizer.count(text);
  }

  /** `counted`: tokens of some of the lines already known (a restore's saved counts), by line. */
  private setLines(lines: string[], counted?: ReadonlyMap<string, number>): void {
    const known = new Map<string, number>(counted);
    this.lines.forEach((line, i) => known.set(line, this.lineTokens[i]!));
    // Lines kept from the current summary are normalized and counted already.
    this.lines = lines.map((l) => (known.has(l) ? l : normalizeLine(l))).filter((l) => l.length > 0);
    this.lineTokens = this.lines.map((l) => known.get(l) ?? this.deps.tokenizer.count(`- ${l}\n`));
    this.tokens = this.lineTokens.reduce((a, b) => a + b, 0);
    this.generation++;
  }

  /** Forgets everything; a language-model summary still on its way belongs to the old state and is dropped. */
  clear(): void {
    this.lines = [];
    this.lineTokens = [];
    this.tokens = 0;
    this.generation++;
    this.condenseCount++;
    this.fingerprintList = [];
    this.evictions = this.evictedTokens = this.evictedSinceCondense = 0;
    this.aggregate = emptyAggregate();
  }

  toJSON(): RunningSummaryJSON {
    return {
      summaryLines: this.lines.slice(),
      summaryTokens: this.lineTokens.slice(),
      fingerprints: this.fingerprintList.map((f) => ({ ...f, files: f.files.map((r) => ({ ...r })), identifiers: [...f.identifiers] })),
      evictions: this.evictions,
      evictedTokens: this.evictedTokens,
      evictedSinceCondense: this.evictedSinceCondense,
      aggregate: cloneAggregate(this.aggregate),
    };
  }

  /**
   * Restores a saved state (missing fields of older states start empty). Its line counts are taken for the lines
   * saved as they are kept (normalized, not empty) unless `recount` (the saved state counted in another encoding).
   */
  restore(json: Partial<RunningSummaryJSON>, recount = false): void {
    const lines = json.summaryLines ?? [];
    const saved = !recount && Array.isArray(json.summaryTokens) && json.summaryTokens.length === lines.length ? json.summaryTokens : undefined;
    const counted = new Map<string, number>();
    if (saved) {
      lines.forEach((line, i) => {
        const n = saved[i];
        if (typeof line === 'string' && Number.isSafeInteger(n) && n! >= 0 && line.length > 0 && normalizeLine(line) === line) counted.set(line, n!);
      });
    }
    this.setLines(lines, counted);
    this.fingerprintList = (json.fingerprints ?? []).map((f) => ({ ...f }));
    this.evictions = json.evictions ?? 0;
    this.evictedTokens = json.evictedTokens ?? 0;
    this.evictedSinceCondense = json.evictedSinceCondense ?? 0;
    this.aggregate = cloneAggregate(json.aggregate ?? emptyAggregate());
  }
}

function emptyAggregate(): EvictionAggregate {
  return { messages: 0, tokens: 0, errors: 0, files: {}, tools: {} };
}

function cloneAggregate(a: EvictionAggregate): EvictionAggregate {
  return { messages: a.messages, tokens: a.tokens, errors: a.errors, files: { ...a.files }, tools: { ...a.tools } };
}

/** One summary line: no line breaks, no leading dash or spaces (the renderer adds "- "). */
export function normalizeLine(line: string): string {
  return line.replace(/\s+/g, ' ').replace(/^[-\s]+/, '').trim();
}
