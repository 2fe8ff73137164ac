/**
 * A string-keyed map kept in SHARDS Maps, each key's shard picked by a cheap hash of its characters. V8 grows a Map
 * by copying its whole table in one go, and no slice of the event loop can split that copy: at 1M entries one `set`
 * took ~130 ms, at 500,000 ~45 ms (Node 24, 2 cores), the longest blocks left in a cold overview of 200,000 files.
 * A shard's copy is 1/SHARDS of it. No iteration: the order of insertion is a Map's promise, not this one's.
 */
const SHARDS = 64;

export class ShardedMap<V> {
  private readonly shards: Map<string, V>[] = Array.from({ length: SHARDS }, () => new Map<string, V>());
  private count = 0;

  get size(): number {
    return this.count;
  }

  get(key: string): V | undefined {
    return this.shardOf(key).get(key);
  }

  has(key: string): boolean {
    return this.shardOf(key).has(key);
  }

  set(key: string, value: V): this {
    const shard = this.shardOf(key);
    const before = shard.size;
    shard.set(key, value);
    this.count += shard.size - before;
    return this;
  }

  delete(key: string): boolean {
    const gone = this.shardOf(key).delete(key);
    if (gone) this.count--;
    return gone;
  }

  /**
   * Identifiers and paths differ most at their ends (`helper41`, `src/a/f7.ts`): three characters and the length,
   * no loop (a hash over the whole key doubled the cost of a look-up; the shards need not be even, only none large).
   */
  private shardOf(key: string): Map<string, V> {
    const n = key.length;
    const h = n < 2 ? n : key.charCodeAt(n - 1) * 31 + key.charCodeAt(n - 2) * 7 + key.charCodeAt(n >> 1) * 3 + n;
    return this.shards[h & (SHARDS - 1)]!;
  }

  /** How many keys each shard holds (tests: the spread of real keys). */
  shardSizes(): number[] {
    return this.shards.map((s) => s.size);
  }
}
