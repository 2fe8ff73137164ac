/** The file list's record of what it saw of each file (fileList.ts). */

/**
 * Each listed file's size and mtime last seen and the number of the last walk that listed it, in columns by slot:
 * an object per file with its boxed mtime took ~56 bytes a file at 200,000 files.
 */
export class SeenTable {
  private readonly slots = new Map<string, number>();
  private mtime = new Float64Array(256);
  private bytes = new Float64Array(256);
  private walks = new Uint32Array(256);
  private readonly free: number[] = [];
  private top = 0;

  get size(): number {
    return this.slots.size;
  }

  has(rel: string): boolean {
    return this.slots.has(rel);
  }

  slot(rel: string): number | undefined {
    return this.slots.get(rel);
  }

  /** Whether the file at `slot` still has this mtime and size. */
  same(slot: number, mtimeMs: number, size: number): boolean {
    return this.mtime[slot] === mtimeMs && this.bytes[slot] === size;
  }

  set(slot: number, mtimeMs: number, size: number): void {
    this.mtime[slot] = mtimeMs;
    this.bytes[slot] = size;
  }

  mark(slot: number, walk: number): void {
    this.walks[slot] = walk;
  }

  walkOf(slot: number): number {
    return this.walks[slot]!;
  }

  add(rel: string, mtimeMs: number, size: number, walk: number): void {
    let slot = this.free.pop();
    if (slot === undefined) {
      slot = this.top++;
      if (slot >= this.mtime.length) this.grow(2 * this.mtime.length);
    }
    this.slots.set(rel, slot);
    this.set(slot, mtimeMs, size);
    this.walks[slot] = walk;
  }

  delete(rel: string): boolean {
    const slot = this.slots.get(rel);
    if (slot === undefined) return false;
    this.slots.delete(rel);
    this.free.push(slot);
    return true;
  }

  entries(): IterableIterator<[string, number]> {
    return this.slots.entries();
  }

  keys(): IterableIterator<string> {
    return this.slots.keys();
  }

  private grow(n: number): void {
    const mtime = new Float64Array(n);
    mtime.set(this.mtime);
    const bytes = new Float64Array(n);
    bytes.set(this.bytes);
    const walks = new Uint32Array(n);
    walks.set(this.walks);
    [this.mtime, this.bytes, this.walks] = [mtime, bytes, walks];
  }
}
