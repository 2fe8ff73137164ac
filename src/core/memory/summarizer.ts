/**
 * The summarizer port and its deterministic extractive default.
 *
 * The running summary is a list of lines, each `- fact` on one line. Evicting a message adds one line
 * (ARCHITECTURE.md, ChatMemory M4: its core conclusion in one sentence); when `summaryEvery` evicted tokens have
 * accumulated, or the summary outgrows its cap, the lines are condensed. An LM-backed summarizer (VS Code
 * layer) may condense asynchronously; the memory applies the extractive result meanwhile (ChatMemory M4:
 * never depend on the summary model alone — fingerprints keep the structured facts).
 */
import { formatReference } from './references';
import { headOf } from './fingerprint';
import type { Fingerprint, MemoryMessage } from './types';

/** All-time facts about what left the window, kept by the memory for condensing. */
export interface EvictionAggregate {
  messages: number;
  tokens: number;
  errors: number;
  /** path → times referenced by evicted messages */
  files: Record<string, number>;
  /** tool → evicted calls */
  tools: Record<string, number>;
}

export interface CondenseInput {
  lines: readonly string[];
  aggregate: EvictionAggregate;
  /** Token budget for the condensed summary. */
  maxTokens: number;
  count(text: string): number;
}

export interface Summarizer {
  /** One fact for an evicted unit (a message, or a tool call with its result). Cheap and synchronous. */
  lineFor(message: MemoryMessage, fingerprint: Fingerprint, partner?: MemoryMessage): string;
  /** Fewer lines within `maxTokens`. A promise means "later": the memory uses the extractive result until then. */
  condense(input: CondenseInput): string[] | Promise<string[]>;
}

function refs(fp: Fingerprint): string {
  return fp.files.slice(0, 3).map(formatReference).join(', ');
}

export class ExtractiveSummarizer implements Summarizer {
  /** `[m3,m4] be-read src/a.ts:1-9 → ok`: the ids name what `be-memory recall` gives back in full. */
  lineFor(message: MemoryMessage, fingerprint: Fingerprint, partner?: MemoryMessage): string {
    return `[${partner ? `${message.id},${partner.id}` : message.id}] ${this.fact(message, fingerprint, partner)}`;
  }

  private fact(message: MemoryMessage, fingerprint: Fingerprint, partner?: MemoryMessage): string {
    const files = refs(fingerprint);
    const ids = fingerprint.identifiers.slice(0, 3).join(', ');
    switch (message.kind) {
      case 'tool_call':
      case 'tool_result': {
        const result = message.kind === 'tool_result' ? message : partner?.kind === 'tool_result' ? partner : undefined;
        const status = result?.status === 'error' ? `error: ${headOf(result.content, 60)}` : result ? 'ok' : 'no result';
        return `${message.tool ?? 'tool'}${files ? ` ${files}` : ''} → ${status}${ids ? ` [${ids}]` : ''}`;
      }
      case 'user_query':
        return `user asked: ${headOf(message.content, 100)}`;
      case 'assistant_code':
        return `assistant wrote code${files ? ` in ${files}` : ''}${ids ? ` [${ids}]` : ''}`;
      case 'assistant':
        return `assistant: ${headOf(message.content, 90)}`;
      case 'note':
        return `note${message.group ? ` (${message.group})` : ''}: ${headOf(message.content, 90)}`;
      case 'system':
        return `system: ${headOf(message.content, 90)}`;
    }
  }

  condense(input: CondenseInput): string[] {
    return extractiveCondense(input);
  }
}

function top(counts: Record<string, number>, n: number): string {
  return Object.entries(counts)
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, n)
    .map(([name, c]) => (c > 1 ? `${name} ×${c}` : name))
    .join(', ');
}

/** A header line with all-time aggregates, then the newest lines that fit in half the budget. */
export function extractiveCondense({ lines, aggregate, maxTokens, count }: CondenseInput): string[] {
  const files = top(aggregate.files, 8);
  const tools = top(aggregate.tools, 6);
  const header =
    `earlier: ${aggregate.messages} messages evicted (${aggregate.tokens} tokens)` +
    (files ? `; files: ${files}` : '') +
    (tools ? `; tools: ${tools}` : '') +
    (aggregate.errors ? `; ${aggregate.errors} failed calls` : '');
  const kept: string[] = [];
  let budget = Math.floor(maxTokens / 2) - count(`- ${header}\n`);
  for (let i = lines.length - 1; i >= 0 && budget > 0; i--) {
    const line = lines[i]!;
    if (line.startsWith('earlier: ')) continue; // an older header: superseded by the new one
    const tokens = count(`- ${line}\n`);
    if (tokens > budget) break;
    budget -= tokens;
    kept.push(line);
  }
  return [header, ...kept.reverse()];
}

/** A text completion function (in VS Code: a `vscode.lm` chat model; in tests: a fake). */
export type Complete = (prompt: string, signal?: AbortSignal) => Promise<string>;

/**
 * Condenses with a language model, asynchronously; per-eviction lines stay extractive (cheap, sync).
 * Any failure, timeout or empty answer falls back to the extractive result, which the memory applies
 * at once anyway (ChatMemory M4: never depend on the summary model alone).
 */
export class PromptSummarizer implements Summarizer {
  private readonly fallback = new ExtractiveSummarizer();

  constructor(
    private readonly complete: Complete,
    private readonly timeoutMs = 20_000,
  ) {}

  lineFor(message: MemoryMessage, fingerprint: Fingerprint, partner?: MemoryMessage): string {
    return this.fallback.lineFor(message, fingerprint, partner);
  }

  async condense(input: CondenseInput): Promise<string[]> {
    const extractive = extractiveCondense(input);
    const prompt =
      `Condense these notes about a coding agent's session into at most ${Math.max(3, Math.floor(input.maxTokens / 40))} lines, ` +
      `about ${input.maxTokens} tokens in total. Keep file paths with line ranges, identifiers, failed calls and decisions; ` +
      `drop repetition. One fact per line, each line starting with "- ". No other text.\n\n` +
      input.lines.map((l) => `- ${l}`).join('\n');
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), this.timeoutMs);
    try {
      const answer = await this.complete(prompt, controller.signal);
      const lines = answer
        .split(/\r?\n/)
        .map((l) => l.replace(/^\s*[-*\u2022]\s*/, '').trim())
        .filter((l) => l.length > 0);
      return lines.length > 0 ? lines : extractive;
    } catch {
      return extractive;
    } finally {
      clearTimeout(timer);
    }
  }
}
