/**
 * The last few outlines with the exact texts they were parsed from, for the outline worker: a file asked for
 * again unchanged (its structure, then its function ranges for an edit) is answered without a second parse.
 * A hit needs the same language and an identical text (compared whole, no digest that could collide).
 */
import type { Extracted } from './extract';

interface Entry {
  text: string;
  languageId: string;
  outline: Extracted | undefined;
}

export class OutlineCache {
  private entries: Entry[] = [];

  /**
   * @param maxChars the texts kept add up to at most this many characters (the text is the larger part).
   * @param minChars shorter texts parse in a few milliseconds and are not kept.
   */
  constructor(
    private readonly maxChars = 8 * 1024 * 1024,
    private readonly minChars = 64 * 1024,
    private readonly maxEntries = 8,
  ) {}

  get(text: string, languageId: string): { outline: Extracted | undefined } | undefined {
    const at = this.entries.findIndex((e) => e.languageId === languageId && e.text.length === text.length && e.text === text);
    if (at < 0) return undefined;
    const [hit] = this.entries.splice(at, 1);
    this.entries.unshift(hit!); // most recent first
    return { outline: hit!.outline };
  }

  set(text: string, languageId: string, outline: Extracted | undefined): void {
    if (text.length < this.minChars || text.length > this.maxChars) return;
    this.entries = this.entries.filter((e) => !(e.languageId === languageId && e.text === text));
    this.entries.unshift({ text, languageId, outline });
    let total = 0;
    this.entries = this.entries.filter((e, i) => i < this.maxEntries && (total += e.text.length) <= this.maxChars);
  }
}
